"""The referee's HTTP API as the arena uses it: nothing here imports the referee itself.

One :class:`RefereeClient` (a pooled ``httpx`` client, shared by the runner's threads) speaks to
one referee. Busy answers (429, 503) are waited out as their ``Retry-After`` says, and every
action carries an ``Idempotency-Key``, so a retried submission is never applied twice.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from typing import Any

import httpx

from service.arena.errors import ArenaError

_RETRY_STATUSES = (429, 503)
_MAX_ATTEMPTS = 8
_DEFAULT_RETRY_AFTER_S = 0.5
_MAX_RETRY_AFTER_S = 10.0

Body = dict[str, Any]


class ApiError(ArenaError):
    """The referee refused a request: ``status`` and its problem ``code``."""

    def __init__(self, status: int, problem: Body) -> None:
        self.status = status
        self.problem = problem
        self.code = str(problem.get("code", ""))
        super().__init__(f"HTTP {status} {self.code}: {problem.get('detail', '')}".rstrip(": "))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


class RefereeClient:
    """Requests of one referee at ``base_url`` (e.g. ``http://127.0.0.1:8000``)."""

    def __init__(self, base_url: str, timeout_s: float = 30.0, connections: int = 16) -> None:
        self.base_url = base_url.rstrip("/")
        limits = httpx.Limits(max_connections=connections, max_keepalive_connections=connections)
        self._http = httpx.Client(base_url=self.base_url, timeout=timeout_s, limits=limits)

    def close(self) -> None:
        self._http.close()

    def _request(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Body:
        """The JSON answer of one request; busy answers and dropped connections are retried."""
        headers = {**kwargs.pop("headers", {}), **(_bearer(token) if token else {})}
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            try:
                response = self._http.request(method, path, headers=headers, **kwargs)
            except httpx.TransportError as exc:
                if attempt == _MAX_ATTEMPTS:
                    raise ArenaError(f"{method} {self.base_url}{path}: {exc}") from exc
                time.sleep(_DEFAULT_RETRY_AFTER_S)
                continue
            if response.status_code in _RETRY_STATUSES and attempt < _MAX_ATTEMPTS:
                time.sleep(retry_after_s(response))
                continue
            if response.is_success:
                return response.json() if response.content else {}
            raise ApiError(response.status_code, _problem(response))
        raise AssertionError("unreachable")

    def get(self, path: str, params: dict[str, str] | None = None) -> Body:
        """The JSON answer of ``GET path`` (any read of the API, e.g. a ladder's matches)."""
        return self._request("GET", path, params=params)

    def call(self, method: str, path: str, token: str | None = None, **kwargs: Any) -> Body:
        """The JSON answer of any call of the API, with ``token`` as the bearer."""
        return self._request(method, path, token, **kwargs)

    def game(self, game_id: str) -> Body:
        """One game of the catalogue (players, options, ``cooperative``)."""
        return self._request("GET", f"/v1/games/{game_id}")

    def create_match(self, body: Body) -> Body:
        """``POST /v1/matches``: the created match with every seat's token."""
        return self._request("POST", "/v1/matches", json=body)

    def match(self, match_id: str, token: str | None = None) -> Body:
        """The match as ``token``'s seat (or a spectator) sees it. Reading a timed match also
        makes the referee apply an expired deadline first."""
        return self._request("GET", f"/v1/matches/{match_id}", token)

    def legal_actions(self, match_id: str, token: str) -> Body:
        return self._request("GET", f"/v1/matches/{match_id}/legal-actions", token)

    def act(self, match_id: str, token: str, state_token: str, action: Body) -> Body:
        """Submit ``action``; the answer holds the new state and the seat's next legal actions."""
        return self._request(
            "POST",
            f"/v1/matches/{match_id}/actions",
            token,
            json={"state_token": state_token, "action": action},
            headers={"Idempotency-Key": uuid.uuid4().hex},
        )

    def resign(self, match_id: str, token: str) -> Body:
        """Resign ``token``'s seat: it is ranked last and the match ends."""
        return self._request("POST", f"/v1/matches/{match_id}/resign", token)

    def follow(self, match_id: str, token: str | None) -> MatchFollower:
        """A follower of the match's stream as ``token``'s seat, to wait for its news."""
        return MatchFollower(self._http, match_id, token)

    def replay_url(self, match_id: str) -> str:
        return f"{self.base_url}/v1/matches/{match_id}/replay"

    def watch_url(self, match_id: str) -> str:
        """The page that draws the match live in a browser."""
        return f"{self.base_url}/watch/{match_id}"


class MatchFollower:
    """Waits for a match's news on one stream (``GET /v1/matches/{id}/stream``), held open
    from one wait to the next and opened again (from the last version seen) when it breaks or
    stays silent too long; where polling would ask again and again. Not thread-safe: one per
    play."""

    def __init__(self, http: httpx.Client, match_id: str, token: str | None) -> None:
        self._http = http
        self._path = f"/v1/matches/{match_id}/stream"
        self._headers = _bearer(token) if token else {}
        self._answer: httpx.Response | None = None
        self._lines: Iterator[str] | None = None
        self.seen = -1
        """The latest version the stream has shown."""

    def wait(self, version: int, within_s: float) -> bool:
        """Wait until the match has a version after ``version`` or has ended (``True``), or
        about ``within_s`` seconds of silence passed or the stream could not be had
        (``False``). The caller reads the match after, which says what happened."""
        if self.seen > version:
            return True
        try:
            if self._lines is None:
                self._open(version, within_s)
            assert self._answer is not None and self._lines is not None
            if self._answer.status_code == 204:
                return True  # it had ended at ``version``
            if not self._answer.is_success:
                self.close()
                return False
            for line in self._lines:
                if line.startswith("id: "):
                    self.seen = max(self.seen, int(line[4:]))
                    if self.seen > version:
                        return True
        except (httpx.HTTPError, ValueError):
            self.close()
            return False
        self.close()
        return True  # the stream ended with the match

    def _open(self, version: int, within_s: float) -> None:
        headers = {**self._headers, "Last-Event-ID": str(max(version, self.seen))}
        timeout = httpx.Timeout(self._http.timeout.connect, read=within_s)
        request = self._http.build_request("GET", self._path, headers=headers, timeout=timeout)
        self._answer = self._http.send(request, stream=True)
        self._lines = self._answer.iter_lines()

    def close(self) -> None:
        if self._answer is not None:
            self._answer.close()
        self._answer, self._lines = None, None


def retry_after_s(response: httpx.Response, longest_s: float = _MAX_RETRY_AFTER_S) -> float:
    """How long a busy answer asks to wait (``Retry-After`` in seconds), within reason."""
    try:
        seconds = float(response.headers.get("Retry-After", _DEFAULT_RETRY_AFTER_S))
    except ValueError:
        seconds = _DEFAULT_RETRY_AFTER_S
    return min(max(seconds, 0.05), longest_s)


def _problem(response: httpx.Response) -> Body:
    try:
        body = response.json()
    except ValueError:
        body = None
    return body if isinstance(body, dict) else {"detail": response.text[:300]}
