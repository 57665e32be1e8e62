"""Marshmallow schemas of the HTTP request and response bodies (the API's edge only)."""

from schemas.games import GameListSchema, GameSchema
from schemas.matches import (
    ActionRequestSchema,
    ActionResultSchema,
    CreatedMatchSchema,
    CreateMatchSchema,
    HistoryQuerySchema,
    HistorySchema,
    LegalActionsSchema,
    ListMatchesQuerySchema,
    MatchListSchema,
    MatchSchema,
    ValidationResultSchema,
)
from schemas.ops import HealthSchema
from schemas.problems import ProblemSchema
from schemas.replays import KeySetSchema, ReplaySchema

__all__ = [
    "ActionRequestSchema",
    "ActionResultSchema",
    "CreateMatchSchema",
    "CreatedMatchSchema",
    "GameListSchema",
    "GameSchema",
    "HealthSchema",
    "HistoryQuerySchema",
    "HistorySchema",
    "KeySetSchema",
    "LegalActionsSchema",
    "ListMatchesQuerySchema",
    "MatchListSchema",
    "MatchSchema",
    "ProblemSchema",
    "ReplaySchema",
    "ValidationResultSchema",
]
