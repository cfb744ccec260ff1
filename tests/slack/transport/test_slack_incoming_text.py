"""Pure text helpers: entity decoding and mention-token stripping."""

from __future__ import annotations

import pytest

from bot.slack.transport.incoming_text import command_text, decode_entities, first_word, mention_text, strip_tokens


@pytest.mark.parametrize(
    "raw, decoded",
    [
        ("&lt;!channel&gt;", "<!channel>"),
        ("a &amp; b", "a & b"),
        ("&amp;lt;", "&lt;"),  # decoded once: the user typed "&lt;"
        ("&amp;amp;", "&amp;"),
        ("5 &gt; 3 &lt; 4", "5 > 3 < 4"),
        ("&quot;x&quot; &#39;y&#39;", "&quot;x&quot; &#39;y&#39;"),  # Slack encodes only & < >
        ("$5, 50%, A*", "$5, 50%, A*"),
    ],
)
def test_decode_entities_once(raw: str, decoded: str) -> None:
    assert decode_entities(raw) == decoded


@pytest.mark.parametrize(
    "raw, stripped",
    [
        ("<@U0LAN0Z89> KIStego", "KIStego"),
        ("tell me about KIStego <@UBOT>", "tell me about KIStego"),  # mention last
        ("hey <@UBOT>   show   p7k2 please", "hey show p7k2 please"),  # mention in the middle
        ("<@W123|ann> <@UBOT> UniSparse", "UniSparse"),  # another user, enterprise id
        ("<@UBOT> see <#C0123|general> and <#C0456>", "see and"),
        ("<@UBOT> <https://arxiv.org/abs/1|arXiv> <mailto:a@b.c|mail> x", "x"),
        ("<@UBOT> <!channel> <!here> <!subteam^S1|@team> <!date^1392734382^{date}|Feb 18>", ""),
        ("<@UBOT>", ""),
        ("<@UBOT> a &lt;b&gt; c", "a &lt;b&gt; c"),  # user-typed < > are entities: kept
    ],
)
def test_strip_tokens_anywhere(raw: str, stripped: str) -> None:
    assert strip_tokens(raw) == stripped


def test_mention_text_keeps_web_links_as_their_urls() -> None:
    assert (
        mention_text("<@UBOT> see <https://arxiv.org/abs/2401.1v2|arxiv.org/abs/2401.1v2> now")
        == "see https://arxiv.org/abs/2401.1v2 now"
    )
    assert mention_text("<https://x.org/KIStego|KIStego>") == "https://x.org/KIStego KIStego"  # a written label
    assert mention_text("<@UBOT> <mailto:a@b.c|mail> x <https://a.org/?q=1&amp;b=2>") == "x https://a.org/?q=1&b=2"


def test_mention_text_strips_then_decodes_once() -> None:
    assert mention_text("<@UBOT> search &lt;!channel&gt; &amp;amp; <!channel>") == "search <!channel> &amp;"
    assert mention_text("&gt;&gt;&gt;Hey <@UBOT> today") == ">>>Hey today"
    assert mention_text("") == ""


def test_command_text_decodes_and_keeps_what_the_user_typed() -> None:
    assert command_text("search &lt;!channel&gt;") == "search <!channel>"
    assert command_text("  search image  steganography ") == "search image  steganography"
    assert command_text("") == ""


@pytest.mark.parametrize(
    "text, word",
    [
        ("Subscribe 09:30 Europe/Berlin", "subscribe"),
        ("  today ", "today"),
        ("", ""),
        ("   ", ""),
    ],
)
def test_first_word(text: str, word: str) -> None:
    assert first_word(text) == word
