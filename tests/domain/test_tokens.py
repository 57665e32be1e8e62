"""State tokens, seat tokens, and which token versions may act."""

from __future__ import annotations

from service.match import Match
from service.tokens import SeatClaim, SeatTokens, StateTokens, hash_seat_token, seat_of


def test_state_tokens_verify_only_with_the_same_secret() -> None:
    tokens = StateTokens(b"secret")
    token = tokens.mint("match-id-0001", 7)
    parsed = tokens.verify(token)
    assert (parsed.match_id, parsed.version) == ("match-id-0001", 7)
    assert StateTokens(b"other").verify(token) is None
    assert tokens.verify(token.replace(".7.", ".8.")) is None
    for broken in ["", "a.b", "match-id-0001.x.mac", "bad id!.1.mac", token + "x", "match-id-0001\n.7.mac"]:
        assert tokens.verify(broken) is None


def test_state_token_versions_are_canonical_ascii_digits() -> None:
    """Only the spelling the service mints verifies: no '²', no leading zeros, no sign, no
    digits from other scripts, nothing Python's int() would also take."""
    tokens = StateTokens(b"secret")
    mac = tokens.mint("match-id-0001", 2).split(".")[2]
    assert tokens.verify(f"match-id-0001.2.{mac}") is not None
    for version in ["\u00b2", "02", "+2", " 2", "2 ", "\u0662", "2\n", "2_0", "9" * 5000]:
        assert tokens.verify(f"match-id-0001.{version}.{mac}") is None
    assert tokens.verify("match-id-0001.0.\u00e9\u00e9") is None, "a non-ASCII MAC is refused, not a TypeError"


def test_seat_tokens_name_their_match_and_seat_under_a_mac() -> None:
    tokens = SeatTokens(b"secret")
    token = tokens.mint("match-id-0001", 3)
    assert tokens.claim(token) == SeatClaim("match-id-0001", 3)
    assert tokens.mint("match-id-0001", 3) != token, "each token has its own random nonce"
    assert SeatTokens(b"other").claim(token) is None
    match_id, seat, nonce, tag = token.split(".")
    for made_up in [
        f"{match_id}.4.{nonce}.{tag}",
        f"{match_id}.{seat}.{nonce}x.{tag}",
        f"{match_id}.03.{nonce}.{tag}",
        "x" * 43,
        "",
        f"{match_id}.{seat}.{nonce}",
        token + ".x",
        f"{match_id}.{seat}.{nonce}.\u00e9",
    ]:
        assert tokens.claim(made_up) is None, made_up
    assert tokens.claim(token) == SeatClaim("match-id-0001", 3), "a second claim checks the tag again"


def test_no_bearer_secret_is_kept_between_calls() -> None:
    """Seat tokens are bearer secrets: checking one leaves no copy of it behind, in the
    claims checker or in the hashing."""
    tokens = SeatTokens(b"secret")
    issued = tokens.mint("match-id-0001", 2)
    assert tokens.claim(issued) == SeatClaim("match-id-0001", 2)
    hash_seat_token(issued)
    assert all(issued not in repr(value) for value in vars(tokens).values())
    assert not hasattr(hash_seat_token, "cache_info"), "hash_seat_token must not memoise tokens"


def test_seat_tokens_are_stored_as_hashes() -> None:
    issued = [SeatTokens(b"secret").mint("match-id-0001", seat) for seat in range(3)]
    hashes = [hash_seat_token(t) for t in issued]
    assert all(t not in h for t, h in zip(issued, hashes, strict=True))
    assert [seat_of(t, hashes) for t in issued] == [0, 1, 2]
    assert seat_of("guess", hashes) is None


def _match() -> Match:
    return Match("m" * 10, "g", 3, {}, "00" * 32, False, [], 0, {}, version=0, pending_since={"0": 0, "1": 0, "2": 0})


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


def test_tokens_are_hmac_sha256_as_documented_so_issued_ones_stay_valid() -> None:
    """The MACs are computed from the key's hashed blocks; they are exactly the documented
    HMACs, for secrets of any length, so tokens issued by earlier releases keep verifying."""
    import base64
    import hashlib
    import hmac

    from service.tokens import SeatTokens, StateTokens

    def b64(data: bytes) -> str:
        return base64.urlsafe_b64encode(data).rstrip(b"=").decode()

    for secret in [b"secret", b"", b"k" * 64, b"k" * 65, bytes(range(256))]:
        minted = StateTokens(secret).mint("abcdefgh", 7)
        assert minted == f"abcdefgh.7.{b64(hmac.digest(secret, b'abcdefgh.7', 'sha256'))}"
    key = hmac.new(b"secret", b"referee seat tokens v1", hashlib.sha256).digest()
    body = "abcdefgh.1." + "n" * 43
    issued = f"{body}.{b64(hmac.digest(key, body.encode(), 'sha256')[:16])}"
    claim = SeatTokens(b"secret").claim(issued)
    assert claim is not None and (claim.match_id, claim.seat) == ("abcdefgh", 1)
