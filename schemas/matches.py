"""Matches: creating one, reading it, acting in it, its history."""

from collections.abc import Mapping
from typing import Any

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

from schemas.enums import entry_kind, match_status
from schemas.game_types import GameId, PerGame
from service.bots.registry import BOT_NAMES
from service.clock import DEFAULT_MAX_CONSECUTIVE_TIMEOUTS, ON_TIMEOUT

_VIEW = "What the caller's seat may see (a spectator's view without a seat token); per game."
MATCH_GAME = "The match's game (its id): this body's actions, events and view are that game's types."
"""What ``game`` says in a body about one match whose per-game fields would not name their game
otherwise: generated clients narrow the body by it (schemas/game_types.py)."""
_OUTCOME = (
    "Null while the match runs (and for an aborted match); then `{scores, ranks, winners, detail}`, per seat "
    "index. A match ended by a timeout or a resignation has `detail.end_reason` `timeout` or `resigned` and "
    "`detail.seat`; that seat is ranked last and every score is 0."
)
_SECONDS = validate.Range(min=0.1, max=30 * 86400)
_INCREMENT = validate.Range(min=0, max=86400)


class Seconds(fields.Float):
    """A JSON number of seconds: ``"5"`` and ``true`` are refused, not converted."""

    def _deserialize(self, value: Any, attr: Any, data: Any, **kwargs: Any) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.make_error("invalid")
        return super()._deserialize(value, attr, data, **kwargs)


class ClockRequestSchema(Schema):
    """A time control: `per_decision_s` alone, or `initial_s` with an optional `increment_s`
    (Fischer); and what happens when a seat's time runs out."""

    per_decision_s = Seconds(
        validate=_SECONDS,
        metadata={"description": "Seconds for each decision; nothing carries over.", "example": 5},
    )
    initial_s = Seconds(validate=_SECONDS, metadata={"description": "Fischer: each seat's bank at the start."})
    increment_s = Seconds(
        validate=_INCREMENT,
        metadata={"description": "Fischer: added after each decision made in time (default 0)."},
    )
    on_timeout = fields.String(
        validate=validate.OneOf(ON_TIMEOUT),
        metadata={
            "description": "`forfeit` (the default): the seat loses the match. `auto`: the referee plays a random "
            "legal action for it (drawn from the match's own random stream, so a replay checks it), and the seat "
            "forfeits at its `max_consecutive_timeouts`-th timeout in a row."
        },
    )
    max_consecutive_timeouts = fields.Integer(
        strict=True,
        validate=validate.Range(min=1, max=1000),
        metadata={"description": f"Only for `auto` (default {DEFAULT_MAX_CONSECUTIVE_TIMEOUTS})."},
    )

    @validates_schema
    def one_control(self, data: dict[str, Any], **_: Any) -> None:
        if ("per_decision_s" in data) == ("initial_s" in data):
            raise ValidationError("Give either per_decision_s, or initial_s (with increment_s).", "_schema")
        if "increment_s" in data and "per_decision_s" in data:
            raise ValidationError("increment_s belongs to a Fischer control (initial_s).", "increment_s")


class HouseSeatSchema(Schema):
    """A seat the service plays itself with one of its built-in bots."""

    seat = fields.Integer(required=True, strict=True, validate=validate.Range(min=0, max=15))
    bot = fields.String(
        required=True,
        validate=validate.OneOf(BOT_NAMES),
        metadata={
            "description": "`level1` (any legal action, also called `random`), `level2` (the game's own "
            "heuristic bot, also called `heuristic`), or `level3` to `level5` (a search that samples what "
            "the seat cannot see, within 0.1, 0.35 and 1 s a decision and the seat's clock; docs/bots.md)."
        },
    )


class ClockSchema(Schema):
    """Every seat's time, as of the answer."""

    control = fields.Dict(
        required=True,
        metadata={
            "description": "As created: `{per_decision_s}` or `{initial_s, increment_s}`.",
            "example": {"per_decision_s": 5},
        },
    )
    on_timeout = fields.String(required=True, metadata={"enum": list(ON_TIMEOUT)})
    max_consecutive_timeouts = fields.Integer(required=True)
    remaining_ms = fields.List(fields.Integer(), required=True, metadata={"description": "Per seat, now."})
    running = fields.List(fields.Integer(), required=True, metadata={"description": "Seats whose clock runs."})
    deadline = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "When the first running clock reaches zero (UTC)."},
    )
    deadline_ms = fields.Integer(allow_none=True, required=True, metadata={"description": "The same, in epoch ms."})
    consecutive_timeouts = fields.List(fields.Integer(), required=True, metadata={"description": "Per seat."})


def _clock_field() -> fields.Nested:
    return fields.Nested(
        ClockSchema,
        allow_none=True,
        required=True,
        metadata={"description": "Null for an untimed match."},
    )


def _house_field() -> fields.List:
    return fields.List(
        fields.Nested(HouseSeatSchema),
        required=True,
        metadata={"description": "Seats the service plays itself; `[]` when none."},
    )


class CreateMatchSchema(Schema):
    """Create a match of one game for a number of players."""

    game = GameId(required=True, metadata={"example": "the-game"})
    players = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(min=1, max=16),
        metadata={"example": 2},
    )
    options = PerGame(
        "Options", "Match options by name: the game's `<Game>Options`; defaults fill the rest.", load_default=dict
    )
    seed = fields.String(
        validate=validate.Regexp(r"^[0-9a-f]{64}$", error="A seed is 64 lowercase hex digits (256 bits)."),
        metadata={"description": "Your own seed for a reproducible match; the match is then marked `seed_supplied`."},
    )
    clock = fields.Nested(
        ClockRequestSchema,
        allow_none=True,
        metadata={"description": "A time control; omitted or null: untimed. Clocks start at creation."},
    )
    house = fields.List(
        fields.Nested(HouseSeatSchema),
        load_default=list,
        validate=validate.Length(max=16),
        metadata={
            "description": "Seats the service plays itself with a built-in bot (all of them: a match that "
            "plays itself). The answer's `seats` holds tokens for the other seats only."
        },
    )


class SeatTokenSchema(Schema):
    seat = fields.Integer(required=True)
    token = fields.String(required=True, metadata={"description": "Bearer secret of this seat; shown only once."})


class OutcomeSchema(Schema):
    scores = fields.List(fields.Integer(), required=True)
    ranks = fields.List(fields.Integer(), required=True)
    winners = fields.List(fields.Integer(), required=True)
    detail = PerGame("OutcomeDetail", "The game's own breakdown.", required=True)


class MatchSchema(Schema):
    """A match as the caller may see it. Its `ETag` names the state token and the viewer."""

    match_id = fields.String(required=True)
    game = GameId(required=True)
    players = fields.Integer(required=True)
    options = PerGame("Options", "Every option, defaults filled in.", required=True)
    status = match_status(required=True)
    version = fields.Integer(required=True)
    state_token = fields.String(required=True, metadata={"description": "Send it back with your next action."})
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that owe a decision now."})
    seat = fields.Integer(
        allow_none=True, required=True, metadata={"description": "The caller's seat; null for a spectator."}
    )
    view = PerGame("View", _VIEW, required=True)
    outcome = fields.Nested(OutcomeSchema, allow_none=True, required=True, metadata={"description": _OUTCOME})
    seed_sha256 = fields.String(
        required=True, metadata={"description": "SHA-256 of the secret seed, published from creation."}
    )
    seed = fields.String(metadata={"description": "The seed, revealed once the match is finished or aborted."})
    seed_supplied = fields.Boolean(required=True, metadata={"description": "True when the creator chose the seed."})
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    clock = _clock_field()
    house = _house_field()


class CreatedMatchSchema(MatchSchema):
    """A new match, with each seat's bearer token (shown only in this answer)."""

    seats = fields.List(
        fields.Nested(SeatTokenSchema),
        required=True,
        metadata={"description": "Every seat but the house's."},
    )


class ActionRequestSchema(Schema):
    """An action of the caller's seat, with the state token it was decided on."""

    state_token = fields.String(required=True, validate=validate.Length(max=200))
    action = PerGame(
        "Action",
        "`{type, ...}` as listed by legal-actions: one of the match's game's `<Game>Action`.",
        required=True,
        metadata={"example": {"type": "play", "card": 17, "pile": 0}},
    )


class ActionResultSchema(Schema):
    """The new state after an accepted action."""

    match_id = fields.String(required=True)
    game = GameId(required=True, metadata={"description": MATCH_GAME})
    state_token = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    kind = entry_kind(required=True)
    events = fields.List(
        PerGame("Event", "An event of the match's game."),
        required=True,
        metadata={"description": "What happened, as this seat may see it."},
    )
    view = PerGame("View", _VIEW, required=True)
    legal_actions = fields.List(
        PerGame("Action", "A legal action of the match's game."),
        required=True,
        metadata={
            "description": "The caller's legal actions now (empty when it owes no decision): "
            "a bot needs no second request to decide its next move."
        },
    )
    to_act = fields.List(fields.Integer(), required=True)
    status = match_status(required=True)
    outcome = fields.Nested(OutcomeSchema, allow_none=True, required=True, metadata={"description": _OUTCOME})
    clock = _clock_field()
    house = _house_field()


class ValidationResultSchema(Schema):
    """Whether an action would be accepted now; nothing is changed."""

    match_id = fields.String(required=True)
    game = GameId(required=True, metadata={"description": "The match's game (its id)."})
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
    game = GameId(required=True, metadata={"description": MATCH_GAME})
    seat = fields.Integer(required=True)
    version = fields.Integer(required=True)
    state_token = fields.String(required=True, metadata={"description": "The version these actions belong to."})
    to_act = fields.List(fields.Integer(), required=True)
    actions = fields.List(PerGame("Action", "A legal action of the match's game."), required=True)


MAX_CURSOR = 2**53 - 1
"""The largest history cursor: the largest integer that clients in every language hold exactly
(a log never gets near it; Redis refuses list indexes from 2^63 on)."""


class HistoryQuerySchema(Schema):
    cursor = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_CURSOR))
    limit = fields.Integer(load_default=50, validate=validate.Range(min=1, max=200))


class HistoryEntrySchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "The version this entry produced."})
    seat = fields.Integer(
        required=True, metadata={"description": "The seat it was for (or that resigned, timed out, aborted)."}
    )
    kind = entry_kind(required=True)
    action = fields.Dict(
        required=True,
        allow_none=True,
        metadata={
            "description": "The action as `{type, ...}`; secret parts are null for other seats "
            "(so it may not fit `<Game>Action`; the replay has them all). Null for `timeout`, `resign`, "
            "`abort`."
        },
    )
    events = fields.List(PerGame("Event", "An event of the match's game."), required=True)
    at = fields.String(required=True)
    clock_ms = fields.List(
        fields.Integer(),
        metadata={"description": "Timed matches: what each seat had left right after this entry."},
    )


class HistorySchema(Schema):
    """A page of the action log, as the caller may see it."""

    match_id = fields.String(required=True)
    game = GameId(required=True, metadata={"description": MATCH_GAME})
    total = fields.Integer(required=True)
    entries = fields.List(fields.Nested(HistoryEntrySchema), required=True)
    next_cursor = fields.Integer(allow_none=True, required=True)


class ListCursor(fields.String):
    """The listing's opaque cursor, read into the position it names."""

    def _deserialize(self, value: Any, attr: str | None, data: Mapping[str, Any] | None, **kwargs: Any) -> Any:
        """The :class:`ListPosition` the cursor names (typed ``Any``: a string field's value)."""
        from service.listing import decode_cursor

        position = decode_cursor(super()._deserialize(value, attr, data, **kwargs))
        if position is None:
            raise ValidationError("Not a cursor of this listing: send back a `next_cursor` unchanged.")
        return position


class ListMatchesQuerySchema(Schema):
    game = GameId(metadata={"description": "Only matches of this game (its id)."})
    status = match_status(metadata={"description": "Only matches in this status."})
    limit = fields.Integer(load_default=20, validate=validate.Range(min=1, max=100))
    cursor = ListCursor(metadata={"description": "The `next_cursor` of the previous page."})


class MatchSummarySchema(Schema):
    """What anyone may know of a match without reading its view."""

    match_id = fields.String(required=True)
    game = GameId(required=True)
    players = fields.Integer(required=True)
    status = match_status(required=True)
    version = fields.Integer(required=True)
    to_act = fields.List(fields.Integer(), required=True, metadata={"description": "Seats that owe a decision now."})
    created_at = fields.String(required=True)
    updated_at = fields.String(required=True)
    winners = fields.List(
        fields.Integer(),
        allow_none=True,
        required=True,
        metadata={
            "description": "The winning seats once the match has ended (empty when nobody won); null while it runs."
        },
    )
    clock = _clock_field()
    house = _house_field()


class MatchListSchema(Schema):
    """A page of matches, the most recently updated first."""

    matches = fields.List(fields.Nested(MatchSummarySchema), required=True)
    next_cursor = fields.String(
        allow_none=True,
        required=True,
        metadata={
            "description": "Where the next page starts; null on the last page. A page may hold fewer "
            "than `limit` matches (even none) while this is set: keep following it."
        },
    )
