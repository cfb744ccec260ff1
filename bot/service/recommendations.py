"""Papers picked for a reader (issue 22 points 3 and 4): ``/paper foryou``, the App Home's
"For you", the *More like this* / *Not for me* buttons, and the papers a ``for me`` or
``for this channel`` subscription posts on a date.

A reader is a user (their signals: saves, shares, buttons, reactions) or a channel (what its
members did in it: shares into it, reactions on its posts) — ``Service.signals(team,
subject)``. The model is reached through ``bot.core.recommend_port.PaperRecommender``
(``bot.runtime.recommending`` wires ``bot.recommend``); with fewer than
``MIN_POSITIVES`` positives it raises ``TooFewPositives`` and the reader is told so, with a
paper of the index to save — never a made-up pick. A subscription's papers of a date are
chosen once and kept (``bot.store.recommended``): no paper goes twice to the same person or
channel; with too few positives the date gets the rotation's paper (or its topic's) instead,
and the first such post says why. Service layer: no Slack, SQL or scikit-learn types.
"""

from __future__ import annotations

import json
import logging
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Callable, Iterable, Sequence

from bot.core.index_port import ServiceIndex
from bot.core.models import PAGE_SIZE, Context, Paper, QueryError, Subscription
from bot.core.recommend_port import MIN_POSITIVES, PaperRecommender, Pick, TooFewPositives
from bot.core.replies import ForYouReply, NoticeReply, Recommended, Reply
from bot.core.store_port import ServiceStore
from bot.service.signals import fold
from bot.service.topics import Topics, channel_order

log = logging.getLogger(__name__)

#: Deepest a ``/paper foryou`` page goes (10 pages of 5).
FORYOU_MAX = 50
#: With too few positives, the newest positives an example is looked for near, and the similar
#: papers read for each.
EXAMPLE_FROM, EXAMPLE_SIMILAR = 2, 10
#: Picks the App Home's "For you" shows.
HOME_PICKS = 3
#: Picks asked for at most when a topic narrows a channel's picks.
TOPIC_POOL = (50, 500)
#: What a pick's why says the reader did to the positive it is most like: the first signal kind
#: of these the reader gave that paper, strongest first — for a person (True), for a channel.
BECAUSE = {
    True: (("saved", "you saved"), ("more", "you liked"), ("up", "you liked"), ("shared", "you shared")),
    False: (("up", "this channel liked"), ("more", "this channel liked"), ("shared", "shared here")),
}
#: The signal kinds the buttons record (``Service.record_signal``).
MORE, NOT_FOR_ME = "more", "not_for_me"


@dataclass(frozen=True)
class RecommendedPost:
    """What a ``for me`` / ``for this channel`` subscription posts on a date.

    Attributes:
        picks: the papers with why, in order (``Recommended.how`` says which are the
            rotation's).
        note: plain text said once under the first post that falls back to the rotation
            (too few positives), else None.
    """

    picks: tuple[Recommended, ...]
    note: str | None = None


class Recommendations:
    """Picks for users and channels.

    Args:
        index: the search index (``get``, ``ids``, ``match_all``).
        store: the store (reading lists, the recommended posts, daily picks).
        recommender: the model (``PaperRecommender``), or None when none runs here.
        signals: ``signals(team, subject) -> Signals`` (``.positives``, ``.negatives``:
            paper ids, most recent first) — ``Service.signals``.
        now: the clock (aware UTC).
    """

    def __init__(
        self,
        index: ServiceIndex,
        store: ServiceStore,
        recommender: PaperRecommender | None,
        signals: Callable[[str, str], Any],
        now: Callable[[], datetime],
    ) -> None:
        self.index, self.store, self.recommender = index, store, recommender
        self.signals, self.now = signals, now
        self.topics = Topics(index, store)

    # ------------------------------------------------------------------ a user's page
    def for_you(self, ctx: Context, offset: int = 0, limit: int = PAGE_SIZE) -> Reply:
        """``/paper foryou``: a page of the user's picks (``ForYouReply``), each with why,
        never a paper they already have (``_had``: posted by their feed, in their reading
        list); with too few positives, how many they have and a paper to save.

        Args:
            ctx: the user (team and user id).
            offset: picks to skip (a later page), 0..``FORYOU_MAX``.
            limit: picks per page.
        """
        if not ctx.user_id:
            return NoticeReply(text="I can't tell who you are here, so I can't pick papers for you.")
        offset = max(0, min(int(offset), FORYOU_MAX - limit))
        if self.recommender is None:
            return ForYouReply(unavailable=True)
        rows = self.store.signal_rows(ctx.team_id, ctx.user_id)  # read once: the signals and the why
        signals = fold(rows)
        try:
            picks = self.recommender.recommend(
                list(signals.positives),
                list(signals.negatives),
                exclude=self._had(ctx.team_id, ctx.user_id),
                limit=min(FORYOU_MAX, offset + limit + 1),
            )
        except TooFewPositives as few:
            like, example = self._example(ctx, signals)
            return ForYouReply(have=few.have, needed=few.needed, example=example, example_like=like)
        shown = [p for p in picks[offset : offset + limit] if self.index.get(p.paper_id)]
        because = self._because(ctx.team_id, ctx.user_id, rows)
        return ForYouReply(
            picks=tuple(
                self._recommended(ctx.team_id, p.paper_id, "pick", p.why.terms, p.why.like, because) for p in shown
            ),
            offset=offset,
            has_more=len(picks) > offset + limit and offset + limit < FORYOU_MAX,
        )

    def home(self, ctx: Context) -> ForYouReply:
        """The App Home's "For you": the user's best ``HOME_PICKS``, or why there are none.

        Args:
            ctx: the viewer (team and user id).
        """
        reply = self.for_you(ctx, 0, HOME_PICKS)
        return reply if isinstance(reply, ForYouReply) else ForYouReply(unavailable=True)

    def _had(self, team: str, user: str) -> set[str]:
        """Papers ``user`` already has, never offered again as picks: those their ``for me``
        feed posted (``recommended_posts``) and those in their reading list."""
        return self.store.recommended_ids(team, user) | {
            e.paper_id for e in self.store.reading_list_entries(team, user)
        }

    def _example(self, ctx: Context, signals: Any) -> tuple[Paper | None, Paper | None]:
        """``(like, example)``: a paper of the loaded index to suggest saving. With positives, the
        index's paper most similar to the newest one the user does not have (``like`` that
        positive); with none, the shared paper of the day's first rotation pick not in their
        reading list (``like`` None); ``(None, None)`` for an empty index."""
        had = self._had(ctx.team_id, ctx.user_id) | set(signals.positives) | set(signals.negatives)
        for positive in signals.positives[:EXAMPLE_FROM]:
            like = self.index.get(positive)
            hits = self.index.similar(positive, limit=EXAMPLE_SIMILAR) if like is not None else []
            for hit in hits:
                if hit.paper.id not in had:
                    return like, hit.paper
        ids = self.index.ids()
        for pid in channel_order(ctx.team_id, ctx.user_id, ids)[:20] if ids else ():
            if pid not in had:
                return None, self.index.get(pid)
        return None, None

    def _recommended(
        self, team: str, paper_id: str, how: str, terms: Sequence[str], like: str | None, because: Callable
    ) -> Recommended:
        """A ``Recommended`` for ``paper_id`` (which the caller knows is in the index);
        ``because(like id)`` says what the reader did to ``like`` (``_because``)."""
        liked = self.index.get(like) if like else None
        said = because(liked.id) if liked is not None else "you liked"
        return Recommended(paper=self.index.get(paper_id), terms=tuple(terms)[:5], like=liked, because=said, how=how)

    def _because(self, team: str, subject: str, rows: Iterable[tuple[str, str, Any]]) -> Callable[[str], str]:
        """``said(paper id)``: what ``subject`` did to that positive, by the strongest kind of
        its signals in force (``BECAUSE``): "you saved", "you liked" (👍, *More like this*),
        "you shared"; for a channel "this channel liked" (👍) or "shared here". A paper with no
        signal (forgotten since) says "you saved" when in the user's reading list, else
        "you liked" / "this channel liked". ``rows``: the subject's ``signal_rows``, read by
        the caller (``for_you`` folds the same rows into its signals)."""
        kinds: dict[str, set[str]] = {}
        for pid, kind, _at in rows:
            kinds.setdefault(pid, set()).add(kind)
        person = subject[:1] in ("U", "W")
        order = BECAUSE[person]

        def said(like: str) -> str:
            have = kinds.get(like, set())
            for kind, words in order:
                if kind in have:
                    return words
            if person and self.store.get_reading_list_entry(team, subject, like) is not None:
                return "you saved"
            return "you liked" if person else "this channel liked"

        return said

    # ------------------------------------------------------------------ a subscription's post
    def post(self, sub: Subscription, day: date) -> RecommendedPost:
        """The papers ``sub`` (``recommend`` on) posts on ``day``, chosen once and kept: the
        best unseen picks from the reader's signals (the user's for a personal feed, the
        channel's otherwise; a topic keeps only papers matching it), else the rotation's.

        Args:
            sub: a ``for me`` / ``for this channel`` subscription.
            day: its local date.

        Returns:
            RecommendedPost: ``picks`` empty only when nothing is left to post (an empty
            index, a topic matching nothing new).
        """
        team, target = sub.team_id, sub.channel_id
        rows = self.store.recommend_once(team, target, day, lambda posted: self._choose(sub, day, posted), self.now())
        picks, because = [], self._because(team, target, self.store.signal_rows(team, target))
        for pid, how, why in rows:
            if self.index.get(pid) is None:
                continue
            terms, like = _why_of(why)
            picks.append(self._recommended(team, pid, how, terms, like, because))
        note = None
        if any(r[1] == "fallback" for r in rows) and not self.store.fell_back_before(team, target, day):
            note = self._fallback_note(sub)
        return RecommendedPost(picks=tuple(picks), note=note)

    def papers(self, sub: Subscription, day: date) -> list[Paper]:
        """The papers of ``post`` (``/paper today`` shows what the digest posts).

        Args:
            sub: a ``for me`` / ``for this channel`` subscription.
            day: its local date.
        """
        return [r.paper for r in self.post(sub, day).picks]

    def _choose(self, sub: Subscription, day: date, posted: set) -> list[tuple[str, str, str | None]]:
        """``[(paper id, how, why)]`` for a date not chosen yet (``Store.recommend_once``)."""
        want = max(1, min(5, sub.papers))
        try:
            allowed = set(self.topics.matches(sub.topic)) if sub.topic else None
        except QueryError:
            allowed = set()
        chosen: list[tuple[str, str, str | None]] = []
        how = "rotation"
        try:
            for pick in self._picks(sub, posted, allowed, want):
                chosen.append((pick.paper_id, "pick", json.dumps({"t": list(pick.why.terms), "l": pick.why.like})))
        except TooFewPositives:
            how = "fallback"
        if len(chosen) < want:
            taken = posted | {c[0] for c in chosen}
            chosen += [(pid, how, None) for pid in self._rotation(sub, day, taken, allowed, want - len(chosen))]
        return chosen

    def _picks(self, sub: Subscription, posted: set, allowed: set | None, want: int) -> list[Pick]:
        """The model's best ``want`` unseen picks for ``sub``'s reader (within ``allowed``).

        Raises:
            TooFewPositives: the reader has too few positives (or no model runs here).
        """
        if self.recommender is None:
            raise TooFewPositives(0)
        signals = self.signals(sub.team_id, sub.channel_id)
        for pool in (want,) if allowed is None else TOPIC_POOL:
            picks = self.recommender.recommend(
                list(signals.positives), list(signals.negatives), exclude=posted, limit=pool
            )
            kept = [p for p in picks if (allowed is None or p.paper_id in allowed) and self.index.get(p.paper_id)]
            if len(kept) >= want or len(picks) < pool:
                return kept[:want]
        return kept[:want]

    def _rotation(self, sub: Subscription, day: date, taken: set, allowed: set | None, count: int) -> list[str]:
        """``count`` papers of the rotation the reader never had: the shared paper of the day
        first (no topic), then the channel's own order over the topic's papers (or all)."""
        out: list[str] = []
        if allowed is None and sub.papers <= 1:
            shared = self.topics.paper_ids(Subscription(sub.team_id, sub.channel_id, "00:00", sub.tz), day)
            out = [pid for pid in shared if pid not in taken][:count]
        if len(out) < count:
            pool = [pid for pid in (allowed if allowed is not None else self.index.ids()) if pid not in taken]
            ordered = [pid for pid in channel_order(sub.team_id, sub.channel_id, pool) if pid not in out]
            if ordered:
                start = day.toordinal() % len(ordered)
                out += (ordered[start:] + ordered[:start])[: count - len(out)]
        return out

    def _fallback_note(self, sub: Subscription) -> str:
        """Why a learning subscription posts the rotation: too few positives (said once)."""
        signals = self.signals(sub.team_id, sub.channel_id)
        have = min(len(signals.positives), MIN_POSITIVES - 1)
        if sub.personal:
            return (
                f"Not enough to learn from yet ({have} of the {MIN_POSITIVES} papers I need: save papers you like, "
                "or click More like this), so this is the paper of the day. From then on your feed posts papers "
                "picked for you."
            )
        return (
            f"This channel has not shown me enough yet ({have} of the {MIN_POSITIVES} papers I need: share "
            "papers here, or react 👍 / 👎 to my posts), so this is the paper of the day. From then on this "
            "channel gets papers picked from what it likes."
        )

    def readiness(self, sub: Subscription) -> str | None:
        """A note for the subscribe confirmation of a learning subscription with too few
        positives ("You have 1 of the 3 …"), else None.

        Args:
            sub: the subscription just stored.
        """
        if not sub.recommend:
            return None
        have = len(self.signals(sub.team_id, sub.channel_id).positives)
        if have >= MIN_POSITIVES:
            return None
        whose = "You have" if sub.personal else "This channel has"
        how = "save papers you like" if sub.personal else "share papers here or react 👍 / 👎 to my posts"
        return (
            f"{whose} {have} of the {MIN_POSITIVES} liked papers I need to pick papers ({how}); "
            "until then the post is the usual paper of the day."
        )


def _why_of(why: str | None) -> tuple[tuple[str, ...], str | None]:
    """A stored explanation (``{"t": terms, "l": like}``) → ``(terms, like)``; ``((), None)``
    for none or one that cannot be read."""
    try:
        data = json.loads(why) if why else {}
        terms = tuple(str(t) for t in data.get("t") or ())
        like = data.get("l")
        return terms, like if isinstance(like, str) else None
    except (ValueError, AttributeError, TypeError):
        return (), None
