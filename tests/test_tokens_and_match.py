"""State tokens, seat tokens, and which token versions may act."""

from __future__ import annotations

from service.match import Match
from service.tokens import StateTokens, hash_seat_token, new_seat_token, seat_of


def test_state_tokens_verify_only_with_the_same_secret() -> None:
    tokens = StateTokens(b"secret")
    token = tokens.mint("match-id-0001", 7)
    parsed = tokens.verify(token)
    assert (parsed.match_id, parsed.version) == ("match-id-0001", 7)
    assert StateTokens(b"other").verify(token) is None
    assert tokens.verify(token.replace(".7.", ".8.")) is None
    for broken in ["", "a.b", "match-id-0001.x.mac", "bad id!.1.mac", token + "x"]:
        assert tokens.verify(broken) is None


def test_seat_tokens_are_stored_as_hashes() -> None:
    issued = [new_seat_token() for _ in range(3)]
    hashes = [hash_seat_token(t) for t in issued]
    assert all(t not in h for t, h in zip(issued, hashes, strict=True))
    assert [seat_of(t, hashes) for t in issued] == [0, 1, 2]
    assert seat_of("guess", hashes) is None


def _match() -> Match:
    return Match("m" * 10, "g", 3, {}, "00" * 32, False, [], 0, {}, version=0,
                 pending_since={"0": 0, "1": 0, "2": 0})


def test_simultaneous_decisions_keep_other_seats_tokens_valid() -> None:
    match = _match()
    match.advance(actor=0, before=[0, 1, 2], after=[1, 2])
    assert match.version == 1
    assert match.accepts_token_version(0, 1, [1, 2]), "seat 1 still owes the decision opened at 0"
    assert not match.accepts_token_version(0, 0, [1, 2]), "seat 0 has acted"
    match.advance(actor=1, before=[1, 2], after=[2])
    assert match.accepts_token_version(0, 2, [2])
    match.advance(actor=2, before=[2], after=[0, 1, 2])
    assert not match.accepts_token_version(2, 0, [0, 1, 2]), "a new decision opened at 3"
    assert match.accepts_token_version(3, 0, [0, 1, 2])


def test_a_seat_acting_repeatedly_needs_the_latest_token() -> None:
    match = _match()
    match.pending_since = {"0": 0}
    match.advance(actor=0, before=[0], after=[0])
    assert not match.accepts_token_version(0, 0, [0])
    assert match.accepts_token_version(1, 0, [0])
    assert not match.accepts_token_version(5, 0, [0]), "a version from the future"
