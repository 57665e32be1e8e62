"""The messages of a seat's WebSocket (``GET /v1/matches/{id}/socket``), as JSON text frames.

Not request or response bodies of any HTTP operation: the spec publishes them as components
(``SocketMove``, ``SocketFollow``, ``SocketAnswer``, ``SocketEvent``) that the socket route's
description names.
"""

from marshmallow import Schema, fields, validate

from schemas.matches import ActionRequestSchema
from schemas.streams import StreamEventSchema

MESSAGE_ID = fields.String(
    required=True,
    validate=validate.Regexp(r"^[A-Za-z0-9._-]{1,128}$"),
    metadata={"description": "Chosen by the client; the answer carries it back (and the access log names it)."},
)


class SocketMoveSchema(ActionRequestSchema):
    """Client to server: a move, as the body of `POST /v1/matches/{id}/actions` with an `id`."""

    id = MESSAGE_ID
    idempotency_key = fields.String(
        validate=validate.Regexp(r"^[\x21-\x7e]{1,255}$"),
        metadata={"description": "What the move endpoint's `Idempotency-Key` header carries."},
    )


class SocketFollowSchema(Schema):
    """Client to server: push this match's versions (`SocketEvent`), as its event stream sends them."""

    id = MESSAGE_ID
    op = fields.String(required=True, validate=validate.OneOf(["follow"]))
    from_ = fields.Integer(
        data_key="from",
        allow_none=True,
        metadata={"description": "The last version seen (as `Last-Event-ID`); absent or null: from the current one."},
    )


class SocketAnswerSchema(Schema):
    """Server to client: the answer to one message."""

    id = fields.String(
        required=True, allow_none=True, metadata={"description": "The message's `id` (null if unreadable)."}
    )
    status = fields.Integer(required=True, metadata={"description": "The HTTP status the move endpoint would answer."})
    replayed = fields.Boolean(metadata={"description": "Present and true when `Idempotent-Replayed` would be."})
    body = fields.Raw(
        required=True,
        metadata={
            "description": "For a move, the move endpoint's body: an `ActionResult`, or a `Problem` with the same "
            '`code`. For `follow`, `{"following": true}` (200), null (204: the match ended at `from`) or a `Problem`.'
        },
    )


class SocketEventSchema(Schema):
    """Server to client, after `follow`: one version of the match."""

    event = fields.String(required=True, validate=validate.OneOf(["version"]))
    version = fields.Integer(required=True)
    data = fields.Nested(StreamEventSchema, required=True)


MESSAGES = {
    "SocketMove": SocketMoveSchema,
    "SocketFollow": SocketFollowSchema,
    "SocketAnswer": SocketAnswerSchema,
    "SocketEvent": SocketEventSchema,
}
