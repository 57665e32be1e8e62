"""Ladders: an operator opens one, bots join it, the referee pairs them, rates every match
once and keeps the leaderboard.

Pairing runs in one place across all nodes: every node's sweeper calls :meth:`Ladders.tick`,
and only the holder of the store's ``pairing`` lease pairs (a node that dies stops renewing,
and another takes the lease once it lapses, :data:`LEASE_MS`). A pairing pass applies the
matches that ended since the last one, creates the matches of its line-ups, then frees and
books in the ladder document with one compare-and-set; if that loses (a join, a leave or an
operator changed the ladder meanwhile) it aborts the matches whose bots are no longer free
and books the rest, so a bot is never booked twice. Only then are the bots told, each through
its ``match_started`` event, exactly as for an accepted challenge
(:meth:`service.challenges.Challenges.announce`).

A ladder match ends through :meth:`match_finished` (the referee's end-of-match hook, on the
node whose commit ended it), which only queues the end: the next pass rates it and frees its
bots, in one write for all the matches that ended meanwhile, so a bot free again is paired
within a pass, however many matches end at once. Should that node die before the hook ran,
the pass finds the match over and queues its end itself; the standings remember every rated
match id, so it is rated exactly once either way (:mod:`service.ladders.standings`).

Health: a bot's first match is a validation match against the house random bot; a fault there
keeps it out of pairing with others, and it plays validation matches until it passes one (or
its faults suspend it). Faults (``timeout``, ``illegal_action``, ``disconnected``, once per match and bot)
are counted; ``fault_threshold`` of them in the last ``fault_window`` matches suspend the bot,
with the reason on its profile and leaderboard row, until its owner rejoins it after the
cool-down.
"""

from __future__ import annotations

import logging
import random
import secrets
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import orjson

from service.accounts import Accounts, Bot, name_key
from service.bots.registry import BOT_NAMES, make_bot
from service.challenges import Challenges
from service.clock import iso_ms, wall_ms
from service.engine import InvalidOptions
from service.errors import Conflict, NotFound, RefereeError, Refused, from_store
from service.ladders.model import (
    HOUSE_PREFIX,
    ID,
    Ended,
    Ladder,
    LiveMatch,
    Member,
    ends_key,
    house_key,
    ladder_key,
    match_key,
    standings_key,
)
from service.ladders.pairing import Candidate, line_ups, seat_order
from service.ladders.standings import Standings
from service.match import Match, Snapshot
from service.referee import Referee
from service.store import AccountStore, LadderStore

log = logging.getLogger("referee.ladders")

Plan = tuple[list[str], str | None]
"""A match to create: the member keys by seat, and the bot it validates (if it does)."""

LEASE = "pairing"
LEASE_MS = 3000
"""How long the pairing lease lasts unrenewed: the longest pairing pauses when its node dies."""

STALE_MS = 5000
"""A live match this long past its start is looked at by the pairing pass (every this long,
not on every pass: each look loads the match), in case its end was never heard (the node that
ended it died before its hook ran)."""

STALE_LOOKS = 16
"""Live matches looked at per ladder and sweep, the oldest first: a pass stays short beside
hundreds of matches in progress, and a match whose end was lost is the oldest soon enough."""

SLOW_PASS_S = 1.0
"""A pairing pass longer than this is logged: bots wait for it."""

AT_ONCE = 16
"""Matches a pass creates (and announces) at once: each creation waits on the store several
times, and on a busy node those waits, not the work, are what make a long pass."""

MAX_ENDS = 1000
"""Queued match ends one pass applies per ladder (the rest wait for the next pass)."""

_ATTEMPTS = 16
"""Compare-and-sets one change of a ladder tries before it answers 409 ``ladder_busy``."""

VALIDATOR = "random"
"""The house bot a new bot's validation match is against."""


class Ladders:
    """Ladders over a :class:`LadderStore`, with the accounts, the challenges (to announce
    matches) and the referee (to create and read them)."""

    def __init__(
        self,
        store: LadderStore,
        accounts: Accounts,
        challenges: Challenges,
        referee: Referee,
        now_ms: Callable[[], int] = wall_ms,
    ) -> None:
        self.store = store
        self.accounts = accounts
        self.account_store: AccountStore = accounts.store
        self.challenges = challenges
        self.referee = referee
        self.now_ms = now_ms
        self.node = secrets.token_hex(8)
        """This process's name as a lease holder."""
        self._chooser = random.Random()
        self._holding = False
        self._swept_ms = 0
        """When this node last looked for live matches whose end was never heard."""
        self._renewed_ms = 0
        """When this node last took or renewed the lease."""

    # -- operators -------------------------------------------------------------------------

    def create(self, body: dict[str, Any]) -> dict[str, Any]:
        """A new ladder, open at once.

        :raises Refused: ``invalid_ladder_id``, bad options, ``unknown_house_bot``.
        :raises NotFound: ``unknown_game``. :raises Conflict: ``ladder_exists``."""
        ladder_id = body["id"]
        if not ID.match(ladder_id):
            raise Refused(
                "invalid_ladder_id", "A ladder id is 2–40 characters of a–z, 0–9 and '-', not starting with '-'."
            )
        game = self.referee.game(body["game"])
        try:
            options = game.resolve_options(body["players"], body.get("options"))
        except InvalidOptions as exc:
            raise Refused(exc.code, exc.message) from exc
        now = self.now_ms()
        ladder = Ladder(
            id=ladder_id,
            game=game.id,
            players=body["players"],
            options=options,
            time_control=body["time_control"],
            created=iso_ms(now),
            **{k: body[k] for k in SETTINGS if k in body},
        )
        for bot in body.get("house", []):
            ladder.members[house_key(bot)] = self._house_member(game.id, bot, now)
        if not from_store(self.store.put, ladder_key(ladder_id), 0, ladder.encode()):
            raise Conflict("ladder_exists", f"A ladder {ladder_id!r} exists already.")
        return ladder.settings()

    def add_house(self, ladder_id: str, bot: str) -> dict[str, Any]:
        """Make the house bot ``bot`` a permanent member (again, if it was)."""

        def add(ladder: Ladder) -> None:
            ladder.members[house_key(bot)] = self._house_member(ladder.game, bot, self.now_ms())

        return self._change(ladder_id, add).settings()

    def set_status(self, ladder_id: str, status: str) -> dict[str, Any]:
        """Pause, resume (``open``) or close the ladder; a closed ladder stays closed.

        :raises Conflict: ``ladder_closed``."""

        def change(ladder: Ladder) -> None:
            if ladder.status == "closed" and status != "closed":
                raise Conflict("ladder_closed", f"Ladder {ladder_id!r} is closed; it opens no more.")
            ladder.status = status

        return self._change(ladder_id, change).settings()

    @staticmethod
    def _house_member(game_id: str, bot: str, now: int) -> Member:
        try:
            make_bot(game_id, bot)
        except KeyError:
            raise Refused(
                "unknown_house_bot", f"No house bot {bot!r} for {game_id} (the house has {', '.join(BOT_NAMES)})."
            ) from None
        return Member(name=house_key(bot), owner="house", joined_ms=now, free_since_ms=now, house=bot, validated=True)

    # -- reading ---------------------------------------------------------------------------

    def ladder(self, ladder_id: str) -> Ladder:
        """:raises NotFound: ``unknown_ladder``."""
        found = from_store(self.store.get, ladder_key(ladder_id)) if ID.match(ladder_id) else None
        if found is None:
            raise NotFound("unknown_ladder", f"No ladder {ladder_id!r}.")
        return Ladder.decode(found[1])

    def get(self, ladder_id: str) -> dict[str, Any]:
        return self.ladder(ladder_id).settings()

    def listing(self) -> list[dict[str, Any]]:
        ids = [k.removeprefix("ladder/") for k in from_store(self.store.keys, "ladder/")]
        return [self.get(ladder_id) for ladder_id in ids]

    def standings(self, ladder_id: str) -> Standings:
        found = from_store(self.store.get, standings_key(ladder_id))
        return Standings.decode(found[1] if found is not None else None)

    def leaderboard(self, ladder_id: str) -> dict[str, Any]:
        """The members, best first: by μ − 3σ, or by mean score in a cooperative game."""
        ladder = self.ladder(ladder_id)
        standings = self.standings(ladder_id)
        cooperative = self.referee.game(ladder.game).cooperative
        rows = []
        for key, member in ladder.members.items():
            row = standings.row(key, member.name)
            entry: dict[str, Any] = {
                "bot": member.name,
                "house": member.house is not None,
                "active": member.active,
                "games": row.games,
                "wins": row.wins,
                "faults": dict(row.faults),
                "last_match": row.last_match,
                "last_played": iso_ms(row.last_ms) if row.last_ms else None,
                "provisional": row.games < ladder.provisional_games,
                "validated": member.validated,
                "suspended": member.suspended,
                "playing": len(member.playing),
            }
            if cooperative:
                mean, half = row.mean_score()
                entry |= {"mean_score": round(mean, 3), "interval": [round(mean - half, 3), round(mean + half, 3)]}
                entry["sort"] = mean
            else:
                entry |= {"mu": round(row.mu, 3), "sigma": round(row.sigma, 3), "rating": round(row.conservative, 3)}
                entry["sort"] = row.conservative
            rows.append(entry)
        rows.sort(key=lambda e: (-e.pop("sort"), e["bot"].lower()))
        for rank, entry in enumerate(rows, 1):
            entry["rank"] = rank
        return {
            "ladder": ladder.id,
            "game": ladder.game,
            "ranked_by": "mean_score" if cooperative else "rating",
            "rows": rows,
        }

    def matches(self, ladder_id: str, bot: str | None, cursor: int, count: int) -> dict[str, Any]:
        """Finished matches, newest first, of one member if ``bot`` is given; ``cursor`` is
        the position in the ladder's results to start from."""
        self.ladder(ladder_id)
        results = self.standings(ladder_id).results
        wanted = bot.lower() if bot is not None else None
        page: list[dict[str, Any]] = []
        position = cursor
        while position < len(results) and len(page) < count:
            result = results[position]
            position += 1
            if wanted is None or wanted in {b.lower() for b in result["bots"]}:
                page.append(result)
        return {"matches": page, "next_cursor": str(position) if position < len(results) else None}

    def live(self, ladder_id: str) -> list[dict[str, Any]]:
        """The matches being played, with their watch links."""
        ladder = self.ladder(ladder_id)
        return [
            {
                "match_id": match_id,
                "bots": [ladder.members[k].name if k in ladder.members else k for k in live.members],
                "started": iso_ms(live.started_ms),
                "validation": live.validation is not None,
                "watch_url": f"/watch/{match_id}",
            }
            for match_id, live in ladder.live.items()
        ]

    def bot_ladders(self, bot_name: str) -> list[dict[str, Any]]:
        """The ladders ``bot_name`` is a member of, with its standing and rating history."""
        key = name_key(bot_name)
        found = []
        for ladder_id in [k.removeprefix("ladder/") for k in from_store(self.store.keys, "ladder/")]:
            ladder = self.ladder(ladder_id)
            member = ladder.members.get(key)
            if member is None:
                continue
            row = self.standings(ladder_id).row(key, member.name)
            found.append(
                {
                    "ladder": ladder_id,
                    "game": ladder.game,
                    "active": member.active,
                    "games": row.games,
                    "rating": round(row.conservative, 3),
                    "provisional": row.games < ladder.provisional_games,
                    "suspended": member.suspended,
                    "history": row.history,
                }
            )
        return found

    # -- bots ------------------------------------------------------------------------------

    def join(self, bot: Bot, ladder_id: str) -> dict[str, Any]:
        """``bot`` joins (or rejoins) the ladder.

        :raises Conflict: ``ladder_closed``, ``already_joined``, ``suspended`` (cool-down not
            over). :raises Refused: ``game_not_accepted``."""
        rules = bot.auto_accept or {}
        now = self.now_ms()

        def join(ladder: Ladder) -> None:
            if ladder.status == "closed":
                raise Conflict("ladder_closed", f"Ladder {ladder_id!r} is closed.")
            if "games" in rules and ladder.game not in rules["games"]:
                raise Refused(
                    "game_not_accepted",
                    f"This bot's auto-accept rules take {rules['games']}, not {ladder.game}; add it to join.",
                )
            member = ladder.members.get(bot.key)
            if member is not None and member.active and member.suspended is None:
                raise Conflict("already_joined", f"{bot.name} is a member of ladder {ladder_id!r} already.")
            if member is not None and member.suspended is not None:
                wait_s = (member.suspended_ms + ladder.cool_down_s * 1000 - now + 999) // 1000
                if wait_s > 0:
                    raise Conflict(
                        "suspended",
                        f"{bot.name} is suspended ({member.suspended}); rejoin in {wait_s} s.",
                        retry_after=wait_s,
                    )
            if member is None:
                ladder.members[bot.key] = Member(name=bot.name, owner=bot.owner, joined_ms=now, free_since_ms=now)
            else:
                ladder.members[bot.key] = replace(member, active=True, suspended=None, free_since_ms=now)

        ladder = self._change(ladder_id, join)
        if bot.key in ladder.members and ladder.members[bot.key].suspended is None:
            self._forgive(ladder_id, bot.key)
        return self._membership(ladder, bot.key)

    def leave(self, bot: Bot, ladder_id: str) -> dict[str, Any]:
        """``bot`` leaves: no new matches; those it plays go on by their clocks.

        :raises Conflict: ``not_joined``."""

        def leave(ladder: Ladder) -> None:
            member = ladder.members.get(bot.key)
            if member is None or not member.active:
                raise Conflict("not_joined", f"{bot.name} is not a member of ladder {ladder_id!r}.")
            member.active = False

        return self._membership(self._change(ladder_id, leave), bot.key)

    def _forgive(self, ladder_id: str, key: str) -> None:
        """A rejoined bot's old faults no longer count towards a suspension."""

        def forgive(standings: Standings) -> bool:
            row = standings.rows.get(key)
            if row is None or not any(row.recent):
                return False
            row.recent = []
            return True

        self._change_standings(ladder_id, forgive)

    @staticmethod
    def _membership(ladder: Ladder, key: str) -> dict[str, Any]:
        member = ladder.members[key]
        return {
            "ladder": ladder.id,
            "bot": member.name,
            "active": member.active,
            "validated": member.validated,
            "suspended": member.suspended,
            "playing": [{"match_id": m, "watch_url": f"/watch/{m}"} for m in member.playing],
        }

    # -- pairing ---------------------------------------------------------------------------

    def tick(self) -> int:
        """One pass of the pairing loop, if this node holds the lease (taking it if free);
        how many matches it created."""
        now = self.now_ms()
        if not self._renew():
            return 0
        created = 0
        sweep = now - self._swept_ms >= STALE_MS
        if sweep:
            self._swept_ms = now
        began = time.monotonic()
        for key in from_store(self.store.keys, "ladder/"):
            ladder_id = key.removeprefix("ladder/")
            try:
                if sweep:
                    self._sweep_stale(ladder_id)
                created += len(self.pair(ladder_id))
            except RefereeError as exc:
                log.warning("pairing ladder %s failed: %s", ladder_id, exc.detail)
        took = time.monotonic() - began
        if took > SLOW_PASS_S:
            log.warning("a pairing pass took %.2f s (created %d matches, swept: %s)", took, created, sweep)
        return created

    def _renew(self) -> bool:
        """Take or renew the pairing lease; whether this node holds it."""
        now = self.now_ms()
        held = bool(from_store(self.store.hold_lease, LEASE, self.node, now, now + LEASE_MS))
        if held and not self._holding:
            log.info("pairing lease taken by node %s", self.node)
        self._holding = held
        self._renewed_ms = now
        return held

    def _still_holding(self) -> bool:
        """Whether this node still holds the lease, renewing it once a third of it has gone
        by: a pass longer than the lease must not book beside a node that took it meanwhile."""
        if self.now_ms() - self._renewed_ms < LEASE_MS // 3:
            return self._holding
        return self._renew()

    def pair(self, ladder_id: str) -> list[str]:
        """Apply the ladder's queued match ends, then create the matches its free, online
        members make now; their ids.

        The ends are rated first (the standings remember what they rated), then the bots they
        free are released and the new matches booked in one compare-and-set of the ladder.
        The matches are created before that booking; when it loses (a join, a leave or an
        operator changed the ladder meanwhile), the ladder is read again and the matches whose
        bots are all still free are booked on it, the others aborted. A pass that loses the
        lease (another node took it) books nothing."""
        queued = from_store(self.store.queued, ends_key(ladder_id), MAX_ENDS)
        ends = [Ended.decode(item) for _, item in queued]
        version, ladder = self._read(ladder_id)
        standings = self._rate(ladder, ends) if ends else self.standings(ladder_id)
        self._free(ladder, ends, standings)
        created = self._create_all(ladder, self._plans(ladder, standings)) if ladder.status == "open" else []
        for _ in range(_ATTEMPTS):
            now = self.now_ms()
            kept = [(plan, answer) for plan, answer in created if self._bookable(ladder, plan[0])]
            for plan, answer in created:
                if (plan, answer) not in kept:
                    self._abort(answer)
            created = kept
            for (members, validation), answer in kept:
                self._book(ladder, answer["match_id"], members, validation, now)
            if not ends and not kept:
                return []
            if not self._renew():
                break  # another node pairs now: these matches are not booked, nor the ends applied
            if from_store(self.store.put, ladder_key(ladder_id), version, ladder.encode()):
                from_store(self.store.unqueue, ends_key(ladder_id), [item_id for item_id, _ in queued])
                self._announce_all(ladder, kept)
                return [answer["match_id"] for _, answer in kept]
            version, ladder = self._read(ladder_id)
            self._free(ladder, ends, standings)
        for _, answer in created:
            self._abort(answer)
        return []

    @staticmethod
    def _bookable(ladder: Ladder, members: list[str]) -> bool:
        """Whether every bot of a line-up is still an open member with a free slot."""
        if ladder.status != "open":
            return False
        for key in members:
            if key == house_key(VALIDATOR):
                continue  # the validator plays whether or not it is a member
            member = ladder.members.get(key)
            if member is None or not member.active or member.suspended is not None:
                return False
            if member.house is None and len(member.playing) >= ladder.max_concurrent:
                return False
        return True

    def _plans(self, ladder: Ladder, standings: Standings) -> list[Plan]:
        """The line-ups to create now, by seat: validation matches first, then the pairs."""
        now = self.now_ms()
        online = set(from_store(self.account_store.online_bots, now, 100_000))
        plans: list[Plan] = []
        candidates = []
        for key, member in ladder.members.items():
            if member.house is not None:
                if member.active:
                    row = standings.row(key, member.name)
                    candidates.append(Candidate(key, "", row.conservative, 0, house=True))
                continue
            if not member.active or member.suspended or key not in online:
                continue
            if len(member.playing) >= ladder.max_concurrent:
                continue
            if not member.validated:
                if not member.playing:
                    seats = [key] + [house_key(VALIDATOR)] * (ladder.players - 1)
                    plans.append((seat_order(seats, {}, self._chooser), key))
                continue
            row = standings.row(key, member.name)
            waited = max(0, now - member.free_since_ms)
            candidates.append(Candidate(key, member.owner, row.conservative, waited, frozenset(member.last_opponents)))
        for line_up in line_ups(candidates, ladder.players, ladder.same_owner):
            keys = [c.key for c in line_up]
            counts = {k: ladder.members[k].seats for k in keys}
            plans.append((seat_order(keys, counts, self._chooser), None))
        return plans

    def _create_all(self, ladder: Ladder, plans: list[Plan]) -> list[tuple[Plan, dict[str, Any]]]:
        """Create the matches of ``plans``, :data:`AT_ONCE` at a time, while this node holds
        the lease; each plan created with the referee's answer."""
        if not plans:
            return []

        def create(plan: Plan) -> dict[str, Any] | None:
            return self._create(ladder, plan) if self._still_holding() else None

        with ThreadPoolExecutor(max_workers=min(AT_ONCE, len(plans))) as pool:
            answers = list(pool.map(create, plans))
        return [(plan, answer) for plan, answer in zip(plans, answers, strict=True) if answer is not None]

    def _create(self, ladder: Ladder, plan: Plan) -> dict[str, Any]:
        members, _ = plan
        house = [
            {"seat": s, "bot": k.removeprefix(HOUSE_PREFIX)}
            for s, k in enumerate(members)
            if k.startswith(HOUSE_PREFIX)
        ]
        answer = self.referee.create_match(
            ladder.game, ladder.players, ladder.options, None, ladder.time_control, house
        )
        link = {"ladder": ladder.id, "members": members}
        from_store(self.store.put, match_key(answer["match_id"]), 0, orjson.dumps(link))
        return answer

    @staticmethod
    def _book(ladder: Ladder, match_id: str, members: list[str], validation: str | None, now: int) -> None:
        ladder.live[match_id] = LiveMatch(members, now, validation)
        for seat, key in enumerate(members):
            member = ladder.members.get(key)
            if member is None or member.house is not None:
                continue
            member.playing = [*member.playing, match_id]
            member.last_opponents = [k for k in members if k != key]
            member.seats = [*member.seats, *[0] * (ladder.players - len(member.seats))]
            member.seats[seat] += 1

    def _announce_all(self, ladder: Ladder, booked: list[tuple[Plan, dict[str, Any]]]) -> None:
        """Tell the bots of every booked match, :data:`AT_ONCE` matches at a time."""
        if not booked:
            return
        with ThreadPoolExecutor(max_workers=min(AT_ONCE, len(booked))) as pool:
            list(pool.map(lambda item: self._announce(ladder, item[1], *item[0]), booked))

    def _announce(self, ladder: Ladder, answer: dict[str, Any], members: list[str], validation: str | None) -> None:
        order = [None if k.startswith(HOUSE_PREFIX) else ladder.members[k].name for k in members]
        extra = {"ladder": ladder.id, "validation": validation is not None}
        self.challenges.announce(answer, order, ladder.time_control, extra)

    def _abort(self, answer: dict[str, Any]) -> None:
        token = answer["seats"][0]["token"] if answer["seats"] else None
        try:
            self.referee.abort(answer["match_id"], token)
        except RefereeError as exc:
            log.warning("aborting unbooked ladder match %s failed: %s", answer["match_id"], exc.detail)

    # -- the end of a match ----------------------------------------------------------------

    def note_illegal(self, match_id: str, seat: int) -> None:
        """A seat of ``match_id`` attempted an illegal action: a fault of its bot, counted when
        the match ends (once, however many it attempted). Never raises: the refusal of the
        action is the answer, whatever happens here."""
        try:
            self._note_illegal(match_id, seat)
        except Exception:
            log.exception("counting an illegal action in match %s failed", match_id)

    def _note_illegal(self, match_id: str, seat: int) -> None:
        for _ in range(_ATTEMPTS):
            found = from_store(self.store.get, match_key(match_id))
            if found is None:
                return
            data = orjson.loads(found[1])
            if seat in data.get("illegal", []):
                return
            data["illegal"] = [*data.get("illegal", []), seat]
            if from_store(self.store.put, match_key(match_id), found[0], orjson.dumps(data)):
                return

    def match_finished(self, match: Match, snapshot: Snapshot) -> None:
        """Queue a ladder match's end, with its faults, for the pairing pass (anything else:
        nothing). The pass rates it and frees its bots, however often it is queued."""
        found = from_store(self.store.get, match_key(match.match_id))
        if found is None:
            return
        link = orjson.loads(found[1])
        faults = self._faults(match, link["members"], set(link.get("illegal", [])))
        outcome = dict(snapshot.outcome) if snapshot.outcome is not None else None
        ended = Ended(match.match_id, outcome, faults)
        from_store(self.store.push, ends_key(link["ladder"]), ended.encode())

    def _faults(self, match: Match, members: list[str], illegal: set[int]) -> dict[int, str]:
        """Each bot seat's fault in the match, the worst one only."""
        ended = match.ended or {}
        now = self.now_ms()
        faults = {}
        for seat, key in enumerate(members):
            if key.startswith(HOUSE_PREFIX):
                continue
            if seat in illegal:
                faults[seat] = "illegal_action"
            elif ended.get("reason") == "timeout" and ended.get("seat") == seat:
                gone = from_store(self.account_store.streams, key, now) == 0
                faults[seat] = "disconnected" if gone else "timeout"
        return faults

    def _rate(self, ladder: Ladder, ends: list[Ended]) -> Standings:
        """Rate the played matches of ``ends`` still live on ``ladder`` (each once: the
        standings skip what they rated before); the standings after."""
        cooperative = self.referee.game(ladder.game).cooperative
        names = {key: member.name for key, member in ladder.members.items()}
        now = self.now_ms()

        def rate(standings: Standings) -> bool:
            changed = False
            for end in ends:
                live = ladder.live.get(end.match_id)
                if live is None or end.outcome is None or end.match_id in standings.rated:
                    continue
                named = {k: names.get(k, k) for k in live.members}
                bots = [named[k] for k in live.members]
                result = {
                    "match_id": end.match_id,
                    "finished": iso_ms(now),
                    "bots": bots,
                    "ranks": end.outcome["ranks"],
                    "scores": end.outcome["scores"],
                    "faults": {bots[seat]: kind for seat, kind in end.faults.items()},
                    "validation": live.validation is not None,
                    "started": iso_ms(live.started_ms),
                    "watch_url": f"/watch/{end.match_id}",
                    "replay_url": f"/v1/matches/{end.match_id}/replay",
                }
                standings.apply(live.members, named, end.outcome, end.faults, cooperative, result, now)
                changed = True
            return changed

        return self._change_standings(ladder.id, rate)

    def _free(self, ladder: Ladder, ends: list[Ended], standings: Standings) -> None:
        """Take the ended matches off ``ladder`` (those still on it): their bots are free
        again, a validation is passed or failed, and a bot past the fault threshold is
        suspended."""
        now = self.now_ms()
        for end in ends:
            live = ladder.live.pop(end.match_id, None)
            if live is None:
                continue
            for seat, key in enumerate(live.members):
                member = ladder.members.get(key)
                if member is None or member.house is not None:
                    continue
                member.playing = [m for m in member.playing if m != end.match_id]
                member.free_since_ms = now
                if live.validation == key and end.outcome is not None:
                    member.validated = seat not in end.faults
                row = standings.rows.get(key)
                recent = [kind for kind in (row.recent if row else [])[-ladder.fault_window :] if kind]
                if member.suspended is None and len(recent) >= ladder.fault_threshold:
                    kinds = sorted(set(recent), key=recent.count, reverse=True)
                    member.suspended = (
                        f"{len(recent)} faults ({', '.join(kinds)}) in its last {ladder.fault_window} matches"
                    )
                    member.suspended_ms = now

    def _sweep_stale(self, ladder_id: str) -> None:
        """Queue the ends of live matches that are over but were never queued (their node
        died before the end-of-match hook ran), and of those gone from the store."""
        _, ladder = self._read(ladder_id)
        now = self.now_ms()
        oldest = sorted(ladder.live.items(), key=lambda item: item[1].started_ms)[:STALE_LOOKS]
        for match_id, live in oldest:
            if now - live.started_ms < STALE_MS:
                break
            try:
                match, game = self.referee.current(match_id)
            except NotFound:
                from_store(self.store.push, ends_key(ladder_id), Ended(match_id, None, {}).encode())
                continue
            snapshot = Snapshot.of_match(game, match)
            if snapshot.over:
                self.match_finished(match, snapshot)

    # -- documents -------------------------------------------------------------------------

    def _read(self, ladder_id: str) -> tuple[int, Ladder]:
        found = from_store(self.store.get, ladder_key(ladder_id)) if ID.match(ladder_id) else None
        if found is None:
            raise NotFound("unknown_ladder", f"No ladder {ladder_id!r}.")
        return found[0], Ladder.decode(found[1])

    def _change(self, ladder_id: str, change: Callable[[Ladder], None]) -> Ladder:
        for _ in range(_ATTEMPTS):
            version, ladder = self._read(ladder_id)
            change(ladder)
            if from_store(self.store.put, ladder_key(ladder_id), version, ladder.encode()):
                return ladder
        raise Conflict("ladder_busy", "The ladder keeps changing under this request; retry.")

    def _change_standings(self, ladder_id: str, change: Callable[[Standings], bool]) -> Standings:
        """Apply ``change`` (which says whether it changed anything) to the ladder's standings
        in a compare-and-set; the standings after."""
        for _ in range(_ATTEMPTS):
            found = from_store(self.store.get, standings_key(ladder_id))
            version, standings = (found[0], Standings.decode(found[1])) if found else (0, Standings())
            if not change(standings):
                return standings
            if from_store(self.store.put, standings_key(ladder_id), version, standings.encode()):
                return standings
        raise Conflict("ladder_busy", "The standings keep changing under this request; retry.")


SETTINGS = ("max_concurrent", "provisional_games", "same_owner", "fault_threshold", "fault_window", "cool_down_s")
"""The settings a creation request may give beside game, players, options and time control."""
