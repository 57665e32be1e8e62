"""The one error shape: RFC 9457 problem details with a stable ``code``."""

from marshmallow import Schema, fields

from service.api.problem_codes import all_codes


class ProblemSchema(Schema):
    """An error answer (``application/problem+json``)."""

    type = fields.String(required=True, metadata={"description": "A URI naming the problem kind."})
    title = fields.String(required=True, metadata={"description": "Short summary of the status."})
    status = fields.Integer(required=True, metadata={"description": "The HTTP status code."})
    detail = fields.String(required=True, metadata={"description": "What went wrong, in a sentence."})
    code = fields.String(
        required=True,
        metadata={
            "description": "Stable machine code to branch on; the catalogue is service/api/problem_codes.py.",
            "enum": list(all_codes()),
            "example": "stale_state_token",
        },
    )
    rule = fields.String(allow_none=True, metadata={"description": "On 422/403: the rule that forbids the action."})
    errors = fields.Dict(
        keys=fields.String(), metadata={"description": "On 400 `invalid_body`: field errors by location."}
    )
    current_state_token = fields.String(metadata={"description": "On 409: the token of the current version."})
    current_version = fields.Integer(metadata={"description": "On 409: the current version."})
    limit = fields.String(
        metadata={"description": "On 429: the limit that was hit, and whose budget it counts (`… per bot key`)."}
    )
    challenge_status = fields.String(metadata={"description": "On 409 `challenge_closed`: the challenge's status."})
