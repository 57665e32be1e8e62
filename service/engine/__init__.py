"""The game contract, shared by every engine: no Flask, no Redis here."""

from service.engine.errors import EngineError, IllegalAction, InvalidOptions, NotYourTurn
from service.engine.game import Action, ActionType, Event, Game, Option, Outcome, State, View
from service.engine.rng import Rng
from service.engine.seeds import load_seed

__all__ = [
    "Action",
    "ActionType",
    "EngineError",
    "Event",
    "Game",
    "IllegalAction",
    "InvalidOptions",
    "NotYourTurn",
    "Option",
    "Outcome",
    "Rng",
    "State",
    "View",
    "load_seed",
]
