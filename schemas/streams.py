"""The live stream of a match: the data of each server-sent event."""

from marshmallow import Schema, fields

from schemas.game_types import any_game
from schemas.matches import STATUSES, OutcomeSchema


class StreamEventSchema(Schema):
    """One version of the match as the caller may see it: the `data` of an SSE event
    `event: version` whose `id` is the version."""

    match_id = fields.String(required=True)
    version = fields.Integer(
        required=True, metadata={"description": "The version this event shows (also the SSE `id`)."}
    )
    status = fields.String(required=True, metadata={"enum": STATUSES})
    to_act = fields.List(
        fields.Integer(), required=True, metadata={"description": "Seats that owe a decision at this version."}
    )
    seat = fields.Integer(
        allow_none=True, required=True, metadata={"description": "The caller's seat; null for a spectator."}
    )
    view = fields.Dict(required=True, metadata=any_game("View", "What the caller may see at this version."))
    events = fields.List(
        fields.Dict(metadata=any_game("Event", "An event of the match's game.")),
        required=True,
        metadata={
            "description": "What the move that produced this version did, as the caller may see it "
            "(the same redaction as the history); empty for version 0."
        },
    )
    kind = fields.String(
        allow_none=True,
        required=True,
        metadata={"description": "Who made the move that produced this version (`move`: a seat); null for version 0."},
    )
    outcome = fields.Nested(
        OutcomeSchema, allow_none=True, required=True, metadata={"description": "Null while the match runs."}
    )
    seed = fields.String(metadata={"description": "The seed, once the match has ended."})
    updated_at = fields.String(required=True, metadata={"description": "When this version was made."})
    state_token = fields.String(
        metadata={"description": "A seat's state token of this version (not sent to spectators)."}
    )
