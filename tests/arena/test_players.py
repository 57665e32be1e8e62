"""External bots over the JSON-lines protocol: answers read, every kind of failure bounded."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import pytest

from service.arena.errors import BotFault
from service.arena.players import ExternalPlayer, Observation

ROOT = Path(__file__).resolve().parents[2]
BOTS = Path(__file__).parent / "bots"
FIRST_LEGAL = ["node", str(ROOT / "docs" / "examples" / "arena-first-legal.js")]


def observation(deadline_s: float) -> Observation:
    return Observation(
        match_id="m1",
        game="the-game",
        players=2,
        seat=1,
        version=3,
        state_token="m1.3.x",
        view={"hand": [7, 12]},
        legal_actions=[{"type": "play", "card": 7}, {"type": "end_turn"}],
        to_act=[1],
        clock=None,
        deadline_ms=int((time.time() + deadline_s) * 1000),
    )


def test_the_node_example_answers_the_first_legal_action_every_time() -> None:
    player = ExternalPlayer(FIRST_LEGAL)
    try:
        for _ in range(3):
            player.ask(observation(10))
            assert player.poll(None) == {"type": "play", "card": 7}
    finally:
        player.close()


@pytest.mark.parametrize(
    ("script", "reason", "said"),
    [
        ("silent.sh", "timeout", "no answer within"),
        ("garbage.sh", "bad_output", "e2e4!"),
        ("illegal.sh", None, None),
        ("crash.sh", "crashed", "out of cheese"),
    ],
)
def test_a_failing_program_is_stopped_at_its_deadline(script: str, reason: str | None, said: str | None) -> None:
    player = ExternalPlayer([str(BOTS / script)])
    started = time.monotonic()
    # Only the silent one is meant to meet its deadline; the others answer (or exit) at once,
    # which on a busy machine may take longer than half a second.
    player.ask(observation(0.5 if reason == "timeout" else 2.5))
    if reason is None:  # well-formed: only the referee can tell it is illegal
        assert player.poll(None) == {"type": "take_all_the_gold"}
        player.close()
        return
    with pytest.raises(BotFault) as fault:
        player.poll(None)
    assert time.monotonic() - started < 3
    assert fault.value.reason == reason
    assert said is not None and said in fault.value.detail
    with pytest.raises(BotFault):  # out for the rest of the match, at once
        player.ask(observation(10))
        player.poll(0)


def test_a_thinking_program_is_polled_until_its_deadline() -> None:
    player = ExternalPlayer([str(BOTS / "silent.sh")])
    player.ask(observation(0.6))
    assert player.poll(0.01) is None  # still within its time
    time.sleep(0.7)
    with pytest.raises(BotFault) as fault:
        player.poll(0.01)
    assert fault.value.reason == "timeout"


def test_a_program_that_cannot_start_is_a_crash() -> None:
    player = ExternalPlayer(["/nonexistent/bot"])
    player.ask(observation(1))
    with pytest.raises(BotFault) as fault:
        player.poll(None)
    assert fault.value.reason == "crashed"


STALE = ("wrote a line before it was asked for decision 2", "answered decision 1 when decision 2 was asked")
"""How a stale line is told: it came before the request, or it echoes an earlier decision."""


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["0"], STALE),
        (["0.5"], STALE[1:]),  # the copy comes after the next request, its number gives it away
        (["0", "plain"], STALE[:1]),  # no number: it came before the next request
    ],
    ids=["at once", "after the next request", "at once, without the number"],
)
def test_an_answer_written_twice_is_not_read_as_the_next_decisions_answer(
    args: list[str], said: tuple[str, ...]
) -> None:
    """The second copy is stale: it is reported as bad output, never submitted."""
    player = ExternalPlayer([str(BOTS / "twice.py"), *args])
    try:
        player.ask(observation(10))
        assert player.poll(None) == {"type": "play", "card": 7}
        if args[0] == "0":
            time.sleep(0.2)  # the copy has arrived by now, before the next decision is asked
        player.ask(replace(observation(10), legal_actions=[{"type": "end_turn"}]))
        with pytest.raises(BotFault) as fault:
            player.poll(None)
        assert fault.value.reason == "bad_output"
        assert any(words in fault.value.detail for words in said), fault.value.detail
    finally:
        player.close()


def test_each_request_carries_its_number_and_an_answer_echoing_it_is_taken() -> None:
    player = ExternalPlayer([str(BOTS / "numbers.py")])
    try:
        answers = []
        for _ in range(3):
            player.ask(observation(10))
            answers.append(player.poll(None))
    finally:
        player.close()
    assert answers == [{"type": "numbered", "n": n} for n in (1, 2, 3)]
