"""The tournament's results: one summary per bot, the table printed at the end, the JSON lines.

Per bot: the matches it played (a match counts once even when the bot held several seats),
the matches it won (one of its seats among the winners), its mean score and mean rank over the
seats it held, and its Glicko-2 rating with a 95% interval (:mod:`service.arena.ratings`),
rated one rotation cycle at a time in match order, so the same JSON lines always give the same
table. Matches that ended without an outcome (aborted, or given up on an error) are left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean

import orjson
from rich.console import Console
from rich.table import Table

from service.arena import ratings
from service.arena.runner import MatchRecord

COOPERATIVE_NOTE = (
    "Cooperative game: every seat wins or loses with the team, so no bot beats a team-mate and "
    "there is nothing to rate; the table shows how often the teams a bot played in won, and their mean score."
)


@dataclass
class BotSummary:
    """One bot's results over a tournament."""

    name: str
    matches: int = 0
    wins: int = 0
    scores: list[int] = field(default_factory=list)
    ranks: list[int] = field(default_factory=list)
    faults: int = 0
    """Decisions its bot failed (timeouts, bad output, crashes, illegal actions), in every
    match played, rated or not."""
    rating: ratings.Rating | None = None

    @property
    def mean_score(self) -> float | None:
        return fmean(self.scores) if self.scores else None

    @property
    def mean_rank(self) -> float | None:
        return fmean(self.ranks) if self.ranks else None


def rated(records: Iterable[MatchRecord]) -> list[MatchRecord]:
    """The matches that count: those with an outcome, in match order."""
    return sorted((r for r in records if r.outcome is not None), key=lambda r: r.index)


def summarize(records: Sequence[MatchRecord], bots: Sequence[str], cooperative: bool, period: int) -> list[BotSummary]:
    """Every bot's summary; ratings (not for a cooperative game) over periods of ``period``
    matches by match index."""
    summaries = {name: BotSummary(name) for name in bots}
    for record in records:
        for fault in record.faults:
            summaries[fault["bot"]].faults += 1
    counted = rated(records)
    for record in counted:
        outcome = record.outcome
        assert outcome is not None
        for name in set(record.seats):
            seats = [seat for seat, bot in enumerate(record.seats) if bot == name]
            summary = summaries[name]
            summary.matches += 1
            summary.wins += any(seat in outcome["winners"] for seat in seats)
            summary.scores += [outcome["scores"][seat] for seat in seats]
            summary.ranks += [outcome["ranks"][seat] for seat in seats]
    if not cooperative:
        table = {name: ratings.Rating() for name in bots}
        for start in range(0, len(counted), max(1, period)):
            games = [
                game
                for record in counted[start : start + period]
                for game in ratings.pairwise_games(record.seats, record.outcome["ranks"])  # type: ignore[index]  # rated(): all have one
            ]
            table = ratings.rate_period(table, games)
        for name, summary in summaries.items():
            summary.rating = table[name]
    return list(summaries.values())


def _number(value: float | None, digits: int) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def _score(value: float | None) -> str:
    """A mean score: one decimal, none from 1,000 on (a wide score must not widen the table)."""
    return _number(value, 1 if value is None or abs(value) < 1000 else 0)


def title(game: str, matches: int, seats: int) -> str:
    """``halunken-und-spelunken: 1 match of 3 seats``."""
    return f"{game}: {matches} {'match' if matches == 1 else 'matches'} of {seats} {'seat' if seats == 1 else 'seats'}"


def table(summaries: Sequence[BotSummary], title: str, cooperative: bool) -> Table:
    """The results table, best rating (or win rate) first. It fits 80 columns: only the bot's
    name may wrap, and ratings show their 95% interval as ± 1.96·RD."""
    caption = "score, rank: means over the seats a bot held (rank 1 is best); faults: decisions its bot failed"
    caption += f"\n{COOPERATIVE_NOTE}" if cooperative else "; rating: Glicko-2 ± its 95% interval (1.96·RD)"
    grid = Table(title=title, caption=caption, caption_justify="left")
    grid.add_column("bot", overflow="fold", min_width=6)
    headings = ["matches", "wins", "win %", "score", "rank", "faults"] + ([] if cooperative else ["rating"])
    for heading in headings:
        grid.add_column(heading, justify="right", no_wrap=True)

    def order(summary: BotSummary) -> float:
        if summary.rating is not None:
            return -summary.rating.rating
        return -(summary.wins / summary.matches) if summary.matches else 0.0

    for summary in sorted(summaries, key=order):
        win_rate = 100 * summary.wins / summary.matches if summary.matches else None
        row = [
            summary.name,
            str(summary.matches),
            str(summary.wins),
            _number(win_rate, 1),
            _score(summary.mean_score),
            _number(summary.mean_rank, 2),
            str(summary.faults),
        ]
        if summary.rating is not None:
            row.append(f"{summary.rating.rating:.0f} ± {1.96 * summary.rating.rd:.0f}")
        grid.add_row(*row)
    return grid


def print_table(console: Console, summaries: Sequence[BotSummary], title: str, cooperative: bool) -> None:
    console.print(table(summaries, title, cooperative))


def write_jsonl(records: Iterable[MatchRecord], path: Path) -> None:
    """One JSON object per match, in match order."""
    with path.open("wb") as out:
        for record in sorted(records, key=lambda r: r.index):
            out.write(orjson.dumps(record.to_json()) + b"\n")
