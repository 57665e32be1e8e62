"""A heuristic bot for Esploratore, playing from its own seat's view only.

Everything it weighs is one number: the **yield per turn** its vehicles can collect from a
table of top cards (each yield type weighted by how much it helps win, see
:meth:`EsploratoreBot.weights`). From the view it rebuilds the table as line and meeting-point
masks and, for every line, the stretch of positions around the Earth card that the line
crosses unbroken; a slot (position, line) then pays its planet's weighted yield when it has a
meeting point inside that stretch.

- **Cards** (phase 1): every legal play is tried on a copy of the table and scored by the
  yield over the turns left: what the bot's vehicles (and a ship it could build this turn)
  collect after this turn's moves, plus the best target a further vehicle could still reach,
  counting a turn for each card its line still lacks from Earth (so a far planet is worth
  aiming at while enough turns remain), minus a little of what opponents' vehicles lose.
  Without a good play it exchanges its least useful card. It draws from the pile whose unseen
  cards would, on average, be the best play next turn.
- **Build or combine** (phase 2): build a ship on the Earth line that leads to the best slot
  while a die is free, else combine (factory first).
- **Moves** (phase 3): greedily the move that raises the yield most; ships gather on a
  meeting point, since vehicles that start a turn together there can be combined.
- **Upkeep** variant: slots are priced net of the crew's upkeep; short of a resource it
  offers a barter of its most plentiful one, else trades with the government, then pays.

It reads the seed data and the pure mask helpers of ``service.games.esploratore.rules``,
never the match state.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

from service.bots.search import rank_share, round_stage
from service.engine import Action, State, View
from service.games.esploratore import GAME
from service.games.esploratore import rules as R

UNPLACEABLE = 0.5  # the share of a drawn card's worth when it cannot be played next turn

JUDGE_SPREAD = 11.0
"""How far one seat's total of a resource type may still end from where its last round's yield
would carry it, in units per root of a round left (one standard deviation). Over 30 matches of
heuristic bots at three players and 30 at four, the gap between two seats' totals of a type
ended 13-19 units times that root away from the gap so carried from a round's start, the same
for every type: about 11 per seat."""

ROLLOUT_FACES = 2
"""Unseen cards of a pile that a rollout's seat weighs before a draw
(:meth:`EsploratoreBot.for_rollouts`). A draw lays every unseen card of every pile on a copy
of the table, 87% of the heuristic bot's time at four players: with all of them level 3
played about two worlds a decision in its 0.1 s; with 2, about five, and it beats level 2
there."""

JUDGE_DRAWS = 32
"""Draws of the totals' moves over which a stopped rollout's expected rank is averaged."""


def _judge_noise() -> list[list[list[float]]]:
    """:data:`JUDGE_DRAWS` draws of a standard normal move per seat (as many as a match may
    have) and resource type, from a fixed seed: the same draws for every judgement, so that two
    rollouts that end on the same totals are judged alike, and a judgement is reproducible."""
    rng = random.Random(0)
    return [[[rng.gauss(0.0, 1.0) for _ in R.RESOURCES] for _ in range(GAME.max_players)] for _ in range(JUDGE_DRAWS)]


_JUDGE_NOISE = _judge_noise()


@dataclass
class Table:
    """The top cards as masks (0: no card) and the vehicles, from one seat's view."""

    lines: list[int]
    meet: list[int]
    vehicles: list[dict[str, Any]]
    seat: int

    @classmethod
    def of(cls, view: View) -> Table:
        lines, meet = [], []
        for p in view["positions"]:
            top = p["top"]
            lines.append(R.mask(top["lines"]) if top else 0)
            meet.append(R.mask(top["meeting"]) if top else 0)
        vehicles = state_vehicles(view)
        return cls(lines, meet, vehicles, view["seat"])

    def with_card(self, pos: int, lines: int, meet: int) -> Table:
        new_lines, new_meet = list(self.lines), list(self.meet)
        new_lines[pos], new_meet[pos] = lines, meet
        return Table(new_lines, new_meet, self.vehicles, self.seat)

    def stretches(self) -> list[tuple[int, int] | None]:
        """For each line, the positions ``(lo, hi)`` around Earth it crosses unbroken."""
        out: list[tuple[int, int] | None] = []
        for ln in range(R.NLINES):
            bit = 1 << ln
            if not self.lines[R.EARTH] & bit:
                out.append(None)
                continue
            lo = hi = R.EARTH
            while lo > 0 and self.lines[lo - 1] & bit:
                lo -= 1
            while hi + 1 < R.NPOS and self.lines[hi + 1] & bit:
                hi += 1
            out.append((lo, hi))
        return out

    def held_by_others(self) -> set[tuple[int, int]]:
        return {(v["pos"], v["line"]) for v in self.vehicles if v["owner"] != self.seat}


@dataclass
class EsploratoreBot:
    """``sabotage``: how much an opponent's lost yield counts against one's own gain;
    ``reach``: the weight of the best target a further vehicle could still reach;
    ``pace``: turns per card still missing on the way to a target (below 1: the other
    explorers lay cards too); ``gather``: the bonus of a vehicle sharing a meeting point with
    another own vehicle it can be combined with."""

    sabotage: float = 0.1
    reach: float = 1.0
    pace: float = 0.6
    gather: float = 3.0
    draw_faces: int | None = None
    """How many of a pile's unseen cards a draw weighs (all when ``None``; fewer in a search's
    rollouts, :meth:`for_rollouts`)."""
    _worth: list[float] = field(default_factory=lambda: [0.0] * R.NPOS, repr=False)
    """Per position, the weighted yield of one multiplier there (set for each decision)."""

    # -- a search's rollouts (service.bots.search) -------------------------------------------

    stage = staticmethod(round_stage)
    stages_ahead: ClassVar[int] = 1
    """A rollout stops at the start of the next round, not the one after: a round of
    Esploratore is every seat's whole turn, cards, moves and ships, and two of them took a
    rollout past level 3's 0.1 s for four worlds, so that level 3 played level 2's move in
    nine decisions of ten."""

    @staticmethod
    def most_candidates(view: View) -> int | None:
        """The most moves a search around this bot weighs (:mod:`service.bots.search`): with
        two or more rivals, the heuristic's move and one challenger. There level 4's second
        challenger lost it matches to level 3 (7 wins in 49 at four players, where an equal
        opponent wins one in four), as in L'Isola dei Vulcani; with one rival its two
        challengers beat level 3 (bench/README.md)."""
        return 2 if view["players"] > 2 else None

    def for_rollouts(self) -> EsploratoreBot:
        """The bot a search's rollouts play every seat with: this one, weighing
        :data:`ROLLOUT_FACES` unseen cards of a pile before a draw."""
        return replace(self, draw_faces=ROLLOUT_FACES)

    @staticmethod
    def judge(state: State, seat: int) -> float:
        """``seat``'s rank reward expected from ``state``, a stopped rollout's reward: every
        seat's totals carried on by its last round's yield for each round left, then the mean
        rank reward of the engine's outcome (it reads only the totals and the options) over
        :data:`JUDGE_DRAWS` draws of where they may end instead (:data:`JUDGE_SPREAD`); once
        the match is over, the outcome's own. The rank now scored a move that widens a lead,
        or sets up vehicles that yield every round from the next, like one that does not, and
        level 3 was no stronger than level 2 at four players with it (bench/README.md)."""
        if state["phase"] == "over":
            return _rank_reward(state, seat)
        left = R.ROUNDS + 1 - state["round"]
        spread = JUDGE_SPREAD * math.sqrt(left)
        rates = state.get("last_yield") or [[0] * len(R.RESOURCES) for _ in state["totals"]]
        ahead = [
            [t + left * y for t, y in zip(own, rate, strict=True)]
            for own, rate in zip(state["totals"], rates, strict=True)
        ]
        rewards = 0.0
        for noise in _JUDGE_NOISE:  # a row per seat of the most a match may have
            moved = [
                [t + spread * z for t, z in zip(own, row, strict=True)] for own, row in zip(ahead, noise, strict=False)
            ]
            rewards += _rank_reward({**state, "totals": moved}, seat)
        return rewards / len(_JUDGE_NOISE)

    # -- entry point ----------------------------------------------------------------------

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        weights = self.weights(view)
        self._worth = [sum(w * y for w, y in zip(weights, row, strict=True)) for row in R.YIELD]
        if view["options"].get("upkeep"):  # one unit per crew member of each type not yielded
            self._worth = [
                self._worth[p] - sum(weights[i] for i in range(4) if not R.YIELD[p][i]) for p in range(R.NPOS)
            ]
        kinds = {a["type"] for a in legal}
        table = Table.of(view)
        if "play" in kinds or "exchange" in kinds:
            return self.phase_one(view, table, legal)
        if "draw" in kinds:
            return self.draw(view, table, legal, rng)
        if "shift" in kinds or "skip_shift" in kinds:
            return self.best_move(table, legal, "skip_shift")
        if kinds & {"build", "combine", "skip_build"}:
            return self.build(table, legal)
        if "move" in kinds or "end_moves" in kinds:
            return self.best_move(table, legal, "end_moves")
        if kinds & {"accept_offer", "decline_offer"}:
            return self.answer_offer(view, legal)
        return self.upkeep(view, legal)

    # -- what a yield is worth ------------------------------------------------------------

    def weights(self, view: View) -> list[float]:
        """Per resource type, the worth of one unit. The 250 race counts every unit alike;
        the standard game is won by leading types, so a type where the bot is behind or
        barely ahead weighs more than one it leads comfortably."""
        if view["options"].get("race_250"):
            return [1.0] * 4
        totals = view["score_sheet"]["totals"]
        mine = totals[view["seat"]]
        others = [t for s, t in enumerate(totals) if s != view["seat"] and t is not None]
        if mine is None or not others:
            return [1.0] * 4
        out = []
        for i in range(4):
            lead = mine[i] - max(t[i] for t in others)
            out.append(0.5 + 2.0 / (1.0 + max(0, lead) / 15.0))
        return out

    def slot_value(self, table: Table, stretches: list[tuple[int, int] | None], pos: int, line: int) -> float:
        """Weighted yield per multiplier of a vehicle on (pos, line): its planet's worth on a
        meeting point whose line runs unbroken to Earth, else nothing."""
        s = stretches[line]
        if s is None or not (s[0] <= pos <= s[1]) or not table.meet[pos] >> line & 1:
            return 0.0
        return self._worth[pos]

    def reachable(self, table: Table, v: dict[str, Any], held: set[tuple[int, int]]) -> list[tuple[int, int]]:
        """The slots a vehicle can end this turn's move on (its own included)."""
        pos, line = v["pos"], v["line"]
        out = [(pos, ln) for ln in range(R.NLINES) if table.lines[pos] >> ln & 1 and (pos, ln) not in held]
        if v["kind"] == "ship" and table.lines[pos] >> line & 1:
            bit = 1 << line
            for step in (-1, 1):
                q = pos + step
                while 0 <= q < R.NPOS and table.lines[q] & bit:
                    if (q, line) not in held:
                        out.append((q, line))
                    q += step
        return out

    def potential(self, table: Table, view: View) -> tuple[float, float]:
        """(own, opponents') yield over the rest of the match, if the table stayed as it is:
        the own vehicles after this turn's moves and a ship built this turn, plus the best
        target a further vehicle could reach once the missing cards are laid."""
        stretches = table.stretches()
        held = table.held_by_others()
        turns = R.ROUNDS - view["round"] + 1
        own = 0.0
        others = 0.0
        count = 0
        for v in table.vehicles:
            if v["owner"] != table.seat:
                others += v["mult"] * self.slot_value(table, stretches, v["pos"], v["line"])
                continue
            count += 1
            best = max(
                (self.slot_value(table, stretches, p, ln) for p, ln in self.reachable(table, v, held)), default=0.0
            )
            own += v["mult"] * best
        if count < R.MAX_VEHICLES:
            own += self.best_build(table, stretches)[0]
        return own * turns + self.reach * self.prospect(table, turns), others * turns

    def best_build(self, table: Table, stretches: list[tuple[int, int] | None]) -> tuple[float, int | None]:
        """The best slot a ship built on a free Earth line can reach this turn, and that line."""
        taken = {v["line"] for v in table.vehicles if v["pos"] == R.EARTH}
        held = table.held_by_others()
        best: tuple[float, int | None] = (0.0, None)
        for ln in range(R.NLINES):
            if not table.lines[R.EARTH] >> ln & 1 or ln in taken:
                continue
            ship = {"kind": "ship", "pos": R.EARTH, "line": ln}
            value = max(self.slot_value(table, stretches, p, q) for p, q in self.reachable(table, ship, held))
            if best[1] is None or value > best[0]:
                best = (value, ln)
        return best

    def prospect(self, table: Table, turns: int) -> float:
        """The best yield a new vehicle could still collect by the end of the match, over
        every line and target planet: the planet's worth for each turn left once the cards
        its line still lacks are laid (one a turn; the last one in the turn the ship flies).
        A target needs its line on every top card from Earth to it and a meeting point on it."""
        best = 0.0
        lines, meet = table.lines, table.meet
        for ln in range(R.NLINES):
            bit = 1 << ln
            base = 0 if lines[R.EARTH] & bit else 1
            for step in (-1, 1):
                missing = base
                p = R.EARTH + step
                while 0 <= p < R.NPOS:
                    if not lines[p] & bit:
                        missing += 1
                        k = missing
                    else:
                        k = missing + (0 if meet[p] & bit else 1)
                    worth = self._worth[p]
                    left = turns - self.pace * max(0, k - 1)
                    if worth > 0 and left > 0:
                        best = max(best, worth * left)
                    p += step
        return best

    # -- phase 1 --------------------------------------------------------------------------

    def play_gain(self, view: View, table: Table, base: tuple[float, float], card: str, pos: int, flip: bool) -> float:
        """What laying ``card`` (upside down when ``flip``) on ``pos`` adds to ``base``."""
        lines, meet = R.CARDS[card].masks(flip)
        own, others = self.potential(table.with_card(pos, lines, meet), view)
        return own - base[0] - self.sabotage * (others - base[1])

    def phase_one(self, view: View, table: Table, legal: list[Action]) -> Action:
        base = self.potential(table, view)
        best: tuple[float, Action | None] = (0.0, None)
        worth: dict[str, float] = {}
        for a in legal:
            if a["type"] != "play":
                continue
            gain = self.play_gain(view, table, base, a["card"], R.POS_INDEX[a["position"]], a["flip"])
            worth[a["card"]] = max(worth.get(a["card"], -1e9), gain)
            if best[1] is None or gain > best[0]:
                best = (gain, a)
        if best[1] is not None and (best[0] > 0.01 or not any(a["type"] == "exchange" for a in legal)):
            return best[1]
        exchanges = [a for a in legal if a["type"] == "exchange"]
        if exchanges:
            return min(exchanges, key=lambda a: (worth.get(a["card"], -1.0), a["card"]))
        return next(a for a in legal if a["type"] == "skip_play")

    def draw(self, view: View, table: Table, legal: list[Action], rng: random.Random) -> Action:
        """The pile whose unseen cards promise the best play next turn (of each pile,
        ``draw_faces`` of them drawn with ``rng``, when set)."""
        base = self.potential(table, view)
        seen = {c["card"] for c in view["hand"]}
        for p in view["positions"]:
            seen.update(e["card"] for e in p["stack"])
        beginners = bool(view["options"].get("beginners"))
        flips = (False, True) if beginners else (False,)
        best: tuple[float, Action] = (-1e9, legal[-1])
        for a in legal:
            if a["pile"] == "reserve":
                continue
            pos = R.POS_INDEX[a["pile"]]
            faces = [c for c in R.CARDS_BY_POSITION[pos] if c not in seen and c in R.DECK[beginners]]
            if not faces:
                continue
            if self.draw_faces is not None and len(faces) > self.draw_faces:
                faces = rng.sample(faces, self.draw_faces)
            placeable = bool(
                table.lines[pos] or (pos > 0 and table.lines[pos - 1]) or (pos + 1 < R.NPOS and table.lines[pos + 1])
            )
            total = 0.0
            for cid in faces:
                total += max(0.0, max(self.play_gain(view, table, base, cid, pos, f) for f in flips))
            value = total / len(faces) * (1.0 if placeable else UNPLACEABLE)
            if value > best[0]:
                best = (value, a)
        return best[1]

    # -- phase 2 --------------------------------------------------------------------------

    def build(self, table: Table, legal: list[Action]) -> Action:
        builds = [a for a in legal if a["type"] == "build"]
        combines = [a for a in legal if a["type"] == "combine"]
        if builds:
            value, line = self.best_build(table, table.stretches())
            if value > 0 or not combines:
                return next((a for a in builds if a["line"] == line), builds[0])
        if combines:
            kinds = {v["id"]: v["kind"] for v in table.vehicles}
            return max(combines, key=lambda a: (sum(R.CREW[kinds[i]] for i in a["vehicles"]), -a["vehicles"][0]))
        return next(a for a in legal if a["type"] == "skip_build")

    # -- phase 3 (and the phase-1 shift) -------------------------------------------------

    def slot_score(
        self, table: Table, stretches: list[tuple[int, int] | None], v: dict[str, Any], pos: int, line: int
    ) -> float:
        value = v["mult"] * self.slot_value(table, stretches, pos, line)
        if v["kind"] == "factory":
            if value == 0.0 and not self.linked(stretches, pos, line):
                value += 0.5 * self._worth[pos]  # its store fills while cut off
            return value
        if table.meet[pos] >> line & 1 and any(
            o["id"] != v["id"]
            and o["owner"] == table.seat
            and o["kind"] != "factory"
            and o["pos"] == pos
            and o["line"] == line
            and not (o["kind"] == v["kind"] == "station")
            for o in table.vehicles
        ):
            value += self.gather * max(1.0, self._worth[pos] / 4)
        return value

    @staticmethod
    def linked(stretches: list[tuple[int, int] | None], pos: int, line: int) -> bool:
        s = stretches[line]
        return s is not None and s[0] <= pos <= s[1]

    def best_move(self, table: Table, legal: list[Action], stop: str) -> Action:
        """The move (or shift) that raises the yield most; ``stop`` when none does (a forced
        shift, with no ``stop`` listed, takes the best one)."""
        stretches = table.stretches()
        by_id = {v["id"]: v for v in table.vehicles}
        best: tuple[float, Action | None] = (0.0, None)
        for a in legal:
            if a["type"] not in ("move", "shift"):
                continue
            v = by_id[a["vehicle"]]
            pos = R.POS_INDEX[a["position"]] if a["type"] == "move" else v["pos"]
            here = self.slot_score(table, stretches, v, v["pos"], v["line"])
            gain = self.slot_score(table, stretches, v, pos, a["line"]) - here
            if gain > best[0] + 1e-9 or best[1] is None and stop not in (x["type"] for x in legal):
                best = (gain, a)
        return best[1] if best[1] is not None else {"type": stop}

    # -- upkeep variant -------------------------------------------------------------------

    def upkeep(self, view: View, legal: list[Action]) -> Action:
        mine = view["score_sheet"]["totals"][view["seat"]]

        def spare(a: Action) -> int:
            return mine[R.RESOURCES.index(a["give"])]

        offers = [a for a in legal if a["type"] == "offer"]
        if offers:
            return max(offers, key=lambda a: (spare(a), a["amount"], -a["partner"]))
        trades = [a for a in legal if a["type"] == "trade"]
        if trades:
            return max(trades, key=spare)
        return next(a for a in legal if a["type"] == "pay_upkeep")

    def answer_offer(self, view: View, legal: list[Action]) -> Action:
        """Accept a 1:1 barter when what it brings is scarcer for the bot than what it costs."""
        offer = view["offer"]
        mine = view["score_sheet"]["totals"][view["seat"]]
        accept = {"type": "accept_offer"}
        if accept in legal and mine[R.RESOURCES.index(offer["give"])] < mine[R.RESOURCES.index(offer["get"])]:
            return accept
        return {"type": "decline_offer"}


def state_vehicles(view: View) -> list[dict[str, Any]]:
    """The view's vehicles in the engine state's own form (position index, ``mult``): what
    the bot reads its table from, and what the sampler puts back into a state."""
    return [
        {
            "id": v["id"],
            "owner": v["owner"],
            "kind": v["kind"],
            "mult": v["multiplier"],
            "pos": R.POS_INDEX[v["position"]],
            "line": v["line"],
        }
        for v in view["vehicles"]
    ]


def _rank_reward(state: State, seat: int) -> float:
    """``seat``'s :func:`rank_share` in the engine's outcome of ``state``'s totals."""
    outcome = GAME.outcome({**state, "phase": "over"})
    assert outcome is not None
    return rank_share(outcome["ranks"][seat], len(outcome["ranks"]))
