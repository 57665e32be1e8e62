"""Matches kept as the objects a process committed (:mod:`service.cache.decoded`): taken once,
only for the very record they were committed as, and always what decoding that record gives."""

from __future__ import annotations

import random
from dataclasses import fields
from typing import Any
from unittest import mock

import pytest

from service.cache import MatchCache
from service.cache.decoded import DecodedMatches
from service.games import games
from service.match import Match
from service.referee import Referee
from service.store import MemoryStore
from service.tokens import SeatTokens, StateTokens


def test_an_object_is_taken_once_and_only_for_its_version_and_identity() -> None:
    kept: DecodedMatches[str] = DecodedMatches(4)
    kept.keep("m", 3, b"id-3", "match at 3")
    assert kept.take("m", 3, b"id-3") == "match at 3"
    assert kept.take("m", 3, b"id-3") is None, "taking removes it: a move changes it in place"
    kept.keep("m", 3, b"id-3", "match at 3")
    assert kept.take("m", 3, b"another identity") is None, "the same version of a record the store lost"
    assert kept.take("m", 3, b"id-3") is None, "an object asked for as another record is dropped"
    kept.keep("m", 3, b"id-3", "match at 3")
    assert kept.take("m", 4, b"id-3") is None


def test_a_record_without_identity_is_never_kept_and_capacity_bounds_the_rest() -> None:
    kept: DecodedMatches[str] = DecodedMatches(2)
    kept.keep("old", 1, b"", "written before identities")
    assert kept.take("old", 1, b"") is None
    for name in ("a", "b", "c"):
        kept.keep(name, 1, b"id", name)
    assert len(kept) == 2 and kept.take("a", 1, b"id") is None, "the least recently kept goes first"
    off: DecodedMatches[str] = DecodedMatches(0)
    off.keep("a", 1, b"id", "a")
    assert off.take("a", 1, b"id") is None


def _referee(store: MemoryStore) -> Referee:
    secret = b"decoded matches"
    return Referee(store, StateTokens(secret), SeatTokens(secret), 600, MatchCache(16), decoded=DecodedMatches(16))


def _same_match(kept: Match, decoded: Match) -> None:
    """Equal in every field a move reads, the engine state included (a tuple where the record
    has a list, or an integer key where it has a string, would differ here)."""
    for field in fields(Match):
        assert getattr(kept, field.name) == getattr(decoded, field.name), field.name
    for extra in ("base_json", "base_record", "identity"):  # beside the record, not in it
        assert getattr(kept, extra) == getattr(decoded, extra), extra


CASES = [
    (game_id, players)
    for game_id, game in sorted(games().items())
    for players in sorted({game.min_players, game.max_players})
]


@pytest.mark.parametrize(("game_id", "players"), CASES)
def test_the_kept_object_is_what_decoding_the_stored_record_gives_after_every_move(game_id: str, players: int) -> None:
    """Random legal play of the whole match through the referee, each answer written before
    the match is given back: after every move the kept object equals the decoded record, and
    the next move takes it rather than decoding."""
    store = MemoryStore()
    referee = _referee(store)
    rng = random.Random(f"{game_id}-{players}")
    created = referee.create_match(game_id, players, {}, "cd" * 32)
    match_id, tokens = created["match_id"], [seat["token"] for seat in created["seats"]]
    decodes = 0
    real_decode = Match.decode

    def counted(*args: Any, **kwargs: Any) -> Match:
        nonlocal decodes
        decodes += 1
        return real_decode(*args, **kwargs)

    moves = 0
    with mock.patch.object(Match, "decode", counted):
        while moves < 400:
            state = referee.legal_actions(match_id, tokens[0])  # any seat's view says who acts
            to_act = state["to_act"]
            if not to_act:
                break
            seat = rng.choice(to_act)
            legal = referee.legal_actions(match_id, tokens[seat])
            before = decodes
            result = referee.act(match_id, tokens[seat], legal["state_token"], rng.choice(legal["actions"]))
            assert decodes == before or moves == 0, "a move after a kept one decodes nothing"
            referee.keep(result)
            moves += 1
            loaded = store.load(match_id)
            kept = referee.decoded._entries.get(match_id)
            if result.body["status"] != "finished":
                assert kept is not None and kept[0] == loaded.version
                _same_match(kept[2], real_decode(loaded.version, loaded.record, loaded.base, loaded.identity))
            else:
                assert kept is None, "a finished match is not kept"
                break
            decodes = 0  # the reads of legal-actions above decode; only the moves are counted
    assert moves > 0


def test_a_move_another_process_made_is_decoded_not_taken_from_the_stale_object() -> None:
    """Two processes on one store: each keeps what it committed, and the one that did not make
    the last move decodes the store's record instead of its own older object."""
    store = MemoryStore()
    first, second = _referee(store), _referee(store)
    created = first.create_match("the-game", 1, {}, "ef" * 32)
    match_id, bearer = created["match_id"], created["seats"][0]["token"]
    for referee in (first, second, first):
        legal = referee.legal_actions(match_id, bearer)
        result = referee.act(match_id, bearer, legal["state_token"], legal["actions"][0])
        referee.keep(result)
    stored = store.load(match_id)
    assert stored.version == 3
    _same_match(first.decoded._entries[match_id][2], Match.decode(3, stored.record, stored.base, stored.identity))
    assert second.decoded._entries[match_id][0] == 2, "the second process still holds version 2 ..."
    legal = second.legal_actions(match_id, bearer)
    assert second.act(match_id, bearer, legal["state_token"], legal["actions"][0]).body["version"] == 4
    assert match_id not in second.decoded._entries or second.decoded._entries[match_id][0] != 2
