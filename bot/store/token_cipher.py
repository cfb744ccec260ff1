"""Tokens encrypted at rest: Fernet from ``cryptography`` (the only module that imports it).

Fernet is AES-128-CBC with an HMAC-SHA256 over the whole message, keyed by 32
random bytes written as 44 characters of URL-safe base64
(https://cryptography.io/en/latest/fernet/). ``PAPERBOT_TOKEN_KEY`` holds one
key, or several separated by commas: the first encrypts, every one decrypts
(``MultiFernet``), so a key is replaced by putting the new one first, letting
the bot re-save its installations as tokens rotate or workspaces reinstall, and
dropping the old one later (README "Distributed app (many workspaces)").

A key that is not a Fernet key, and a stored value no key opens, are each a
``TokenKeyError`` with one line for the operator — never a plaintext fallback.
"""

from __future__ import annotations

from cryptography.fernet import Fernet, InvalidToken, MultiFernet

#: How to make a key (README "Distributed app (many workspaces)").
MAKE_A_KEY = 'make one with: python -c "from cryptography.fernet import Fernet; print(Fernet.generate_key().decode())"'


class TokenKeyError(ValueError):
    """``PAPERBOT_TOKEN_KEY`` is missing, is not a Fernet key, or does not open
    what the database holds; ``str(e)`` is one line naming the fix."""


class TokenCipher:
    """Encrypts and decrypts token strings with ``PAPERBOT_TOKEN_KEY``.

    Args:
        keys: one Fernet key, or several separated by commas (newest first).

    Raises:
        TokenKeyError: empty, or a part is not 32 bytes of URL-safe base64.
    """

    def __init__(self, keys: str) -> None:
        parts = [k.strip() for k in (keys or "").split(",") if k.strip()]
        if not parts:
            raise TokenKeyError(f"PAPERBOT_TOKEN_KEY is not set; {MAKE_A_KEY}")
        try:
            self._fernet = MultiFernet([Fernet(k.encode("ascii")) for k in parts])
        except (ValueError, UnicodeEncodeError):
            raise TokenKeyError(
                f"PAPERBOT_TOKEN_KEY is not a Fernet key (44 characters of URL-safe base64); {MAKE_A_KEY}"
            ) from None

    def seal(self, text: str | None) -> str | None:
        """``text`` encrypted (ASCII, URL-safe base64: 164 characters for a 57-character
        token, 228 for 100), or None for None."""
        if text is None:
            return None
        return self._fernet.encrypt(text.encode("utf-8")).decode("ascii")

    def open(self, sealed: str | None) -> str | None:
        """The text ``seal`` encrypted, or None for None.

        Raises:
            TokenKeyError: no key of ``PAPERBOT_TOKEN_KEY`` opens it (another key
                wrote it, or it was altered).
        """
        if sealed is None:
            return None
        try:
            return self._fernet.decrypt(sealed.encode("ascii")).decode("utf-8")
        except (InvalidToken, UnicodeEncodeError):
            raise TokenKeyError(
                "PAPERBOT_TOKEN_KEY does not open the tokens stored in DATABASE_URL: they were "
                "encrypted with another key (put that key back, after a comma if a new one comes first)"
            ) from None
