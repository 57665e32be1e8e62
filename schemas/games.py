"""The game catalogue."""

from marshmallow import Schema, fields

from schemas.game_types import GameId


class OptionSchema(Schema):
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ["bool", "int", "enum"]})
    default = fields.Raw(allow_none=True, metadata={"description": "The value when none is given."})
    description = fields.String(required=True)
    choices = fields.List(fields.Raw(), metadata={"description": "For kind enum: the values allowed."})


class PlayerCountSchema(Schema):
    """What the options are at one player count."""

    players = fields.Integer(required=True, metadata={"example": 2})
    defaults = fields.Dict(
        keys=fields.String(),
        required=True,
        metadata={
            "description": "Each option's default at this player count (some depend on it).",
            "example": {"variant": "two-player"},
        },
    )
    allowed = fields.Dict(
        keys=fields.String(),
        values=fields.List(fields.Raw()),
        required=True,
        metadata={
            "description": "For each option with few values: those accepted at this player count "
            "(the others at their defaults).",
            "example": {"variant": ["two-player"]},
        },
    )


class GameSchema(Schema):
    """One game: who may play it, its options and the JSON schema of every action type."""

    id = GameId(required=True, metadata={"example": "the-game"})
    title = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    cooperative = fields.Boolean(required=True)
    options = fields.List(fields.Nested(OptionSchema), required=True)
    options_schema = fields.Dict(required=True, metadata={"description": "JSON schema of `options` at match creation."})
    action_types = fields.List(fields.String(), required=True)
    action_schemas = fields.Dict(
        keys=fields.String(),
        values=fields.Dict(),
        required=True,
        metadata={"description": "JSON schema of each action type, by name."},
    )
    by_players = fields.List(
        fields.Nested(PlayerCountSchema),
        required=True,
        metadata={
            "description": "Per player count from `min_players` to `max_players`: the options' "
            "defaults and accepted values there."
        },
    )


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSchema), required=True)
