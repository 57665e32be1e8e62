"""The account and challenge calls of the referee's API, as a bot makes them with its key
(``Authorization: Bearer <key>``), on top of the arena's client: the same pooled connections,
the same waiting out of 429 and 503 as ``Retry-After`` says."""

from __future__ import annotations

from typing import Any

from service.arena.client import Body, RefereeClient


class AccountClient(RefereeClient):
    """A referee at ``base_url`` as the bot whose key is ``key`` sees it (``None``: no bot yet,
    only :meth:`register` makes sense)."""

    def __init__(self, base_url: str, key: str | None = None, connections: int = 16) -> None:
        super().__init__(base_url, connections=connections)
        self.key = key

    def _as_bot(self, method: str, path: str, **kwargs: Any) -> Body:
        return self._request(method, path, self.key, **kwargs)

    def register(self, name: str, description: str | None = None, admin_token: str | None = None) -> Body:
        """``POST /v1/bots``: the new bot with its key (shown this once)."""
        body: Body = {"name": name}
        if description is not None:
            body["description"] = description
        return self._request("POST", "/v1/bots", admin_token, json=body)

    def me(self) -> Body:
        """The bot's own profile, with its server-side ``auto_accept`` rules."""
        return self._as_bot("GET", "/v1/bots/me")

    def challenge(self, body: Body) -> Body:
        """``POST /v1/challenges``: the challenge, open."""
        return self._as_bot("POST", "/v1/challenges", json=body)

    def get_challenge(self, challenge_id: str) -> Body:
        return self._as_bot("GET", f"/v1/challenges/{challenge_id}")

    def answer(self, challenge_id: str, verb: str) -> Body:
        """``accept``, ``decline`` (as a named opponent) or ``cancel`` (as the challenger)."""
        return self._as_bot("POST", f"/v1/challenges/{challenge_id}/{verb}")
