"""Replays of finished matches, signed, and the public key to check them with.

Both are public: a replay reveals nothing that the finished match does not (its seed is
revealed at the end), and the key is meant to be pinned by anyone who verifies replays.
"""

from __future__ import annotations

from flask import Response, current_app
from flask_smorest import Blueprint

from schemas import KeySetSchema, ReplaySchema, examples
from service.api.matches import json_response, referee
from service.replay.document import ReplaySigner, build_document

blp = Blueprint(
    "replays",
    __name__,
    url_prefix="/v1",
    description="Signed replays of finished matches, and the key that signs them.",
)


def signer() -> ReplaySigner:
    return current_app.extensions["replay_signer"]


@blp.route("/matches/<match_id>/replay")
@blp.response(200, ReplaySchema, example=examples.REPLAY)
@blp.alt_response(404, response="NOT_FOUND")
@blp.alt_response(
    409,
    response="CONFLICT",
    description="`match_not_finished`: the match is still running; `match_aborted`: it was aborted (no replay).",
)
@blp.alt_response(503, response="SERVICE_UNAVAILABLE")
@blp.doc(operationId="getReplay")
def get_replay(match_id: str) -> Response:
    """Download a finished match's signed replay: every action unredacted, the seed, the outcome.

    Check it offline with `referee verify FILE --key <the key from /v1/keys>`; docs/replay.md
    specifies the format and how to re-adjudicate it in any language.
    """
    match, game, outcome, entries = referee().finished_log(match_id)
    return json_response(signer().sign(build_document(match, game, outcome, entries)))


@blp.route("/keys")
@blp.response(200, KeySetSchema, example=examples.KEY_SET)
@blp.doc(operationId="getKeys")
def get_keys() -> dict[str, list[dict[str, str]]]:
    """The public key replays are signed with, as a JWK Set; pin it to trust replay files."""
    return signer().key_set()
