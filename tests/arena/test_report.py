"""The results table: a faults column, a title that counts in words, and 80 columns whatever
the scores, bot names and ratings."""

from __future__ import annotations

import pytest
from rich.console import Console

from service.arena import report
from service.arena.runner import MatchRecord


def record(index: int, seats: list[str], scores: list[int], faults: tuple[tuple[int, str], ...] = ()) -> MatchRecord:
    ranks = [sorted(scores, reverse=True).index(score) + 1 for score in scores]
    return MatchRecord(
        index,
        "esploratore",
        len(seats),
        seats,
        match_id=f"m{index}",
        status="finished",
        outcome={"scores": scores, "ranks": ranks, "winners": [ranks.index(1)], "end_reason": "rules"},
        faults=[{"seat": seat, "bot": seats[seat], "reason": reason} for seat, reason in faults],
    )


def drawn(records: list[MatchRecord], bots: list[str], cooperative: bool = False) -> list[str]:
    console = Console(width=80, record=True)
    with console.capture() as capture:
        summaries = report.summarize(records, bots, cooperative, period=2)
        report.print_table(console, summaries, report.title("esploratore", len(records), 2), cooperative)
    return capture.get().splitlines()


def test_the_table_counts_each_bots_faults() -> None:
    records = [
        record(0, ["good", "flaky"], [10, 3], faults=((1, "timeout"),)),
        record(1, ["flaky", "good"], [4, 9], faults=((0, "bad_output"), (0, "timeout"))),
    ]
    lines = drawn(records, ["good", "flaky"])
    header = next(line for line in lines if "faults" in line)
    column = [cell.strip() for cell in header.strip("┃").split("┃")].index("faults")
    rows = [line.strip("│").split("│") for line in lines if line.startswith("│")]
    by_bot = {cells[0].strip(): cells[column].strip() for cells in rows}
    assert by_bot == {"good": "0", "flaky": "3"}


@pytest.mark.parametrize(
    ("names", "scores"),
    [
        (["heuristic", "random"], [94, 57]),
        (["heuristic", "random"], [123456789, -98765432]),
        (["a-bot-with-a-very-long-name=node bots/a-bot-with-a-very-long-name.js", "random"], [250, 1_000_000]),
    ],
)
def test_the_table_stays_within_80_columns_with_its_borders_whole(names: list[str], scores: list[int]) -> None:
    records = [
        record(i, names if i % 2 == 0 else names[::-1], scores if i % 2 == 0 else scores[::-1]) for i in range(4)
    ]
    lines = drawn(records, names)
    table = [line for line in lines if line[:1] in "┏┃┡│└"]
    assert len(table) >= 6
    assert all(len(line) <= 80 for line in lines), "\n".join(lines)
    for line in table:  # every row closes: nothing was cut off at the right
        assert line.rstrip()[-1] in "┓┃┩│┘", line


@pytest.mark.parametrize(("matches", "seats", "said"), [(1, 2, "1 match of 2 seats"), (6, 1, "6 matches of 1 seat")])
def test_the_title_counts_in_words(matches: int, seats: int, said: str) -> None:
    assert report.title("the-game", matches, seats) == f"the-game: {said}"
