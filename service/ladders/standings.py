"""A ladder's standings: each member's rating, counts and recent faults, the matches already
rated, and the latest results (``standings/<id>``).

Competitive games are rated with openskill's Plackett–Luce model by the ranks of the outcome
(μ, σ, and the conservative μ − 3σ that orders the table); a member is *provisional* until it
has played the ladder's ``provisional_games``. The Game is cooperative: every seat shares one
result, so a rating by rank says nothing; its members are ranked by their mean score with a
95% confidence interval instead.

A match is rated once: its id joins ``rated`` in the same compare-and-set that applies it, so
a retry, a second node, or the pairing loop's sweep of matches whose end was never heard
(its node died) finds it done.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any

import orjson
from openskill.models import PlackettLuce

MODEL = PlackettLuce()
"""The rating model: μ 25, σ 25/3 at the start, as openskill's defaults."""

RATED_KEPT = 20_000
"""Match ids remembered as rated: far more than can finish while one is being retried."""

RESULTS_KEPT = 500
"""Finished matches listed per ladder, newest first."""

HISTORY_KEPT = 60
"""Rating points kept per member for its chart."""

Z_95 = 1.96


@dataclass
class Row:
    """One member's standing."""

    name: str
    mu: float = MODEL.mu
    sigma: float = MODEL.sigma
    games: int = 0
    wins: int = 0
    faults: dict[str, int] = field(default_factory=dict)
    recent: list[str] = field(default_factory=list)
    """The fault kind of each of its latest matches (``""``: none), newest last."""
    last_match: str | None = None
    last_ms: int = 0
    score_sum: float = 0.0
    score_squares: float = 0.0
    history: list[list[float]] = field(default_factory=list)
    """``[epoch ms, μ − 3σ]`` (or the mean score, cooperatively) after each match."""

    @property
    def conservative(self) -> float:
        return self.mu - 3 * self.sigma

    def mean_score(self) -> tuple[float, float]:
        """The mean score and the half-width of its 95% interval (0 with fewer than 2 games)."""
        if self.games == 0:
            return 0.0, 0.0
        mean = self.score_sum / self.games
        if self.games < 2:
            return mean, 0.0
        variance = max(0.0, (self.score_squares - self.games * mean * mean) / (self.games - 1))
        return mean, Z_95 * math.sqrt(variance / self.games)


@dataclass
class Standings:
    rows: dict[str, Row] = field(default_factory=dict)
    rated: list[str] = field(default_factory=list)
    results: list[dict[str, Any]] = field(default_factory=list)

    def encode(self) -> bytes:
        return orjson.dumps(asdict(self))

    @classmethod
    def decode(cls, body: bytes | None) -> Standings:
        if body is None:
            return cls()
        data = orjson.loads(body)
        return cls({k: Row(**r) for k, r in data["rows"].items()}, data["rated"], data["results"])

    def row(self, key: str, name: str) -> Row:
        return self.rows.setdefault(key, Row(name))

    def apply(
        self,
        members: list[str],
        names: dict[str, str],
        outcome: dict[str, Any],
        faults: dict[int, str],
        cooperative: bool,
        result: dict[str, Any],
        now_ms: int,
    ) -> None:
        """Rate one finished match: ``members[seat]`` played ``seat``; ``faults`` by seat.
        A member seated twice (the house filling several seats) is rated on its first seat."""
        seats = [s for s, key in enumerate(members) if key not in members[:s]]
        rows = [self.row(members[s], names[members[s]]) for s in seats]
        if not cooperative:
            teams = [[MODEL.rating(mu=r.mu, sigma=r.sigma)] for r in rows]
            rated = MODEL.rate(teams, ranks=[float(outcome["ranks"][s]) for s in seats])
            for row, (after,) in zip(rows, rated, strict=True):
                row.mu, row.sigma = after.mu, after.sigma
        for seat, row in zip(seats, rows, strict=True):
            score = float(outcome["scores"][seat])
            row.games += 1
            row.wins += seat in outcome["winners"]
            row.score_sum += score
            row.score_squares += score * score
            fault = faults.get(seat, "")
            if fault:
                row.faults[fault] = row.faults.get(fault, 0) + 1
            row.recent = [*row.recent, fault][-50:]
            row.last_match, row.last_ms = result["match_id"], now_ms
            point = row.mean_score()[0] if cooperative else row.conservative
            row.history = [*row.history, [now_ms, round(point, 3)]][-HISTORY_KEPT:]
        self.rated = [*self.rated, result["match_id"]][-RATED_KEPT:]
        self.results = [result, *self.results][:RESULTS_KEPT]
