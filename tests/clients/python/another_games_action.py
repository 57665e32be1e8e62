"""Must not type-check (tests/clients/test_python_types.py): every line marked "mypy rejects
this line" takes a legal action for another game's, or reads a field before the answer is
narrowed by its ``game``."""

from game_referee_client.models import (
    HalunkenUndSpelunkenLegalActions,
    IsolaDeiVulcaniLegalActions,
    TheGameEndTurnAction,
    TheGameLegalActions,
    TheGamePlayAction,
)

LegalActions = HalunkenUndSpelunkenLegalActions | IsolaDeiVulcaniLegalActions | TheGameLegalActions


def pile_of_the_first(legal: LegalActions) -> int:
    action = legal.actions[0]
    if action.type_ == "play":
        return action.pile  # mypy rejects this line: Halunken's play has no pile
    return 0


def as_the_games(legal: IsolaDeiVulcaniLegalActions) -> TheGamePlayAction | TheGameEndTurnAction:
    return legal.actions[0]  # mypy rejects this line: an action of L'Isola dei Vulcani


def ended_turn(legal: LegalActions) -> TheGameEndTurnAction | None:
    if legal.game == "isola-dei-vulcani":
        for action in legal.actions:
            if action.type_ == "end_turn":
                return action  # mypy rejects this line: Isola's end_turn, not The Game's
    if legal.game == "the-game":
        for own in legal.actions:
            if own.type_ == "end_turn":
                return own
    return None
