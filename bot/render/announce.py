"""``PostingAnnouncer``: the ``bot.core.ports.ChannelAnnouncer`` that renders a reply
and posts it through any ``bot.core.ports.Poster`` (Slack's ``SlackPoster`` or the
console's printer).

It sits above the service so the service never renders or posts by itself
(docs/architecture.md "Layers").
"""

from __future__ import annotations

from bot.core.ports import Poster, TeamPosters, poster_for
from bot.core.replies import Reply
from bot.render import render


class PostingAnnouncer:
    """Announce a reply in a channel by rendering it (``bot.render.render``) and
    posting the ``Message`` with ``poster.post(channel_id, message)``.

    Args:
        poster: a ``bot.core.ports.Poster`` (or a distributed app's
            ``TeamPosters``: the team's own); its ``PostError`` propagates.
    """

    def __init__(self, poster: Poster | TeamPosters) -> None:
        self.poster = poster

    def announce(self, channel_id: str, reply: Reply, *, team_id: str) -> None:
        """Render ``reply`` and post it to ``channel_id``.

        Args:
            channel_id: the channel to post in.
            reply: the service's reply, rendered with ``bot.render.render``.
            team_id: the channel's team.

        Raises:
            bot.core.ports.PostError: Slack (or the console) refused the post.
        """
        poster_for(self.poster, team_id).post(channel_id, render(reply))
