"""Searches in worker processes: the same choice as in process, and no waiting past the point
a decision must be made."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import threading
import time

import pytest

from service.bots.registry import make_bot
from service.bots.thinkers import ANSWER_GRACE_S, NoThinkerInTime, Thinkers
from service.engine import Rng
from service.games import get_game


def a_choice(game_id: str, players: int) -> tuple[dict, list[dict]]:
    """The view and legal actions of the first decision of a random match with a real choice."""
    game, rng, chooser = get_game(game_id), Rng(b"thinkers"), random.Random(0)
    state = game.setup(players, game.resolve_options(players, {}), rng)
    while len(legal := game.legal_actions(state, seat := game.to_act(state)[0])) < 5:
        state, _ = game.apply(state, seat, chooser.choice(legal), rng)
    return game.view(state, seat), legal


def test_a_worker_chooses_what_the_bot_chooses_in_process() -> None:
    """At an early decision of The Game level 3's time cap ends its search before a challenger
    has the worlds it needs to overturn the heuristic's move (docs/levels.md) on any machine,
    so the choice depends on the seed alone, not on how busy the machine is."""
    view, legal = a_choice("the-game", 2)
    thinkers = Thinkers(1)
    chosen = thinkers.choose("the-game", "level3", view, legal, "seed", None)
    assert chosen == make_bot("the-game", "level3").choose(view, legal, random.Random("seed"))


def test_a_decision_that_finds_every_worker_busy_until_its_stopping_point_is_told_so() -> None:
    view, legal = a_choice("esploratore", 4)
    thinkers = Thinkers(1)
    thinkers.start()
    busy = threading.Thread(target=thinkers.choose, args=("esploratore", "level5", view, legal, "busy", None))
    busy.start()
    time.sleep(0.2)  # the one worker is searching (up to its 1 s cap)
    started = time.monotonic()
    with pytest.raises(NoThinkerInTime):
        thinkers.choose("esploratore", "level5", view, legal, "late", time.time() + 0.1)
    assert time.monotonic() - started < 0.5
    busy.join()


def test_a_started_worker_has_its_bots_imported_before_the_first_decision() -> None:
    """``start()`` returns once each worker has imported every game's bots (about 0.3 s on a
    quiet machine, seconds on a loaded one, where a house seat on a one-second clock lost its
    match's first decision to them): a decision with no time left to search, which plays the
    level-2 move, then takes milliseconds."""
    view, legal = a_choice("the-game", 2)
    thinkers = Thinkers(1)
    thinkers.start()
    started = time.monotonic()
    thinkers.choose("the-game", "level5", view, legal, "seed", time.time())
    assert time.monotonic() - started < 0.15


def worker_pids() -> list[int]:
    """The search worker processes this process started and has not reaped (earlier tests'
    included)."""
    found = subprocess.run(["pgrep", "-P", str(os.getpid()), "-f", "service.bots.thinkers"], capture_output=True)
    return [int(pid) for pid in found.stdout.split()]


def test_a_worker_that_does_not_answer_in_time_is_killed_and_the_caller_told_so() -> None:
    """A worker starved of the CPU (here stopped outright) would keep its caller past the seat's
    deadline: the caller gives up shortly after the search's stopping point, in time to play
    the level-2 move itself, and the next decision gets a fresh worker."""
    view, legal = a_choice("the-game", 2)
    thinkers, others = Thinkers(1), worker_pids()
    thinkers.start()
    (starved,) = set(worker_pids()) - set(others)
    os.kill(starved, signal.SIGSTOP)
    started = time.monotonic()
    with pytest.raises(NoThinkerInTime):
        thinkers.choose("the-game", "level5", view, legal, "seed", time.time() + 0.2)
    assert time.monotonic() - started < 0.2 + ANSWER_GRACE_S + 0.1
    assert starved not in worker_pids(), "the starved worker was killed"
    chosen = thinkers.choose("the-game", "level3", view, legal, "seed", None)
    assert chosen == make_bot("the-game", "level3").choose(view, legal, random.Random("seed"))
