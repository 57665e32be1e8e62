"""Liveness and readiness."""

from marshmallow import Schema, fields


class HealthSchema(Schema):
    status = fields.String(required=True, metadata={"example": "ok"})
    store = fields.String(metadata={"example": "redis"})
