"""Replays of finished matches: the signed document, and its offline verification.

A replay is everything needed to re-adjudicate a finished match — the game, the engine that
ruled it, options, players, the revealed seed, every action unredacted with the events it
caused, and the outcome — in one JSON document, signed with the server's Ed25519 key so that a
third party can trust a copy without asking the server. ``docs/replay.md`` specifies the
format and the recipe precisely enough to write a verifier in another language.

What is signed is the *canonical JSON* of the document without its ``signature`` member:
keys sorted, no whitespace, UTF-8, strings escaped as RFC 8785 does, no floats (the games
use none; :func:`canonical_json` refuses them rather than guess a number format), and no
integer beyond ±(2**53 - 1).

A replay's bytes are read with :func:`load`, which refuses JSON that readers could parse into
different values (a duplicate member, a lone surrogate, a float: :mod:`.strict_json`), so what
the signature covers is what every reader sees. :func:`verify` then checks, in order: that the
value is one canonical JSON can hold, the shape, the signature, the seed commitment, then
replays every action through the engine from the seed and compares each version, event list
and the outcome *as JSON* (``true`` is not ``1``), and each entry's kind against what the
header allows, stopping at the first difference with a :class:`ReplayRejected` naming it.

No Flask and no Redis here: the API serves :func:`build_document` through a
:class:`ReplaySigner`, the ``referee verify`` command calls :func:`verify`.
"""

from __future__ import annotations

import base64
import hashlib
import importlib.metadata
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any

import orjson
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.ed25519 import (
    Ed25519PrivateKey,
    Ed25519PublicKey,
)
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from service.clock import ON_TIMEOUT, TimeControl
from service.engine import EngineError, Game, Rng
from service.engine.seeds import seeds_dir
from service.games import get_game
from service.match import (
    ENDING_EVENTS,
    ENDING_KINDS,
    KINDS,
    Match,
    auto_action,
    ended_outcome,
    seed_commitment,
)
from service.replay import strict_json

FORMAT = "game-referee/replay"
FORMAT_VERSION = 2
"""2 added the entry ``kind`` (house, auto, timeout, resign), ``clock_ms``, and the header's
``time_control`` and ``house``; version 1 documents (every entry a seat's own move) still verify."""
READABLE_VERSIONS = (1, FORMAT_VERSION)
PACKAGE = "game-referee"
SIGNATURE_ALGORITHM = "Ed25519"

#: The fields of a log entry that a replay carries; a store may keep more (request
#: fingerprints, timings) that are not part of the adjudication.
ENTRY_FIELDS = ("version", "seat", "kind", "action", "events", "at", "clock_ms")

_KEY_DERIVATION_INFO = b"game-referee replay signing key v1"


# -- canonical JSON ----------------------------------------------------------------------------


def canonical_json(value: Any) -> bytes:
    """The bytes that are signed: sorted keys, no whitespace, UTF-8, RFC 8785 escapes.

    For documents without floats (and with keys in the Basic Multilingual Plane) this is
    exactly RFC 8785 (JCS) and exactly Python's
    ``json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)``.

    :raises TypeError: when ``value`` holds a float, whose text form languages disagree on,
        an integer beyond ±(2**53 - 1), which JSON parsers that read doubles would change, an
        object key beyond U+FFFF, which RFC 8785 sorts by UTF-16 and this function would not,
        a lone surrogate, or anything that is not JSON.
    """
    _check_values(value)
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS)


def _check_values(value: Any) -> None:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, float):
            raise TypeError("a replay must not contain floats: their canonical form is ambiguous")
        if isinstance(item, int) and not -strict_json.SAFE_INTEGER <= item <= strict_json.SAFE_INTEGER:
            raise TypeError(f"a replay's integers stay within ±(2**53 - 1), not {item}")
        if isinstance(item, dict):
            for key in item:
                if isinstance(key, str) and not key.isascii() and any(ord(c) > 0xFFFF for c in key):
                    raise TypeError(f"object key {key!r} holds a character beyond U+FFFF")
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def same_json(left: Any, right: Any) -> bool:
    """Whether two values are the same JSON: unlike ``==``, ``true`` is not ``1``, nor ``0.0``
    (which a replay cannot hold) ``0``.

    :raises TypeError: as :func:`canonical_json`.
    """
    return canonical_json(left) == canonical_json(right)


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    if not isinstance(text, str) or not text.isascii():
        raise ValueError("not base64url text")
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


# -- keys --------------------------------------------------------------------------------------


def key_id(public_key: Ed25519PublicKey) -> str:
    """The key's RFC 7638 JWK thumbprint (SHA-256, base64url): stable, computable anywhere."""
    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    members = canonical_json({"crv": "Ed25519", "kty": "OKP", "x": _b64(raw)})
    return _b64(hashlib.sha256(members).digest())


def public_jwk(public_key: Ed25519PublicKey) -> dict[str, str]:
    """The public key as an RFC 8037 JWK, as ``GET /v1/keys`` publishes it."""
    raw = public_key.public_bytes(Encoding.Raw, PublicFormat.Raw)
    return {
        "kty": "OKP",
        "crv": "Ed25519",
        "x": _b64(raw),
        "kid": key_id(public_key),
        "alg": "EdDSA",
        "use": "sig",
    }


class ReplaySigner:
    """The server's replay signing key.

    Every node must hold the same key (like the state-token secret), so a replay signed by any
    node verifies against the one published key.
    """

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._private_key = private_key
        self.public_key = private_key.public_key()
        self.key_id = key_id(self.public_key)

    @classmethod
    def from_seed(cls, seed: bytes) -> ReplaySigner:
        """The key whose 32-byte RFC 8032 private seed is ``seed``."""
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def configured(cls, replay_key_hex: str | None, secret: bytes) -> ReplaySigner:
        """The key ``REFEREE_REPLAY_KEY`` names (64 hex digits: the private seed), else one
        derived from the state-token secret with HKDF-SHA256 (see docs/replay.md).

        :raises ValueError: when ``replay_key_hex`` is not 64 hex digits.
        """
        if replay_key_hex:
            try:
                seed = bytes.fromhex(replay_key_hex)
            except ValueError:
                seed = b""
            if len(seed) != 32:
                raise ValueError("REFEREE_REPLAY_KEY must be 64 hex digits (a 32-byte Ed25519 private seed).")
            return cls.from_seed(seed)
        derived = HKDF(algorithm=hashes.SHA256(), length=32, salt=None, info=_KEY_DERIVATION_INFO).derive(secret)
        return cls.from_seed(derived)

    def key_set(self) -> dict[str, list[dict[str, str]]]:
        """The published JWK Set."""
        return {"keys": [public_jwk(self.public_key)]}

    def sign(self, document: Mapping[str, Any]) -> dict[str, Any]:
        """``document`` with its ``signature`` member (replacing any it had)."""
        unsigned = {k: v for k, v in document.items() if k != "signature"}
        value = self._private_key.sign(canonical_json(unsigned))
        return unsigned | {"signature": {"algorithm": SIGNATURE_ALGORITHM, "key_id": self.key_id, "value": _b64(value)}}


class TrustedKeys:
    """The public keys a verifier accepts signatures from, by key id."""

    def __init__(self, keys: Iterable[Ed25519PublicKey] = ()) -> None:
        self.by_id = {key_id(k): k for k in keys}

    @classmethod
    def parse(cls, text: str) -> TrustedKeys:
        """Keys from a JWK Set, one JWK, or one raw public key in base64url (the JWK's ``x``).

        :raises ValueError: when ``text`` is none of these, or holds no Ed25519 key.
        """
        text = text.strip()
        if text.startswith("{"):
            try:
                data = orjson.loads(text)
            except orjson.JSONDecodeError as exc:
                raise ValueError(f"not JSON: {exc}") from None
            jwks = data.get("keys", [data]) if isinstance(data, dict) else None
            if not isinstance(jwks, list):
                raise ValueError("expected a JWK or a JWK Set")
            raws = [
                _unb64(j.get("x", ""))
                for j in jwks
                if isinstance(j, dict) and j.get("kty") == "OKP" and j.get("crv") == "Ed25519"
            ]
        else:
            raws = [_unb64(text)]
        if not raws or any(len(raw) != 32 for raw in raws):
            raise ValueError("no Ed25519 public key (32 bytes) found")
        return cls(Ed25519PublicKey.from_public_bytes(raw) for raw in raws)

    def merge(self, other: TrustedKeys) -> TrustedKeys:
        merged = TrustedKeys()
        merged.by_id = self.by_id | other.by_id
        return merged


# -- the document ------------------------------------------------------------------------------


@cache
def engine_info(game_id: str) -> dict[str, str]:
    """What ruled the match: the package and its version, and the digest of the game's data.

    ``data_sha256`` is what ``sha256sum *.json | sha256sum`` prints in ``seeds/<game>/``: the
    rules read their decks and boards from there, and a deployment may point elsewhere.
    """
    try:
        version = importlib.metadata.version(PACKAGE)
    except importlib.metadata.PackageNotFoundError:
        version = "unknown"
    folder = seeds_dir() / game_id
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".json")), key=lambda f: f.name)
    listing = "".join(f"{hashlib.sha256(f.read_bytes()).hexdigest()}  {f.name}\n" for f in files)
    return {"name": PACKAGE, "version": version, "data_sha256": hashlib.sha256(listing.encode()).hexdigest()}


def build_document(
    match: Match, game: Game, outcome: Mapping[str, Any], log_entries: Iterable[Mapping[str, Any]]
) -> dict[str, Any]:
    """The unsigned replay of a finished ``match`` (its ``outcome``, which a timeout or a
    resignation may have decided rather than the rules) from its action log, oldest first."""
    time_control = None if match.clock is None else TimeControl.from_record(match.clock).in_ms()
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "match_id": match.match_id,
        "game": match.game_id,
        "engine": dict(engine_info(match.game_id)),
        "players": match.players,
        "options": match.options,
        "seed": match.seed,
        "seed_sha256": seed_commitment(match.seed),
        "seed_supplied": match.seed_supplied,
        "created_at": match.created_at,
        "finished_at": match.updated_at,
        "version": match.version,
        "time_control": time_control,
        "house": match.house,
        "actions": [
            {"kind": "move"} | {name: entry[name] for name in ENTRY_FIELDS if name in entry} for entry in log_entries
        ],
        "outcome": dict(outcome),
    }


# -- verification ------------------------------------------------------------------------------


class ReplayRejected(Exception):
    """The replay does not verify; ``code`` says which check failed first.

    Codes: ``ambiguous_json``, ``malformed``, ``unsigned``, ``unknown_key``, ``bad_signature``,
    ``seed_commitment``, ``unknown_game``, ``options``, ``version_sequence``,
    ``kind_not_allowed``, ``illegal_action``, ``auto_differs``, ``events_differ``,
    ``after_end``, ``not_finished``, ``outcome_differs``.
    ``version`` is the state version at which the difference shows, when there is one.
    """

    def __init__(self, code: str, detail: str, version: int | None = None) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.version = version

    def __str__(self) -> str:
        where = f" at version {self.version}" if self.version is not None else ""
        return f"{self.code}{where}: {self.detail}"


@dataclass(frozen=True)
class Verified:
    """A replay that verified: what it was, and what the verifier could not vouch for."""

    game: str
    match_id: str
    actions: int
    outcome: dict[str, Any]
    key_id: str | None
    warnings: tuple[str, ...]


_REQUIRED: dict[str, type | tuple[type, ...]] = {
    "format": str,
    "format_version": int,
    "match_id": str,
    "game": str,
    "engine": dict,
    "players": int,
    "options": dict,
    "seed": str,
    "seed_sha256": str,
    "seed_supplied": bool,
    "version": int,
    "actions": list,
    "outcome": dict,
}
_ENTRY_REQUIRED: dict[str, type] = {"version": int, "seat": int, "events": list}


def load(raw: bytes) -> Any:
    """A replay document from its bytes, refusing JSON that readers could parse differently
    (:mod:`service.replay.strict_json`): read replays with this, never a lenient parser,
    since a dict can no longer show that its bytes held two ``"outcome"`` members.

    :raises ReplayRejected: ``ambiguous_json``.
    :raises ValueError: when ``raw`` is not JSON at all.
    """
    try:
        return strict_json.loads(raw)
    except strict_json.AmbiguousJson as exc:
        raise ReplayRejected("ambiguous_json", str(exc)) from None


def verify(document: Any, keys: TrustedKeys | None) -> Verified:
    """Check a replay document end to end; ``keys=None`` skips the signature (and says so).

    :raises ReplayRejected: naming the first check that fails.
    """
    try:
        canonical_json(document)
    except TypeError as exc:
        raise ReplayRejected("ambiguous_json", str(exc)) from None
    _check_shape(document)
    warnings: list[str] = []
    signer = None
    if keys is None:
        warnings.append("signature not checked: no trusted key was given")
    else:
        signer = _check_signature(document, keys)
    if seed_commitment(document["seed"]) != document["seed_sha256"]:
        raise ReplayRejected("seed_commitment", "sha256(seed) is not the published seed_sha256")
    game = get_game(document["game"])
    if game is None:
        raise ReplayRejected("unknown_game", f"this verifier has no game {document['game']!r}")
    local = engine_info(game.id)
    if any(document["engine"].get(k) != v for k, v in local.items()):
        warnings.append(f"the replay was ruled by {document['engine']}, this verifier runs {local}")
    _replay(game, document)
    return Verified(
        game.id, document["match_id"], len(document["actions"]), document["outcome"], signer, tuple(warnings)
    )


def _is_int(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _check_shape(document: Any) -> None:
    if not isinstance(document, dict):
        raise ReplayRejected("malformed", "a replay is a JSON object")
    for name, kind in _REQUIRED.items():
        value = document.get(name)
        if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
            raise ReplayRejected("malformed", f"member {name!r} is missing or not a {getattr(kind, '__name__', kind)}")
    if document["format"] != FORMAT or document["format_version"] not in READABLE_VERSIONS:
        raise ReplayRejected(
            "malformed",
            f"not a {FORMAT} document of version {' or '.join(map(str, READABLE_VERSIONS))}: "
            f"{document['format']!r} {document['format_version']!r}",
        )
    if len(document["seed"]) != 64 or any(c not in "0123456789abcdef" for c in document["seed"]):
        raise ReplayRejected("malformed", "the seed is not 64 lowercase hex digits")
    if document["format_version"] >= 2:
        _check_time_control(document.get("time_control", ...))
        _check_house(document.get("house"), document["players"])
    for index, entry in enumerate(document["actions"]):
        if not isinstance(entry, dict) or any(
            not isinstance(entry.get(name), kind) or isinstance(entry.get(name), bool) and kind is int
            for name, kind in _ENTRY_REQUIRED.items()
        ):
            raise ReplayRejected(
                "malformed", f"actions[{index}] lacks one of {sorted(_ENTRY_REQUIRED)} or has a wrong type"
            )
        kind = entry.get("kind", "move")
        if kind not in KINDS or (entry.get("action") is None) != (kind in ENDING_KINDS):
            raise ReplayRejected("malformed", f"actions[{index}] has kind {kind!r} with action {entry.get('action')!r}")
        if entry.get("action") is not None and not isinstance(entry["action"], dict):
            raise ReplayRejected("malformed", f"actions[{index}].action is not an object")


def _check_time_control(time_control: Any) -> None:
    """``null``, or the members :meth:`TimeControl.in_ms` writes, each of its type."""
    if time_control is None:
        return
    if not isinstance(time_control, dict):
        raise ReplayRejected("malformed", "member 'time_control' is missing, or neither null nor an object")
    control = {"per_decision_ms"} if "per_decision_ms" in time_control else {"initial_ms", "increment_ms"}
    if (
        set(time_control) != control | {"on_timeout", "max_consecutive_timeouts"}
        or not all(_is_int(time_control[name], 0) for name in control)
        or time_control["on_timeout"] not in ON_TIMEOUT
        or not _is_int(time_control["max_consecutive_timeouts"], 1)
    ):
        raise ReplayRejected("malformed", f"time_control {time_control!r} is not a time control")


def _check_house(house: Any, players: int) -> None:
    """A list of ``{seat, bot}``, each seat of the match at most once."""
    seats: list[Any] = [h.get("seat") for h in house if isinstance(h, dict)] if isinstance(house, list) else []
    if (
        not isinstance(house, list)
        or len(seats) != len(house)
        or not all(_is_int(seat, 0) and seat < players for seat in seats)
        or len(set(seats)) != len(seats)
        or not all(isinstance(h.get("bot"), str) for h in house)
    ):
        raise ReplayRejected("malformed", f"house {house!r} is not a list of distinct seats of the match with a bot")


def _check_signature(document: dict[str, Any], keys: TrustedKeys) -> str:
    signature = document.get("signature")
    if not isinstance(signature, dict):
        raise ReplayRejected("unsigned", "the replay has no signature")
    if signature.get("algorithm") != SIGNATURE_ALGORITHM:
        raise ReplayRejected("unsigned", f"unsupported signature algorithm {signature.get('algorithm')!r}")
    kid = signature.get("key_id")
    public_key = keys.by_id.get(kid) if isinstance(kid, str) else None
    if public_key is None:
        raise ReplayRejected(
            "unknown_key",
            f"signed by key {signature.get('key_id')!r}, not one of the trusted {sorted(keys.by_id)}",
        )
    unsigned = {k: v for k, v in document.items() if k != "signature"}
    try:
        value = signature.get("value")  # anything but a base64 string fails below, as a bad signature
        public_key.verify(_unb64(value), canonical_json(unsigned))  # type: ignore[arg-type]  # see above
    except (InvalidSignature, ValueError, TypeError):
        raise ReplayRejected(
            "bad_signature", "the signature does not match the document: it was changed after signing"
        ) from None
    return str(signature["key_id"])


class _Kinds:
    """Which entry kinds the header allows, entry by entry.

    An untimed match has no ``auto`` or ``timeout`` entry; under the ``forfeit`` policy a
    timeout is a ``timeout``, under ``auto`` it is an ``auto`` move until the seat's
    ``max_consecutive_timeouts``-th in a row, which is a ``timeout`` (its own moves end a
    streak: docs/clocks.md). Only a house seat has ``house`` entries, and a house seat has no
    token, so it makes no move of its own, resigns or aborts. A format 1 document has moves
    only. An ``abort`` never verifies: an aborted match has no outcome, hence no replay.
    """

    def __init__(self, document: dict[str, Any]) -> None:
        modern = document["format_version"] >= 2
        self.time_control: dict[str, Any] | None = document.get("time_control") if modern else None
        self.house = {h["seat"] for h in document.get("house") or ()} if modern else set()
        self.modern = modern
        self.streaks = [0] * document["players"]

    def check(self, seat: int, kind: str, version: int) -> None:
        """Refuse an entry of ``kind`` by ``seat`` here, or count it in the seat's streak."""
        known = 0 <= seat < len(self.streaks)  # else the engine's own check names the seat
        streak = self.streaks[seat] + 1 if known and kind in ("auto", "timeout") else 0
        refusal = self._refusal(seat, kind, streak if known else None)
        if refusal:
            raise ReplayRejected("kind_not_allowed", refusal, version)
        if known:
            self.streaks[seat] = streak

    def _refusal(self, seat: int, kind: str, streak: int | None) -> str | None:
        if not self.modern and kind != "move":
            return f"a format 1 replay has moves only, not a {kind} entry"
        if kind == "abort":
            return "an aborted match has no outcome and so no replay"
        if kind == "house" and seat not in self.house:
            return f"seat {seat} is not a house seat ({sorted(self.house)}): it has no house entries"
        if kind in ("move", "resign") and seat in self.house:
            return f"seat {seat} is a house seat: nobody holds its token to {kind}"
        if kind not in ("auto", "timeout"):
            return None
        control = self.time_control
        if control is None:
            return f"the match is untimed: it has no {kind} entries"
        if streak is None:
            return None
        policy = f"under on_timeout {control['on_timeout']!r} (max {control['max_consecutive_timeouts']})"
        forfeit = control["on_timeout"] == "forfeit" or streak >= control["max_consecutive_timeouts"]
        if kind == "auto" and forfeit:
            return f"{policy} seat {seat}'s timeout number {streak} in a row is a forfeit, not an auto move"
        if kind == "timeout" and not forfeit:
            return f"{policy} seat {seat}'s timeout number {streak} in a row is an auto move, not a forfeit"
        return None


def _replay(game: Game, document: dict[str, Any]) -> None:
    """Re-adjudicate every action from the seed, as the referee did (docs/replay.md)."""
    players, options, seed = document["players"], document["options"], document["seed"]
    try:
        resolved = game.resolve_options(players, options)
    except EngineError as exc:
        raise ReplayRejected("options", exc.message) from None
    if not same_json(resolved, options):
        raise ReplayRejected("options", f"the options are not fully resolved: expected {resolved}")
    kinds = _Kinds(document)
    rng = Rng(seed)
    state = game.setup(players, resolved, rng)
    position = rng.position()
    ended: dict[str, Any] | None = None
    for expected_version, entry in enumerate(document["actions"], start=1):
        if entry["version"] != expected_version:
            raise ReplayRejected(
                "version_sequence",
                f"entry {expected_version} claims version {entry['version']}",
                expected_version,
            )
        kind = entry.get("kind", "move")
        if ended is not None:
            raise ReplayRejected("after_end", f"an entry of kind {kind} follows the end of the match", expected_version)
        kinds.check(entry["seat"], kind, expected_version)
        if kind in ENDING_KINDS:
            ended = _check_ending(game, state, players, entry, kind, expected_version)
            continue
        rng = Rng(seed, position)
        if kind == "auto":
            _check_auto(game, state, entry, rng, expected_version)
        try:
            state, events = game.apply(state, entry["seat"], entry["action"], rng)
        except EngineError as exc:
            raise ReplayRejected(
                "illegal_action",
                f"seat {entry['seat']} may not play {entry['action']}: {exc.code}: {exc.message}",
                expected_version,
            ) from None
        except Exception as exc:
            raise ReplayRejected(
                "illegal_action",
                f"seat {entry['seat']} may not play {entry['action']}: the engine refuses it ({exc!r})",
                expected_version,
            ) from None
        position = rng.position()
        if not same_json(events, entry["events"]):
            raise ReplayRejected("events_differ", _first_event_difference(events, entry["events"]), expected_version)
    if document["version"] != len(document["actions"]):
        raise ReplayRejected(
            "version_sequence",
            f"the replay claims final version {document['version']} after {len(document['actions'])} actions",
        )
    outcome = game.outcome(state) if ended is None else ended_outcome(game, players, ended)
    if outcome is None:
        raise ReplayRejected("not_finished", f"after every action seats {game.to_act(state)} still owe a decision")
    if not same_json(outcome, document["outcome"]):
        raise ReplayRejected("outcome_differs", f"replaying gives {orjson.dumps(outcome).decode()}")


def _check_auto(game: Game, state: Any, entry: dict[str, Any], rng: Rng, version: int) -> None:
    """An ``auto`` entry's action must be the referee's draw: the match's stream picks one
    of the seat's legal actions at that point (then the same stream applies it)."""
    if entry["seat"] not in game.to_act(state):
        raise ReplayRejected("auto_differs", f"seat {entry['seat']} owed no decision to time out on", version)
    drawn = auto_action(game, state, entry["seat"], rng)
    if not same_json(drawn, entry["action"]):
        raise ReplayRejected(
            "auto_differs",
            f"the random legal action for seat {entry['seat']} is {drawn}, not {entry['action']}",
            version,
        )


def _check_ending(
    game: Game, state: Any, players: int, entry: dict[str, Any], kind: str, version: int
) -> dict[str, Any]:
    """A ``timeout`` or ``resign`` entry ends the match without changing its state: its seat
    is a seat of the match (one that owed a decision, for a timeout). Returns how the match
    ended. (An ``abort`` never gets here: :class:`_Kinds` refuses it.)"""
    seat = entry["seat"]
    if not 0 <= seat < players or kind == "timeout" and seat not in game.to_act(state):
        raise ReplayRejected("illegal_action", f"seat {seat} cannot {kind} here", version)
    expected = [{"type": ENDING_EVENTS[kind], "seat": seat}]
    if not same_json(entry["events"], expected):
        raise ReplayRejected("events_differ", _first_event_difference(expected, entry["events"]), version)
    return {"reason": ENDING_KINDS[kind], "seat": seat}


def _first_event_difference(replayed: list[Any], recorded: list[Any]) -> str:
    for index, (mine, theirs) in enumerate(zip(replayed, recorded, strict=False)):
        if not same_json(mine, theirs):
            mine_text, theirs_text = orjson.dumps(mine).decode(), orjson.dumps(theirs).decode()
            return f"event {index}: replaying gives {mine_text}, the replay says {theirs_text}"
    return f"replaying gives {len(replayed)} events, the replay lists {len(recorded)}"
