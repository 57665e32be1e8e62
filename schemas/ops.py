"""Liveness and readiness."""

from marshmallow import Schema, fields


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})
    store = fields.String(
        metadata={"example": "redis", "description": "the match store: file, memory, redis or redis-cluster"}
    )
    games = fields.String(metadata={"example": "ok", "description": "whether every game's data loads"})
