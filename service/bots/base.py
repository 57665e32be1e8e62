"""What a bot is: a choice of one legal action from a view."""

from __future__ import annotations

import random
from typing import Protocol

from service.engine import Action, View


class Bot(Protocol):
    """Chooses one of ``legal`` for the seat whose ``view`` it is given."""

    def choose(self, view: View, legal: list[Action], rng: random.Random) -> Action: ...
