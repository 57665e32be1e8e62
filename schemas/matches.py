"""Matches: creating one, reading it, acting in it, its history."""

from marshmallow import Schema, fields, validate

from schemas.game_types import any_game

_VIEW = "What the caller's seat may see (a spectator's view without a seat token); per game."
_OUTCOME = "Null while the match runs; then `{scores, ranks, winners, detail}`, per seat index."


class CreateMatchSchema(Schema):
    """Create a match of one game for a number of players."""

    game = fields.String(required=True, metadata={"example": "the-game"})
    players = fields.Integer(
        required=True, strict=True, validate=validate.Range(min=1, max=16), metadata={"example": 2},
    )
    options = fields.Dict(
        keys=fields.String(), load_default=dict,
        metadata=any_game("Options", "Match options by name: the game's `<Game>Options`; defaults fill the rest."),
    )
    seed = fields.String(
        validate=validate.Regexp(r"^[0-9a-f]{64}$", error="A seed is 64 lowercase hex digits (256 bits)."),
        metadata={"description": "Your own seed for a reproducible match; the match is then marked `seed_supplied`."},
    )


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "Bearer secret of this seat; shown only once."})


class OutcomeSchema(Schema):
    scores = fields.List(fields.Integer(), required=True)
    ranks = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    detail = fields.Dict(required=True, metadata=any_game("OutcomeDetail", "The game's own breakdown."))


class MatchSchema(Schema):
    """A match as the caller may see it. Its `ETag` names the state token and the viewer."""

    match_id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True, metadata=any_game("Options", "Every option, defaults filled in."))
    status = fields.String(required=True, metadata={"enum": ["active", "finished"]})
    version = fields.Integer(required=True)
    state_token = fields.String(required=True, metadata={"description": "Send it back with your next action."})
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that owe a decision now."})
    seat = fields.Integer(allow_none=True, required=True, metadata={"description": "The caller's seat; null for a spectator."})
    view = fields.Dict(required=True, metadata=any_game("View", _VIEW))
    outcome = fields.Nested(OutcomeSchema, allow_none=True, required=True, metadata={"description": _OUTCOME})
    seed_sha256 = fields.String(required=True, metadata={"description": "SHA-256 of the secret seed, published from creation."})
    seed = fields.String(metadata={"description": "The seed, revealed once the match is finished."})
    seed_supplied = fields.Boolean(required=True, metadata={"description": "True when the creator chose the seed."})
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)


class CreatedMatchSchema(MatchSchema):
    """A new match, with each seat's bearer token (shown only in this answer)."""

    seats = fields.List(fields.Nested(SeatTokenSchema), required=True)


class ActionRequestSchema(Schema):
    """An action of the caller's seat, with the state token it was decided on."""

    state_token = fields.String(required=True, validate=validate.Length(max=200))
    action = fields.Dict(
        keys=fields.String(), required=True,
        metadata=any_game("Action", "`{type, ...}` as listed by legal-actions: one of the match's game's `<Game>Action`.")
        | {"example": {"type": "play", "card": 17, "pile": 0}},
    )


class ActionResultSchema(Schema):
    """The new state after an accepted action."""

    match_id = fields.String(required=True)
    state_token = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    events = fields.List(
        fields.Dict(metadata=any_game("Event", "An event of the match's game.")), required=True,
        metadata={"description": "What happened, as this seat may see it."},
    )
    view = fields.Dict(required=True, metadata=any_game("View", _VIEW))
    legal_actions = fields.List(
        fields.Dict(metadata=any_game("Action", "A legal action of the match's game.")), required=True,
        metadata={"description": "The caller's legal actions now (empty when it owes no decision): "
                  "a bot needs no second request to decide its next move."},
    )
    to_act = fields.List(fields.Integer(), required=True)
    status = fields.String(required=True, metadata={"enum": ["active", "finished"]})
    outcome = fields.Nested(OutcomeSchema, allow_none=True, required=True, metadata={"description": _OUTCOME})


class ValidationResultSchema(Schema):
    """Whether an action would be accepted now; nothing is changed."""

    match_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    state_token = fields.String(required=True)
    legal = fields.Boolean(required=True)
    code = fields.String(metadata={"description": "Why not: the same code an action would get."})
    detail = fields.String()
    rule = fields.String(allow_none=True)


class LegalActionsSchema(Schema):
    """Every legal action of the caller's seat now."""

    match_id = fields.String(required=True)
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    state_token = fields.String(required=True, metadata={"description": "The version these actions belong to."})
    to_act = fields.List(fields.Integer(), required=True)
    actions = fields.List(fields.Dict(metadata=any_game("Action", "A legal action of the match's game.")), required=True)


MAX_CURSOR = 2**53 - 1
"""The largest history cursor: the largest integer that clients in every language hold exactly
(a log never gets near it; Redis refuses list indexes from 2^63 on)."""


class HistoryQuerySchema(Schema):
    cursor = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_CURSOR))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class HistoryEntrySchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "The version this move produced."})
    seat = fields.Integer(required=True)
    action = fields.Dict(
        required=True,
        metadata={"description": "The action as `{type, ...}`; secret parts are null for other seats "
                  "(so it may not fit `<Game>Action`; the replay has them all)."},
    )
    events = fields.List(fields.Dict(metadata=any_game("Event", "An event of the match's game.")), required=True)
    at = fields.String(required=True)


class HistorySchema(Schema):
    """A page of the action log, as the caller may see it."""

    match_id = fields.String(required=True)
    total = fields.Integer(required=True)
    entries = fields.List(fields.Nested(HistoryEntrySchema), required=True)
    next_cursor = fields.Integer(allow_none=True, required=True)
