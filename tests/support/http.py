"""Driving the API as a client would: create a match, play it with random legal actions."""

from __future__ import annotations

import random
import re
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from typing import Any

import orjson

PROBLEM_JSON = "application/problem+json"


def clear_of_minute_end(needed_s: float) -> None:
    """Wait, if need be, until a new minute has ``needed_s`` seconds left: the rate limits
    count in fixed windows of the clock's minutes, and a test whose requests straddled two
    windows would have its last ones admitted by the next window's budget."""
    if (left := 60 - time.time() % 60) < needed_s:
        time.sleep(left + 0.5)


def auth(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


@dataclass
class MatchClient:
    """One match seen through a Flask test client, with every seat's token."""

    client: Any
    created: dict[str, Any]
    moves: int = 0
    tokens: list[str] = field(init=False)
    by_seat: dict[int, str] = field(init=False)
    """Each client seat's token (a match with house seats has tokens for the others only)."""

    def __post_init__(self) -> None:
        self.tokens = [s["token"] for s in self.created["seats"]]
        self.by_seat = {s["seat"]: s["token"] for s in self.created["seats"]}

    @classmethod
    def create(
        cls, client: Any, game: str, players: int, options: dict | None = None, seed: str | None = None, **extra: Any
    ) -> MatchClient:
        body: dict[str, Any] = {"game": game, "players": players, "options": options or {}, **extra}
        if seed is not None:
            body["seed"] = seed
        response = client.post("/v1/matches", json=body)
        assert response.status_code == 201, response.get_json()
        return cls(client, response.get_json())

    @property
    def url(self) -> str:
        return f"/v1/matches/{self.created['match_id']}"

    def get(self, seat: int | None = None) -> dict[str, Any]:
        headers = auth(self.by_seat[seat]) if seat is not None else {}
        response = self.client.get(self.url, headers=headers)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def legal(self, seat: int) -> dict[str, Any]:
        response = self.client.get(f"{self.url}/legal-actions", headers=auth(self.by_seat[seat]))
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def act(self, seat: int, state_token: str, action: dict[str, Any], **headers: str) -> Any:
        return self.client.post(
            f"{self.url}/actions",
            json={"state_token": state_token, "action": action},
            headers={**auth(self.by_seat[seat]), **headers},
        )

    def post(self, path: str, seat: int) -> Any:
        """``POST <match>/<path>`` with no body as ``seat`` (resign, abort)."""
        return self.client.post(f"{self.url}/{path}", headers=auth(self.by_seat[seat]))

    def play(self, rng: random.Random, moves: int) -> dict[str, Any]:
        """Up to ``moves`` random legal moves over HTTP (fewer if the match ends); the match body."""
        match = self.get()
        for _ in range(moves):
            if match["status"] != "active":
                break
            seat = rng.choice(match["to_act"])
            legal = self.legal(seat)
            response = self.act(seat, legal["state_token"], rng.choice(legal["actions"]))
            assert response.status_code == 200, response.get_json()
            self.moves += 1
            body = response.get_json()
            match = {"status": body["status"], "to_act": body["to_act"]}
        return self.get()

    def play_to_end(self, rng: random.Random, max_moves: int = 20_000) -> dict[str, Any]:
        """Random legal play over HTTP until the match is finished; the final match body."""
        match = self.play(rng, max_moves)
        assert match["status"] != "active", "the match did not end"
        return match


@dataclass
class WireResponse:
    """The parts of a response the tests read, from a real HTTP exchange."""

    status_code: int
    headers: dict[str, str]
    data: bytes

    def get_json(self) -> Any:
        return orjson.loads(self.data) if self.data else None

    @property
    def content_type(self) -> str:
        return self.headers.get("Content-Type", "")


class WireClient:
    """A real HTTP client with the Flask test client's small interface (get, post)."""

    def __init__(self, base_url: str, timeout: float = 10) -> None:
        self.base_url = base_url
        self.timeout = timeout

    def _send(self, method: str, url: str, body: bytes | None, headers: dict[str, str]) -> WireResponse:
        request = urllib.request.Request(self.base_url + url, data=body, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return WireResponse(response.status, dict(response.headers), response.read())
        except urllib.error.HTTPError as error:
            return WireResponse(error.code, dict(error.headers), error.read())

    def get(self, url: str, headers: dict[str, str] | None = None) -> WireResponse:
        return self._send("GET", url, None, headers or {})

    def post(self, url: str, json: Any = None, headers: dict[str, str] | None = None) -> WireResponse:
        return self._send("POST", url, orjson.dumps(json), {"Content-Type": "application/json", **(headers or {})})


def cache_lookups(client: WireClient) -> dict[str, float]:
    """A server's match-cache lookups so far, by result (hit, miss, stale), from /metrics."""
    text = client.get("/metrics").data.decode()
    found = re.findall(r'^referee_match_cache_lookups_total\{result="(\w+)"\} (\S+)$', text, re.MULTILINE)
    return {result: float(value) for result, value in found}
