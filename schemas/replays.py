"""Replays of finished matches and the key that signs them (docs/replay.md)."""

from marshmallow import Schema, fields

from schemas.enums import entry_kind
from schemas.game_types import GameId, PerGame
from schemas.matches import OutcomeSchema


class EngineSchema(Schema):
    """What ruled the match."""

    name = fields.String(required=True, metadata={"example": "game-referee"})
    version = fields.String(required=True, metadata={"description": "The package version.", "example": "0.1.0"})
    data_sha256 = fields.String(
        required=True,
        metadata={
            "description": "`sha256sum *.json | sha256sum` of the game's folder in `seeds/`: its decks and boards."
        },
    )


class ReplayEntrySchema(Schema):
    """One action as it was adjudicated, with everything it caused, nothing hidden."""

    version = fields.Integer(required=True, metadata={"description": "The version this action produced (1, 2, …)."})
    seat = fields.Integer(required=True)
    kind = entry_kind(metadata={"description": "Format 2; absent means `move`: see docs/replay.md."})
    action = PerGame(
        "Action",
        "The action exactly as submitted; null for `timeout`, `resign`, `abort`.",
        required=True,
        allow_none=True,
    )
    events = fields.List(
        PerGame("Event", "An event of the match's game."),
        required=True,
        metadata={"description": "Every event, including those addressed `to` some seats."},
    )
    at = fields.String(metadata={"description": "When it was committed (UTC, ISO 8601)."})
    clock_ms = fields.List(
        fields.Integer(),
        metadata={"description": "Timed matches: what each seat had left right after this entry."},
    )


class SignatureSchema(Schema):
    """An Ed25519 signature over the canonical JSON of the document without `signature`."""

    algorithm = fields.String(required=True, metadata={"enum": ["Ed25519"]})
    key_id = fields.String(
        required=True,
        metadata={"description": "The signing key's `kid` in `GET /v1/keys` (its RFC 7638 thumbprint)."},
    )
    value = fields.String(required=True, metadata={"description": "The 64-byte signature, base64url without padding."})


class ReplaySchema(Schema):
    """Everything needed to re-adjudicate a finished match, signed by the server."""

    format = fields.String(required=True, metadata={"enum": ["game-referee/replay"]})
    format_version = fields.Integer(required=True, metadata={"example": 2})
    match_id = fields.String(required=True)
    game = GameId(required=True, metadata={"example": "the-game"})
    engine = fields.Nested(EngineSchema, required=True)
    players = fields.Integer(required=True)
    options = PerGame("Options", "Every option, defaults filled in.", required=True)
    seed = fields.String(required=True, metadata={"description": "The match's seed (64 hex digits), revealed."})
    seed_sha256 = fields.String(
        required=True, metadata={"description": "The commitment published from the match's creation."}
    )
    seed_supplied = fields.Boolean(required=True)
    created_at = fields.String(required=True)
    finished_at = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The final version: the number of actions."})
    time_control = fields.Dict(
        allow_none=True,
        metadata={
            "description": "The match's time control in ms (`per_decision_ms`, or `initial_ms` and "
            "`increment_ms`), `on_timeout`, `max_consecutive_timeouts`; null when untimed.",
            "example": {"per_decision_ms": 5000, "on_timeout": "auto", "max_consecutive_timeouts": 3},
        },
    )
    house = fields.List(
        fields.Dict(),
        metadata={"description": "Seats the service played with a built-in bot: `[{seat, bot}]`."},
    )
    actions = fields.List(fields.Nested(ReplayEntrySchema), required=True)
    outcome = fields.Nested(OutcomeSchema, required=True)
    signature = fields.Nested(SignatureSchema, required=True)


class JwkSchema(Schema):
    """An Ed25519 public key as an RFC 8037 JSON Web Key."""

    kty = fields.String(required=True, metadata={"enum": ["OKP"]})
    crv = fields.String(required=True, metadata={"enum": ["Ed25519"]})
    x = fields.String(required=True, metadata={"description": "The 32-byte public key, base64url without padding."})
    kid = fields.String(
        required=True, metadata={"description": "RFC 7638 thumbprint; replays name it as `signature.key_id`."}
    )
    alg = fields.String(required=True, metadata={"enum": ["EdDSA"]})
    use = fields.String(required=True, metadata={"enum": ["sig"]})


class KeySetSchema(Schema):
    """The keys replays are signed with, as a JWK Set (RFC 7517)."""

    keys = fields.List(fields.Nested(JwkSchema), required=True)
