"""Transports: the HTTP server, the shape checks of a request, Socket Mode, and Slack's text as it arrives."""
