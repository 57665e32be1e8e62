"""Examples of the request and response bodies, shown by the OpenAPI document.

They are real answers of a two-player match of The Game (shortened: a spectator's view, the
first move), so a reader sees the shapes the schemas describe; tests/test_openapi.py checks
that each one validates against its schema.
"""

import json
from typing import Any

_MATCH_ID = "K8Bf4ufXQNI4uuiUgk7R_A"
_TOKEN_0 = f"{_MATCH_ID}.0.EKG5uBVUervh2ZNTqZ56ZQ9lkmHbKlUNzbQ1epH97yQ"
_TOKEN_1 = f"{_MATCH_ID}.1.KoNxzxabrsyuGKdKFatx0udP3fqAnKRszl-mgG4zK4w"
_OPTIONS = {"professional": False, "smaller_hands": False, "on_fire": False, "first_seat": "agree"}
_PILES = [
    {"direction": "up", "top": 1, "count": 0, "on_fire": False},
    {"direction": "up", "top": 1, "count": 0, "on_fire": False},
    {"direction": "down", "top": 100, "count": 0, "on_fire": False},
    {"direction": "down", "top": 100, "count": 0, "on_fire": False},
]
_VIEW: dict[str, Any] = {
    "piles": _PILES,
    "hand_counts": [7, 7],
    "draw_pile": 84,
    "turn": None,
    "starter_agreement": {"speaker": 0, "proposal": None, "proposer": None, "accepted": [], "proposed": []},
    "played_this_turn": 0,
    "minimum": 2,
    "cards_left": 98,
    "laid": [],
    "options": _OPTIONS,
    "over": False,
    "reason": None,
}

CREATE_MATCH = {
    "game": "the-game",
    "players": 2,
    "options": {"professional": True},
    "clock": {"per_decision_s": 5, "on_timeout": "auto", "max_consecutive_timeouts": 3},
    "house": [{"seat": 1, "bot": "heuristic"}],
}

MATCH: dict[str, Any] = {
    "match_id": _MATCH_ID,
    "game": "the-game",
    "players": 2,
    "options": _OPTIONS,
    "status": "active",
    "version": 0,
    "state_token": _TOKEN_0,
    "to_act": [0],
    "seat": None,
    "view": _VIEW,
    "outcome": None,
    "seed_sha256": "9a2db2e23f1504cd056606553ac049c5e718e8f9ce9233876df1a7a1821af885",
    "seed_supplied": False,
    "created_at": "2026-11-23T17:22:43.313Z",
    "updated_at": "2026-11-23T17:22:43.313Z",
    "clock": None,
    "house": [],
}

TIMED_MATCH_CLOCK: dict[str, Any] = {
    "control": {"per_decision_s": 5},
    "on_timeout": "auto",
    "max_consecutive_timeouts": 3,
    "remaining_ms": [3712, 5000],
    "running": [0],
    "deadline": "2026-11-23T17:22:48.313Z",
    "deadline_ms": 1795454568313,
    "consecutive_timeouts": [0, 0],
}

CREATED_MATCH: dict[str, Any] = {
    **MATCH,
    "seats": [
        {"seat": 0, "token": f"{_MATCH_ID}.0.xlcaEXyr5FDQzHwcSw1N1sPtn4W3gQiB3XCk7bwvTJc._zezSwXQcFKjW07HYR4ehg"},
        {"seat": 1, "token": f"{_MATCH_ID}.1.qPqt2kSeilwY0MBUUwJ1OP3clewz2E0gH-css4nlzTc.LkgAXSaUW_Y_4F5d9iD_0A"},
    ],
}

MATCH_LIST: dict[str, Any] = {
    "matches": [
        {
            "match_id": _MATCH_ID,
            "game": "the-game",
            "players": 2,
            "status": "active",
            "version": 1,
            "to_act": [1],
            "created_at": "2026-11-23T17:22:43.313Z",
            "updated_at": "2026-11-23T17:22:43.325Z",
            "winners": None,
            "clock": None,
            "house": [],
        }
    ],
    "next_cursor": "MTc5NTk0NDk2MzMyNS5LOEJmNHVmWFFOSTR1dWlVZ2s3Ul9B",
}

LEGAL_ACTIONS = {
    "match_id": _MATCH_ID,
    "game": "the-game",
    "seat": 0,
    "version": 0,
    "state_token": _TOKEN_0,
    "to_act": [0],
    "actions": [{"type": "propose_starter", "seat": 0}, {"type": "propose_starter", "seat": 1}],
}

ACTION_REQUEST = {"state_token": _TOKEN_0, "action": {"type": "propose_starter", "seat": 0}}

ACTION_RESULT: dict[str, Any] = {
    "match_id": _MATCH_ID,
    "game": "the-game",
    "state_token": _TOKEN_1,
    "version": 1,
    "seat": 0,
    "events": [{"type": "starter_proposed", "seat": 0, "starter": 0}],
    "view": {
        **_VIEW,
        "starter_agreement": {"speaker": 1, "proposal": 0, "proposer": 0, "accepted": [0], "proposed": [0]},
        "seat": 0,
        "hand": [22, 26, 31, 32, 38, 90, 98],
    },
    "kind": "move",
    "legal_actions": [],
    "to_act": [1],
    "status": "active",
    "outcome": None,
    "clock": None,
    "house": [],
}

RESIGNED: dict[str, Any] = {
    **ACTION_RESULT,
    "state_token": f"{_MATCH_ID}.2.f3Yx0kL0Wm6Yf9V8mQe9oQ1K2aTnJm3yH1tFhD3z5sE",
    "version": 2,
    "kind": "resign",
    "events": [{"type": "resigned", "seat": 0}],
    "to_act": [],
    "status": "finished",
    "outcome": {
        "scores": [0, 0],
        "ranks": [2, 1],
        "winners": [],
        "detail": {
            "end_reason": "resigned",
            "seat": 0,
            "score_means": "no scores: the match ended (resigned) before its rules scored it",
        },
    },
}
"""A seat of a cooperative game resigned: the table loses (in a competitive game the others win)."""

ABORTED: dict[str, Any] = {
    **MATCH,
    "status": "aborted",
    "version": 1,
    "state_token": _TOKEN_1,
    "to_act": [],
    "seat": 0,
    "seed": "5b0c1c3ad86a5b0f6f1d7c1fcb8f3e4e9a4f3b8f9d1c2e3a4b5c6d7e8f901234",
}

STREAM_EVENT: dict[str, Any] = {
    "match_id": _MATCH_ID,
    "game": "the-game",
    "version": 1,
    "status": "active",
    "to_act": [1],
    "seat": None,
    "view": {
        **_VIEW,
        "starter_agreement": {"speaker": 1, "proposal": 0, "proposer": 0, "accepted": [0], "proposed": [0]},
    },
    "outcome": None,
    "events": [{"type": "starter_proposed", "seat": 0, "starter": 0}],
    "kind": "move",
    "updated_at": "2026-11-23T17:22:43.325Z",
}

STREAM = f": open\n\nid: 1\nevent: version\ndata: {json.dumps(STREAM_EVENT, separators=(',', ':'))}\n\n: keep-alive\n\n"
"""The start of a stream answer, as it reads on the wire."""

VALIDATION_RESULT = {
    "match_id": _MATCH_ID,
    "game": "the-game",
    "seat": 0,
    "version": 1,
    "state_token": _TOKEN_1,
    "legal": False,
    "code": "not_your_turn",
    "detail": "Seat 0 owes no decision now; waiting for seat(s) 1.",
    "rule": "turn order",
}

HISTORY = {
    "match_id": _MATCH_ID,
    "game": "the-game",
    "total": 1,
    "next_cursor": None,
    "entries": [
        {
            "version": 1,
            "seat": 0,
            "kind": "move",
            "action": {"type": "propose_starter", "seat": 0},
            "events": [{"type": "starter_proposed", "seat": 0, "starter": 0}],
            "at": "2026-11-23T17:22:43.325Z",
        }
    ],
}

GAME = {
    "id": "the-game",
    "title": "The Game",
    "min_players": 1,
    "max_players": 2,
    "cooperative": True,
    "options": [
        {
            "name": "professional",
            "kind": "bool",
            "default": False,
            "description": "Play at least three cards a turn instead of two while the draw pile lasts.",
        }
    ],
    "options_schema": {
        "type": "object",
        "additionalProperties": False,
        "properties": {"professional": {"type": "boolean", "default": False}},
    },
    "action_types": ["play", "end_turn"],
    "action_schemas": {
        "play": {
            "type": "object",
            "required": ["type", "card", "pile"],
            "additionalProperties": False,
            "properties": {"type": {"const": "play"}, "card": {"type": "integer"}, "pile": {"type": "integer"}},
        },
        "end_turn": {
            "type": "object",
            "required": ["type"],
            "additionalProperties": False,
            "properties": {"type": {"const": "end_turn"}},
        },
    },
    "by_players": [
        {"players": 1, "defaults": {"professional": False}, "allowed": {"professional": [False, True]}},
        {"players": 2, "defaults": {"professional": False}, "allowed": {"professional": [False, True]}},
    ],
}

HEALTH = {"status": "ok", "store": "redis", "games": "ok"}

KEY_SET = {
    "keys": [
        {
            "kty": "OKP",
            "crv": "Ed25519",
            "x": "FGmFiEf_YIMjf8Sy_iujzc7YLjEcPlE3fdJbbgCng3g",
            "kid": "wfgjvYkL3-NYECaoCn5mD3d11YMBtS4uQ93TFDqRIms",
            "alg": "EdDSA",
            "use": "sig",
        }
    ]
}

REPLAY = {
    "format": "game-referee/replay",
    "format_version": 2,
    "match_id": "8VBZC1eThvMPfljhiocuiA",
    "game": "the-game",
    "engine": {
        "name": "game-referee",
        "version": "0.1.0",
        "data_sha256": "e7536265de2f433e552437b4d93ac63c64c7285f6857d631c13f6e8e8ca1a263",
    },
    "players": 1,
    "options": _OPTIONS,
    "seed": "0000000000000000000000000000000000000000000000000000000000000001",
    "seed_sha256": "ec4916dd28fc4c10d78e287ca5d9cc51ee1ae73cbfde08c6b37324cbfaac8bc5",
    "seed_supplied": True,
    "created_at": "2026-11-23T17:22:57.527Z",
    "finished_at": "2026-11-23T17:22:57.571Z",
    "version": 1,
    "time_control": None,
    "house": [],
    "actions": [
        {
            "version": 1,
            "seat": 0,
            "kind": "move",
            "action": {"type": "play", "card": 11, "pile": 0},
            "events": [{"type": "played", "seat": 0, "card": 11, "pile": 0, "backwards": False, "fire": False}],
            "at": "2026-11-23T17:22:57.537Z",
        }
    ],
    "outcome": {
        "scores": [83],
        "ranks": [1],
        "winners": [],
        "detail": {
            "cards_left": 83,
            "won": False,
            "brilliant": False,
            "end_reason": "stuck",
            "score_means": "cards not laid (hands plus draw pile); 0 beats the game",
        },
    },
    "signature": {
        "algorithm": "Ed25519",
        "key_id": "wfgjvYkL3-NYECaoCn5mD3d11YMBtS4uQ93TFDqRIms",
        "value": "uKeecCBrisNmZ7simXv2u1S_awINRrN84Zoy9SEGc6C9e6vSRzYesN7HTfJv1gs9MptxwJboj_woy-ta3nqtBQ",
    },
}
"""Shortened to its first action: the signature is of the whole replay."""
