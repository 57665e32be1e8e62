"""The one error shape: RFC 9457 problem details with a stable ``code``."""

from marshmallow import Schema, fields


class ProblemSchema(Schema):
    """An error answer (``application/problem+json``)."""

    type = fields.String(metadata={"description": "A URI naming the problem kind."})
    title = fields.String(metadata={"description": "Short summary of the status."})
    status = fields.Integer(metadata={"description": "The HTTP status code."})
    detail = fields.String(metadata={"description": "What went wrong, in a sentence."})
    code = fields.String(metadata={"description": "Stable machine code, e.g. `stale_state_token`."})
    rule = fields.String(metadata={"description": "On 422/403: the rule that forbids the action."})
    errors = fields.Dict(metadata={"description": "On 400 `invalid_body`: field errors by location."})
    current_state_token = fields.String(metadata={"description": "On 409: the token of the current version."})
    current_version = fields.Integer(metadata={"description": "On 409: the current version."})
