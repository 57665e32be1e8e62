"""Examples of the bodies of ``/v1/bots…`` and ``/v1/challenges…``, shown by the OpenAPI
document (real answers, shortened); tests/api/test_openapi.py checks each against its schema."""

from typing import Any

_OPTIONS = {"professional": False, "smaller_hands": False, "on_fire": False, "first_seat": "agree"}

REGISTER = {"name": "alice", "description": "Plays The Game, carefully.", "owner": "Alice Liddell"}
REGISTERED = {
    "name": "alice",
    "key": "rbk_yly4oL5iKENo07Xmg1iGtZAQ2sF1uGuN3lf3GEYvhX8",
    "description": "Plays The Game, carefully.",
    "owner": "Alice Liddell",
    "created": "2026-11-28T03:37:31.696Z",
}
PROFILE: dict[str, Any] = {
    "name": "alice",
    "description": "Plays The Game, carefully.",
    "owner": "Alice Liddell",
    "created": "2026-11-28T03:37:31.696Z",
    "online": True,
    "matches_played": 12,
    "faults": {"timeout": 1},
    "ratings": [],
}
AUTO_ACCEPT = {"games": ["the-game"], "opponents": ["bob"]}
OWN_PROFILE = PROFILE | {"auto_accept": AUTO_ACCEPT}
UPDATE = {"description": "Plays The Game, boldly.", "auto_accept": AUTO_ACCEPT}
KEY = {"key": "rbk_Qe3m0bE6cQzq2m1y8C5eVbJ1dH4n7yWmZr0aT2xk9Lc"}
BOT_LIST = {"bots": [PROFILE], "next_cursor": None}
CREATE_CHALLENGE = {"game": "the-game", "players": 2, "opponents": ["bob"], "seats": "in_order"}
CHALLENGE = {
    "id": "Cvf_cfSjyD6R4BkR",
    "game": "the-game",
    "players": 2,
    "options": _OPTIONS,
    "time_control": None,
    "seats": "in_order",
    "challenger": "alice",
    "opponents": ["bob"],
    "accepted": [],
    "status": "open",
    "created": "2026-11-28T03:37:31.699Z",
    "expires_at": "2026-11-28T03:38:31.699Z",
    "match_id": None,
}
ACCEPTED = CHALLENGE | {"accepted": ["bob"], "status": "accepted", "match_id": "D9wBvFRiRCnmOi8ziIgsvA"}
EVENT = {
    "id": "3",
    "type": "match_started",
    "match_id": "D9wBvFRiRCnmOi8ziIgsvA",
    "game": "the-game",
    "seat": 1,
    "seat_token": "D9wBvFRiRCnmOi8ziIgsvA.1.bJ89ZmJTdba9jfVFONnx6Ks0BVjK5L9rcovdA_1-Um4.JcfmHKkdQ62yr-zRobNb4g",
    "players": 2,
    "opponents": ["alice"],
    "time_control": None,
    "watch_url": "/watch/D9wBvFRiRCnmOi8ziIgsvA",
    "challenge_id": "Cvf_cfSjyD6R4BkR",
}
STREAM = (
    'id: 1\nevent: challenge\ndata: {"id":"1","type":"challenge","challenge":{...}}\n\n'
    ": keep-alive\n\n"
    'id: 3\nevent: match_started\ndata: {"id":"3","type":"match_started","match_id":"D9wBvFRiRCnmOi8ziIgsvA",...}\n\n'
)
