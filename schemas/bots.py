"""Bot accounts, challenges and bot events: the bodies of ``/v1/bots…`` and
``/v1/challenges…``."""

from marshmallow import INCLUDE, Schema, fields, validate

from schemas.matches import ClockRequestSchema

_NAME = validate.Regexp(
    r"^[A-Za-z0-9_-]{3,32}$", error="A bot name is 3–32 characters of letters, digits, '_' and '-'."
)
_NAME_FIELD_DOC = {
    "description": "3–32 characters of `[A-Za-z0-9_-]`, unique without regard to case.",
    "example": "alice",
}


def _name(**kwargs: object) -> fields.String:
    return fields.String(validate=_NAME, metadata=_NAME_FIELD_DOC, **kwargs)  # type: ignore[arg-type]  # marshmallow's field options


class RegisterBotSchema(Schema):
    """A new bot."""

    name = _name(required=True)
    description = fields.String(load_default="", validate=validate.Length(max=280))
    owner = fields.String(
        load_default="",
        validate=validate.Length(max=64),
        metadata={"description": "Who runs the bot (free text, shown on its profile)."},
    )


class RegisteredBotSchema(Schema):
    """The new bot with its key: the only answer that ever shows the key."""

    name = fields.String(required=True)
    key = fields.String(
        required=True,
        metadata={"description": "The bot's API key (`rbk_…`): send it as `Authorization: Bearer <key>`. Shown once."},
    )
    description = fields.String(required=True)
    owner = fields.String(required=True)
    created = fields.String(required=True, metadata={"description": "When the bot registered (UTC)."})


class BotProfileSchema(Schema):
    """A bot's public profile."""

    name = fields.String(required=True)
    description = fields.String(required=True)
    owner = fields.String(required=True)
    created = fields.String(required=True)
    online = fields.Boolean(required=True, metadata={"description": "Whether the bot holds an event stream open now."})
    matches_played = fields.Integer(required=True)
    faults = fields.Dict(
        keys=fields.String(),
        values=fields.Integer(),
        required=True,
        metadata={"description": "Faults by kind (`timeout`: its clock ran out)."},
    )
    ratings = fields.List(fields.Dict(), required=True, metadata={"description": "Ratings, once ladders exist."})


class AutoAcceptSchema(Schema):
    """Challenges the server accepts on the bot's behalf: each rule given must list the
    challenge's game, challenger or time control; a rule left out takes any."""

    games = fields.List(fields.String(), validate=validate.Length(max=32))
    opponents = fields.List(_name(), validate=validate.Length(max=256))
    time_controls = fields.List(fields.Nested(ClockRequestSchema), validate=validate.Length(max=16))


class OwnBotSchema(BotProfileSchema):
    """The profile as the bot itself reads it."""

    auto_accept = fields.Nested(AutoAcceptSchema, allow_none=True, required=True)


class UpdateBotSchema(Schema):
    """What a bot may change about itself."""

    description = fields.String(validate=validate.Length(max=280))
    auto_accept = fields.Nested(
        AutoAcceptSchema, allow_none=True, metadata={"description": "The rules; null accepts nothing automatically."}
    )


class BotKeySchema(Schema):
    key = fields.String(required=True, metadata={"description": "The bot's new key; the old one no longer works."})


class BotListQuerySchema(Schema):
    cursor = fields.String(validate=_NAME, metadata={"description": "`next_cursor` of the previous page."})
    online = fields.Boolean(load_default=False, metadata={"description": "Only bots with an event stream open."})


class BotListSchema(Schema):
    bots = fields.List(fields.Nested(BotProfileSchema), required=True)
    next_cursor = fields.String(allow_none=True, required=True, metadata={"description": "Null on the last page."})


class CreateChallengeSchema(Schema):
    """Invite other bots to a match."""

    game = fields.String(required=True, metadata={"example": "the-game"})
    players = fields.Integer(
        required=True,
        strict=True,
        validate=validate.Range(min=2, max=16),
        metadata={"description": "1 + the number of opponents."},
    )
    options = fields.Dict(keys=fields.String(), load_default=dict, metadata={"description": "The game's options."})
    time_control = fields.Nested(
        ClockRequestSchema, allow_none=True, load_default=None, metadata={"description": "Null or absent: untimed."}
    )
    opponents = fields.List(_name(), required=True, validate=validate.Length(min=1, max=15))
    seats = fields.String(
        load_default="random",
        validate=validate.OneOf(["random", "in_order"]),
        metadata={"description": "`in_order`: the challenger at seat 0, the opponents as listed; `random`: shuffled."},
    )


class ChallengeSchema(Schema):
    """A challenge as its bots see it."""

    id = fields.String(required=True)
    game = fields.String(required=True)
    players = fields.Integer(required=True)
    options = fields.Dict(required=True)
    time_control = fields.Dict(allow_none=True, required=True)
    seats = fields.String(required=True)
    challenger = fields.String(required=True)
    opponents = fields.List(fields.String(), required=True)
    accepted = fields.List(fields.String(), required=True, metadata={"description": "Opponents that accepted."})
    status = fields.String(
        required=True, validate=validate.OneOf(["open", "accepted", "declined", "canceled", "expired"])
    )
    created = fields.String(required=True)
    expires_at = fields.String(required=True)
    match_id = fields.String(allow_none=True, required=True, metadata={"description": "Set once accepted."})


class NextEventQuerySchema(Schema):
    wait = fields.Float(
        load_default=0.0,
        validate=validate.Range(min=0, max=60),
        metadata={"description": "Seconds to wait for an event (at most 60)."},
    )
    after = fields.String(
        validate=validate.Regexp(r"^\d{1,18}$", error="An event id: a whole number."),
        metadata={"description": "The id of the last event seen; absent: the pending state first."},
    )


class BotEventSchema(Schema):
    """One event of a bot: `type` says which (`challenge`, `challenge_accepted`,
    `challenge_declined`, `challenge_canceled`, `challenge_expired`, `match_started`,
    `match_finished`) and the other fields follow it (docs/accounts.md)."""

    class Meta:
        unknown = INCLUDE  # each type has fields of its own

    id = fields.String(required=True, metadata={"description": "Increasing per bot; the SSE `id`."})
    type = fields.String(
        required=True,
        validate=validate.OneOf(
            [
                "challenge",
                "challenge_accepted",
                "challenge_declined",
                "challenge_canceled",
                "challenge_expired",
                "match_started",
                "match_finished",
            ]
        ),
    )
