"""What the referee refuses, as plain exceptions: a stable ``code``, a sentence for a person,
and fields that help the client (``current_state_token``, ``rule``…). Nothing here knows
about HTTP; :mod:`service.api.errors` maps each kind to a status in one table. The tree::

    RefereeError
    ├── InvalidRequest      the request names something malformed (a state token it cannot read)
    ├── NotAuthenticated    no credential, or one that is not a seat of this match
    ├── NotPermitted        the seat owes no decision now
    ├── NotFound            no such game or match (or the store lost part of it)
    ├── Conflict            the match moved on, is over, or is not in the state asked for
    ├── Refused             against the rules, the options or an earlier request
    ├── TooMany             over a per-bot cap (open challenges, event streams); names the limit
    └── Unavailable         the store cannot take it now; retry after ``retry_after`` seconds
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

from service.store import MatchDamaged, StoreUnavailable

T = TypeVar("T")
P = ParamSpec("P")
log = logging.getLogger("referee")


class RefereeError(Exception):
    """A request the referee refuses; ``extra`` holds fields the answer carries besides the
    code and the sentence."""

    def __init__(self, code: str, detail: str, **extra: Any) -> None:
        super().__init__(detail)
        self.code = code
        self.detail = detail
        self.extra = extra


class InvalidRequest(RefereeError):
    """The request carries something malformed (a state token this referee did not issue)."""


class NotAuthenticated(RefereeError):
    """No credential where one is needed, or one that is not a seat of this match."""


class NotPermitted(RefereeError):
    """The seat is known but may not do this now (it owes no decision)."""


class NotFound(RefereeError):
    """No such game or match, or a match the store lost part of."""


class Conflict(RefereeError):
    """The match is not in the state the request assumed: moved on, over, not finished."""


class Refused(RefereeError):
    """The request is well formed but the rules, the options or an earlier request with the
    same idempotency key refuse it."""


class TooMany(RefereeError):
    """The caller holds as many of something as it may (open challenges, event streams); it
    may retry after ``retry_after`` s, once it holds fewer. ``limit`` (in ``extra``) names the
    cap."""

    def __init__(self, code: str, detail: str, retry_after: int = 1, **extra: Any) -> None:
        super().__init__(code, detail, **extra)
        self.retry_after = retry_after


class Unavailable(RefereeError):
    """The store cannot take the request now; it may be retried after ``retry_after`` s."""

    def __init__(self, code: str, detail: str, retry_after: int = 1, **extra: Any) -> None:
        super().__init__(code, detail, **extra)
        self.retry_after = retry_after


def from_store(call: Callable[P, T], *args: P.args, **kwargs: P.kwargs) -> T:
    """``call(*args, **kwargs)``, a store operation, with the store's failures as the referee answers them:
    a store that cannot take it now is :class:`Unavailable`; a match whose record and log
    disagree is never served or continued (:class:`NotFound` ``match_damaged``)."""
    try:
        return call(*args, **kwargs)
    except StoreUnavailable as exc:
        raise Unavailable("store_unavailable", "The match store cannot take this now; retry shortly.") from exc
    except MatchDamaged as exc:
        log.error("refusing a damaged match: %s", exc)
        raise NotFound(
            "match_damaged",
            "The store lost part of this match (its log does not match its version); it cannot be served or continued.",
        ) from exc
