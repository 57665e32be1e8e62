"""The game catalogue."""

from marshmallow import Schema, fields


class OptionSchema(Schema):
    name = fields.String(required=True)
    kind = fields.String(required=True, metadata={"enum": ["bool", "int", "enum"]})
    default = fields.Raw(allow_none=True, metadata={"description": "The value when none is given."})
    description = fields.String(required=True)
    choices = fields.List(fields.Raw(), metadata={"description": "For kind enum: the values allowed."})


class GameSchema(Schema):
    """One game: who may play it, its options and the JSON schema of every action type."""

    id = fields.String(required=True, metadata={"example": "the-game"})
    title = fields.String(required=True)
    min_players = fields.Integer(required=True)
    max_players = fields.Integer(required=True)
    cooperative = fields.Boolean(required=True)
    options = fields.List(fields.Nested(OptionSchema), required=True)
    options_schema = fields.Dict(required=True, metadata={"description": "JSON schema of `options` at match creation."})
    action_types = fields.List(fields.String(), required=True)
    action_schemas = fields.Dict(
        keys=fields.String(), values=fields.Dict(), required=True,
        metadata={"description": "JSON schema of each action type, by name."},
    )


class GameListSchema(Schema):
    games = fields.List(fields.Nested(GameSchema), required=True)
