"""The contract every game engine implements.

A game is one object (a subclass of :class:`Game`) over plain data: its state is a JSON-safe
``dict`` that round-trips through JSON exactly, so the store can keep it without pickling and
any node can continue a match. Seats are the integers ``0 .. players-1``.

The referee asks, for a match in ``state``:

- :meth:`Game.to_act` — which seats owe a decision now (several when decisions are
  simultaneous or out of turn; none when the match is over);
- :meth:`Game.legal_actions` — every legal action of one seat now, each a JSON object
  ``{"type": ..., ...}``; a turn the rulebook treats as one move is split into atomic
  actions plus an explicit end-of-turn action, so the list stays small;
- :meth:`Game.apply` — check an action and perform it, returning the new state and the
  events it caused; chance and forced steps resolve inside;
- :meth:`Game.view` — what one seat (or a spectator, ``None``) may know;
- :meth:`Game.outcome` — ``None`` while the match runs, then scores, ranks and winners.

``apply`` accepts an action exactly when it is in ``legal_actions``: the base class checks
the action against its type's JSON schema (:mod:`service.engine.actions`: strict types, no
unknown fields), then membership, before calling the engine's :meth:`Game.perform`, and asks
:meth:`Game.explain` for a precise reason when it is not legal. Engines may override
:meth:`Game.check` when a cheaper direct test exists, but must call the base class's first and
keep that equivalence (each game's property tests prove it).

Events are JSON objects ``{"type": ..., ...}``. An event that only some seats may see carries
``"to": [seat, ...]``; everyone else never receives it (:meth:`Game.visible_events`).

A game names the type of its state: ``Game[State]`` for a plain JSON object, or a
``TypedDict`` of its own (``Game[HalunkenState]``), whose keys mypy then checks in the engine
and in anything that reads the state. The referee and the store never look inside a state:
to them every game is ``Game[Any]``. A state read back from the store may have been written by
an earlier version of the engine; :meth:`Game.upgrade_state` brings it to today's form.
"""

from __future__ import annotations

import abc
import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypedDict, TypeVar, cast

from service.engine.actions import ActionShapes, is_listed
from service.engine.errors import IllegalAction, InvalidOptions, NotYourTurn
from service.engine.rng import Rng

State = dict[str, Any]
"""A state as plain JSON: what the store keeps, and the state type of games without their own."""
Action = dict[str, Any]
Event = dict[str, Any]
View = dict[str, Any]

StateT = TypeVar("StateT", bound=Mapping[str, Any])
"""The state type of one game: :data:`State`, or a ``TypedDict`` (any JSON object type)."""


class Outcome(TypedDict):
    """The result of a finished match.

    ``scores[i]`` and ``ranks[i]`` belong to seat ``i``; rank 1 is best and tied seats share a
    rank. ``winners`` lists the winning seats (all seats in a won cooperative game, none in a
    lost one). ``detail`` carries the game's own breakdown (points per category, tie-breaks).
    """

    scores: list[int]
    ranks: list[int]
    winners: list[int]
    detail: dict[str, Any]


@dataclass(frozen=True)
class Option:
    """One match option, as listed in the catalogue.

    ``kind`` is ``"bool"``, ``"int"`` or ``"enum"``. ``default`` is the value when the client
    gives none; ``default_for``, when set, computes it from the player count instead (a
    two-player variant that is the default only for two players).
    """

    name: str
    kind: str
    default: Any
    description: str
    choices: tuple[Any, ...] = ()
    minimum: int | None = None
    maximum: int | None = None
    default_for: Callable[[int], Any] | None = field(default=None, compare=False)

    def default_value(self, players: int) -> Any:
        return self.default_for(players) if self.default_for else self.default

    def values(self) -> list[Any] | None:
        """Every value the option's kind admits, when there are few enough to list (≤ 64)."""
        if self.kind == "bool":
            return [False, True]
        if self.kind == "enum":
            return list(self.choices)
        if self.minimum is not None and self.maximum is not None and self.maximum - self.minimum < 64:
            return list(range(self.minimum, self.maximum + 1))
        return None

    def json_schema(self) -> dict[str, Any]:
        schema: dict[str, Any] = {"description": self.description, "default": self.default}
        if self.kind == "bool":
            schema["type"] = "boolean"
        elif self.kind == "int":
            schema["type"] = "integer"
            if self.minimum is not None:
                schema["minimum"] = self.minimum
            if self.maximum is not None:
                schema["maximum"] = self.maximum
        elif self.kind == "enum":
            schema["enum"] = list(self.choices)
        else:  # pragma: no cover - a programming error in a game definition
            raise ValueError(f"unknown option kind {self.kind!r}")
        return schema

    def validate(self, value: Any) -> Any:
        """Return ``value`` if it fits this option, else raise :class:`InvalidOptions`."""
        ok: bool
        if self.kind == "bool":
            ok = isinstance(value, bool)
        elif self.kind == "int":
            ok = (
                isinstance(value, int)
                and not isinstance(value, bool)
                and (self.minimum is None or value >= self.minimum)
                and (self.maximum is None or value <= self.maximum)
            )
        else:
            ok = any(value == c and type(value) is type(c) for c in self.choices)
        if not ok:
            raise InvalidOptions(
                "invalid_option",
                f"Option {self.name!r} does not accept {value!r}: expected {self.json_schema()}.",
            )
        return value


@dataclass(frozen=True)
class ActionType:
    """One kind of action: its ``type`` name, what it does, and its fields' JSON schemas."""

    name: str
    description: str
    fields: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)

    def json_schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {"type": {"const": self.name}}
        properties.update({k: dict(v) for k, v in self.fields.items()})
        return {
            "type": "object",
            "description": self.description,
            "properties": properties,
            "required": ["type", *self.fields],
            "additionalProperties": False,
        }


class Game(abc.ABC, Generic[StateT]):
    """Base class of a game engine over states of type ``StateT``; see the module docstring
    for the contract."""

    id: ClassVar[str]
    title: ClassVar[str]
    min_players: ClassVar[int]
    max_players: ClassVar[int]
    cooperative: ClassVar[bool] = False
    options: ClassVar[tuple[Option, ...]] = ()
    action_types: ClassVar[tuple[ActionType, ...]] = ()

    # -- options ---------------------------------------------------------------------------

    def resolve_options(self, players: int, given: Mapping[str, Any] | None) -> dict[str, Any]:
        """Validate the player count and options, and fill in defaults.

        :raises InvalidOptions: on a player count outside the game's range, an unknown option
            or a value the option does not accept.
        """
        if not self.min_players <= players <= self.max_players:
            raise InvalidOptions(
                "invalid_player_count",
                f"{self.title} is for {self.min_players}–{self.max_players} players, not {players}.",
            )
        given = dict(given or {})
        known = {o.name: o for o in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            raise InvalidOptions(
                "unknown_option",
                f"{self.title} has no option(s) {', '.join(unknown)}; it has: {', '.join(known) or 'none'}.",
            )
        resolved = {
            name: opt.validate(given[name]) if name in given else opt.default_value(players)
            for name, opt in known.items()
        }
        self.check_options(players, resolved)
        return resolved

    def check_options(self, players: int, options: dict[str, Any]) -> None:
        """Cross-check options against each other and the player count (hook: most games have
        nothing to cross-check)."""

    # -- the contract ----------------------------------------------------------------------

    @abc.abstractmethod
    def setup(self, players: int, options: dict[str, Any], rng: Rng) -> StateT:
        """The state at the start of a match with resolved ``options``."""

    @abc.abstractmethod
    def to_act(self, state: StateT) -> list[int]:
        """The seats that owe a decision now, in seat order; empty once the match is over."""

    @abc.abstractmethod
    def legal_actions(self, state: StateT, seat: int) -> list[Action]:
        """Every legal action of ``seat`` now (empty when it owes no decision)."""

    @abc.abstractmethod
    def perform(self, state: StateT, seat: int, action: Action, rng: Rng) -> tuple[StateT, list[Event]]:
        """Carry out an action already known to be legal.

        May change ``state`` in place and return it; must not fail for a legal action.
        """

    @abc.abstractmethod
    def view(self, state: StateT, seat: int | None) -> View:
        """What ``seat`` may see (``None``: a spectator); never anything hidden from it."""

    @abc.abstractmethod
    def outcome(self, state: StateT) -> Outcome | None:
        """``None`` while the match runs; the result once it is over."""

    def upgrade_state(self, stored: State) -> StateT:
        """``stored``, a state as the store kept it, in the form this engine reads now.

        Matches outlive the code that stored them: a game that renames or reshapes its state
        overrides this to rewrite states of the earlier form (and passes today's through), so
        every state loaded from a store goes through here first. Replays need no upgrade:
        they rebuild every state from the seed.
        """
        return cast(StateT, stored)  # no earlier form: the stored JSON is today's state as is

    # -- checking, with reasons ------------------------------------------------------------

    def apply(self, state: StateT, seat: int, action: Action, rng: Rng) -> tuple[StateT, list[Event]]:
        """Check ``action`` for ``seat`` and perform it.

        The check happens before any change, so a rejected action leaves ``state`` as it was.

        :raises NotYourTurn: when ``seat`` owes no decision now.
        :raises IllegalAction: when the rules forbid the action now.
        """
        self.check(state, seat, action)
        return self.perform(state, seat, action, rng)

    def check(self, state: StateT, seat: int, action: Action) -> None:
        """Raise unless ``action`` is legal for ``seat`` now.

        An action that is exactly one of the listed legal ones, JSON types included, is
        accepted at once: listed actions have their type's shape (``tests/test_game_shapes.py``
        checks every one met in play), so the schema check could only agree, and it costs
        several times the lookup. Any other action's shape is checked against its type's
        schema before the membership test, so that test never takes ``true`` for ``1`` or
        ``17.0`` for ``17``, and a malformed action is told what is wrong with it.
        """
        to_act = self.to_act(state)
        if seat not in to_act:
            raise NotYourTurn(seat, to_act)
        legal = self.legal_actions(state, seat)
        if is_listed(action, legal):
            return
        self.action_shapes.check(action)
        if action in legal:
            return
        raise self.explain(state, seat, action)

    def explain(self, state: StateT, seat: int, action: Action) -> IllegalAction:
        """Why a well-formed ``action`` is illegal now; engines override this for precise,
        rule-naming reasons and fall back to this generic one."""
        return IllegalAction(
            "illegal_action",
            f"{action.get('type')!r} with these values is not legal now; GET legal-actions lists what is.",
        )

    @functools.cached_property
    def action_shapes(self) -> ActionShapes:
        """Every action type's schema, compiled once per game."""
        return ActionShapes(self.title, {t.name: t.json_schema() for t in self.action_types})

    # -- what each seat may see of the history ----------------------------------------------

    def redact_action(self, action: Action, actor: int, viewer: int | None) -> Action:
        """The action as ``viewer`` may see it in the history (default: public)."""
        return action

    @staticmethod
    def visible_events(events: list[Event], viewer: int | None) -> list[Event]:
        """The events ``viewer`` may see: all but those addressed ``"to"`` other seats."""
        return [e for e in events if "to" not in e or (viewer is not None and viewer in e["to"])]

    # -- catalogue ---------------------------------------------------------------------------

    def describe(self) -> dict[str, Any]:
        """The catalogue entry: ids, player counts, options with defaults, action schemas."""
        return {
            "id": self.id,
            "title": self.title,
            "min_players": self.min_players,
            "max_players": self.max_players,
            "cooperative": self.cooperative,
            "options": [
                {"name": o.name, "kind": o.kind, "default": o.default, "description": o.description}
                | ({"choices": list(o.choices)} if o.choices else {})
                for o in self.options
            ],
            "options_schema": self.options_schema(),
            "action_types": [t.name for t in self.action_types],
            "action_schemas": {t.name: t.json_schema() for t in self.action_types},
            "by_players": [self.options_for(players) for players in range(self.min_players, self.max_players + 1)],
        }

    def options_schema(self) -> dict[str, Any]:
        """The JSON schema of ``options`` at match creation."""
        return {
            "type": "object",
            "properties": {o.name: o.json_schema() for o in self.options},
            "additionalProperties": False,
        }

    def options_for(self, players: int) -> dict[str, Any]:
        """The defaults and the values each option accepts at this player count.

        Found by asking :meth:`resolve_options` itself (each value with the other options at
        their defaults), so the catalogue says what creation accepts: a default that depends
        on the player count, or a value a player count forbids, shows here.
        """
        allowed: dict[str, list[Any]] = {}
        for option in self.options:
            values = option.values()
            if values is None:
                continue
            accepted = []
            for value in values:
                try:
                    self.resolve_options(players, {option.name: value})
                except InvalidOptions:
                    continue
                accepted.append(value)
            allowed[option.name] = accepted
        return {
            "players": players,
            "defaults": {option.name: option.default_value(players) for option in self.options},
            "allowed": allowed,
        }
