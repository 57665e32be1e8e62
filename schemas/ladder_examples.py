"""Examples of the bodies of ``/v1/ladders…``, shown by the OpenAPI document (real answers,
shortened); tests/api/test_openapi.py checks each against its schema."""

from typing import Any

CREATE = {
    "id": "viaggio-duel",
    "game": "viaggio-al-centro-della-terra",
    "players": 2,
    "time_control": {"per_decision_s": 5},
    "house": ["random", "heuristic"],
}
LADDER: dict[str, Any] = {
    "id": "viaggio-duel",
    "game": "viaggio-al-centro-della-terra",
    "players": 2,
    "options": {},
    "time_control": {"per_decision_s": 5.0},
    "max_concurrent": 1,
    "provisional_games": 10,
    "same_owner": False,
    "fault_threshold": 3,
    "fault_window": 10,
    "cool_down_s": 600,
    "status": "open",
    "created": "2026-11-28T08:52:28.462Z",
    "members": 4,
    "live_matches": 1,
}
LADDER_LIST = {"ladders": [LADDER]}
HOUSE = {"bot": "heuristic"}
MEMBERSHIP = {
    "ladder": "viaggio-duel",
    "bot": "alice",
    "active": True,
    "validated": True,
    "suspended": None,
    "playing": [{"match_id": "MQMwGi2nVERNzH8UFHriQw", "watch_url": "/watch/MQMwGi2nVERNzH8UFHriQw"}],
}
LEADERBOARD = {
    "ladder": "viaggio-duel",
    "game": "viaggio-al-centro-della-terra",
    "ranked_by": "rating",
    "rows": [
        {
            "rank": 1,
            "bot": "alice",
            "house": False,
            "active": True,
            "mu": 29.884,
            "sigma": 7.825,
            "rating": 6.409,
            "games": 2,
            "wins": 2,
            "faults": {},
            "last_match": "MQMwGi2nVERNzH8UFHriQw",
            "last_played": "2026-11-28T08:52:28.570Z",
            "provisional": True,
            "validated": True,
            "suspended": None,
            "playing": 0,
        },
        {
            "rank": 2,
            "bot": "bob",
            "house": False,
            "active": True,
            "mu": 20.1,
            "sigma": 7.9,
            "rating": -3.6,
            "games": 2,
            "wins": 0,
            "faults": {"timeout": 2},
            "last_match": "MQMwGi2nVERNzH8UFHriQw",
            "last_played": "2026-11-28T08:52:28.570Z",
            "provisional": True,
            "validated": True,
            "suspended": "2 faults (timeout) in its last 10 matches",
            "playing": 0,
        },
    ],
}
MATCHES = {
    "matches": [
        {
            "match_id": "MQMwGi2nVERNzH8UFHriQw",
            "started": "2026-11-28T08:52:26.911Z",
            "finished": "2026-11-28T08:52:28.570Z",
            "bots": ["bob", "alice"],
            "ranks": [2, 1],
            "scores": [0, 0],
            "faults": {"bob": "timeout"},
            "validation": False,
            "watch_url": "/watch/MQMwGi2nVERNzH8UFHriQw",
            "replay_url": "/v1/matches/MQMwGi2nVERNzH8UFHriQw/replay",
        }
    ],
    "live": [
        {
            "match_id": "jgQ4L6CA24SU2fl0GTaXhQ",
            "bots": ["alice", "house:heuristic"],
            "started": "2026-11-28T08:52:29.001Z",
            "validation": False,
            "watch_url": "/watch/jgQ4L6CA24SU2fl0GTaXhQ",
        }
    ],
    "next_cursor": None,
}
