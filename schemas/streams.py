"""The live stream of a match: the answer, and the data of each server-sent event."""

from marshmallow import Schema, fields

from schemas.enums import entry_kind, match_status
from schemas.game_types import GameId, PerGame
from schemas.matches import MATCH_GAME, OutcomeSchema


class StreamEventSchema(Schema):
    """One version of the match as the caller may see it: the `data` of an SSE event
    `event: version` whose `id` is the version."""

    match_id = fields.String(required=True)
    game = GameId(required=True, metadata={"description": MATCH_GAME})
    version = fields.Integer(
        required=True, metadata={"description": "The version this event shows (also the SSE `id`)."}
    )
    status = match_status(required=True)
    to_act = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats that owe a decision at this version."}
    )
    seat = fields.Integer(
        allow_none=True, required=True, metadata={"description": "The caller's seat; null for a spectator."}
    )
    view = PerGame("View", "What the caller may see at this version.", required=True)
    events = fields.List(
        PerGame("Event", "An event of the match's game."),
        required=True,
        metadata={
            "description": "What the move that produced this version did, as the caller may see it "
            "(the same redaction as the history); empty for version 0."
        },
    )
    kind = entry_kind(
        allow_none=True,
        required=True,
        metadata={"description": "Who made the entry that produced this version; null for version 0."},
    )
    outcome = fields.Nested(
        OutcomeSchema, allow_none=True, required=True, metadata={"description": "Null while the match runs."}
    )
    seed = fields.String(metadata={"description": "The seed, once the match has ended."})
    updated_at = fields.String(required=True, metadata={"description": "When this version was made."})
    state_token = fields.String(
        metadata={"description": "A seat's state token of this version (not sent to spectators)."}
    )
    skipped = fields.Integer(
        metadata={
            "description": "Only on the first event after a resume (`Last-Event-ID`) that jumped ahead: how many "
            "versions between `Last-Event-ID` and this one were not sent (their events are in the history, "
            "from `cursor=<Last-Event-ID>`). The server sends every missed version only while it keeps them."
        }
    )


EVENT_STREAM = {
    "type": "string",
    "description": "Server-sent events (text, read line by line as it comes): each `event: version` has the "
    "version as its `id` and a `StreamEvent` as JSON in its `data`; lines starting with `:` are comments "
    "(`: keep-alive`).",
}
"""The stream answer's own schema: text that a client reads as it comes, not one JSON document
(a generated client returns it as a string; it decodes each ``data`` as a ``StreamEvent``)."""
