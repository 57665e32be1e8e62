"""Must not type-check (tests/clients/test_python_types.py): every line marked "mypy rejects
this line" is an action a client author got wrong, and ``mypy --strict`` must say so there."""

from game_referee_client.models import ActionRequest, TheGameEndTurnAction, TheGamePlayAction

misspelled_type = TheGamePlayAction(type_="plya", card=17, pile=0)  # mypy rejects this line
misspelled_field = TheGamePlayAction(tpye="play", card=17, pile=0)  # mypy rejects this line
a_plain_dict = ActionRequest(state_token="t", action={"type": "play", "card": 17})  # mypy rejects this line


def card_of(action: TheGamePlayAction | TheGameEndTurnAction) -> int:
    if action.type_ == "end_turn":
        return action.card  # mypy rejects this line: an end_turn has no card
    if action.type_ == "pass":  # mypy rejects this line: The Game has no "pass"
        return 0
    return action.card
