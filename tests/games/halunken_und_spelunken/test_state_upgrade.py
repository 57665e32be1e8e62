"""States stored with the first, terse keys (``pos``, ``bj``, ``bj_deck``…) read with today's.

The fixture holds matches as the referee stored them before the rename (see its ``about``);
tests/api/test_old_stored_matches.py plays them on over HTTP and verifies their replays.
"""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from service.engine import Rng
from service.games.halunken_und_spelunken import GAME
from service.games.halunken_und_spelunken.state import RENAMED_KEYS
from tests.support.frozen import FrozenMatch, frozen_matches, stored_and_replayed

FROZEN = frozen_matches(Path(__file__).with_name("matches_stored_with_old_keys.json"))


@pytest.mark.parametrize("frozen", FROZEN, ids=[m.status for m in FROZEN])
def test_a_stored_state_loads_as_todays_engine_computes_it(frozen: FrozenMatch) -> None:
    raw, loaded, replayed = stored_and_replayed(frozen)
    assert set(RENAMED_KEYS) <= set(raw), "the fixture holds the first keys"
    assert not set(RENAMED_KEYS) & set(loaded)
    # the same JSON, byte for byte: same keys, same values, same key order
    assert orjson.dumps(loaded) == orjson.dumps(replayed)


def test_todays_states_pass_through_unchanged() -> None:
    state = GAME.setup(3, GAME.resolve_options(3, {}), Rng(b"upgrade"))
    assert GAME.upgrade_state(state) is state
