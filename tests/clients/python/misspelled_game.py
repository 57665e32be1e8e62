"""Must not type-check (tests/clients/test_python_types.py): every line marked "mypy rejects
this line" misspells a game or reads a game's view without narrowing the match first."""

from game_referee_client.models import EsploratoreMatch, HalunkenUndSpelunkenOptions, TheGameCreateMatch, TheGameMatch

halunken_options = HalunkenUndSpelunkenOptions()
misspelled = TheGameCreateMatch(game="the-gmae", players=2)  # mypy rejects this line
wrong_options = TheGameCreateMatch(game="the-game", players=2, options=halunken_options)  # mypy rejects this line


def piles(match: EsploratoreMatch | TheGameMatch) -> int:
    if match.game == "the-gmae":  # mypy rejects this line
        return 0
    return len(match.view.piles)  # mypy rejects this line: only The Game's view has piles
