"""What the Python client generated from the document (openapi-python-client) promises a
client author:

- ``mypy --strict`` accepts ``python_bot.py`` and the README's snippet, which call public
  operations with a plain ``Client``, narrow a match by its class and legal actions by ``game``
  and then ``type``; it rejects each line of ``python/*.py`` marked ``mypy rejects this line``
  (a misspelled game or action type, another game's options or action, an unnarrowed view or
  action), and nothing else; the README's snippet also runs;
- on real answers of a served referee, for every game, every body decodes to that game's
  classes: a match, its creation answer and its replay (``TheGameMatch`` with ``TheGameOptions``
  and ``TheGameView``, replay actions ``TheGamePlayAction``, …), and the bodies that name their
  game besides: legal actions, an action's answer, the history, the stream's events (whose
  ``data`` the caller decodes with the class its ``game`` names). Every legal action decodes to
  its own game's class, also where two games have an action of one shape (``end_turn`` of The
  Game and of L'Isola dei Vulcani, ``pass`` of Halunken and of Viaggio).
"""

from __future__ import annotations

import importlib
import json
import random
import re
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest

from schemas.game_types import game_prefix, type_prefix
from service.games import games
from tests.clients.conftest import HERE, PYTHON_PACKAGE, VENV_BIN, marked_lines, run, succeed
from tests.support.servers import clean_env

MUST_FAIL = sorted((HERE / "python").glob("*.py"))
MARKER = "mypy rejects this line"
README = HERE.parents[1] / "README.md"


def readme_snippet(language: str) -> str:
    """The README's code block in ``language`` in its "Generated clients" section."""
    text = README.read_text()
    section = text[text.index("## Generated clients") :]
    found = re.search(rf"```{language}\n(.*?)```", section, re.S)
    assert found, f"no {language} block under 'Generated clients' in README.md"
    return found.group(1)


def test_mypy_accepts_the_bot_and_the_readme_and_rejects_each_misspelling(python_client: Path) -> None:
    folder = python_client / "checked"
    folder.mkdir()
    (folder / "python_bot.py").write_text((HERE / "python_bot.py").read_text())
    (folder / "readme.py").write_text(readme_snippet("python"))
    for source in MUST_FAIL:
        (folder / source.name).write_text(source.read_text())
    expected = set().union(*(marked_lines(source, MARKER) for source in MUST_FAIL))
    assert {name for name, _ in expected} == {source.name for source in MUST_FAIL}, "a file marks no line"
    checked = run(
        [str(VENV_BIN / "mypy"), "--strict", "--cache-dir", str(python_client / ".mypy_cache"), "checked"],
        python_client,
        env=clean_env(MYPYPATH=str(python_client)),
    )
    rejected = {
        (Path(name).name, int(line)) for name, line in re.findall(r"^(\S+\.py):(\d+): error:", checked.stdout, re.M)
    }
    assert rejected == expected, checked.stdout[-6000:]


def test_the_readme_python_snippet_runs(python_client: Path, base_url: str) -> None:
    snippet, served = re.subn(
        r"[\"']http://(127\.0\.0\.1|localhost):\d+[\"']", repr(base_url), readme_snippet("python")
    )
    assert served == 1, "the snippet names the server's address once"
    output = succeed([sys.executable, "-c", snippet], python_client, env=clean_env(PYTHONPATH=str(python_client)))
    piles, on_fire = output.rsplit("]", 1)
    assert piles.startswith("[") and on_fire.strip() == "False", output


@pytest.fixture(scope="session")
def client_package(python_client: Path) -> ModuleType:
    """The generated package, imported into this process."""
    sys.path.insert(0, str(python_client))
    return importlib.import_module(PYTHON_PACKAGE)


def operation(name: str) -> Any:
    tag, function = name.split(".")
    return importlib.import_module(f"{PYTHON_PACKAGE}.api.{tag}.{function}")


class Expect:
    """The classes a game's answers must decode to."""

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.prefix = game_prefix(games()[game_id])

    def named(self, value: Any, suffix: str) -> None:
        assert type(value).__name__ == self.prefix + suffix, (type(value).__name__, self.prefix + suffix)

    def match(self, match: Any, suffix: str = "Match") -> None:
        self.named(match, suffix)
        self.named(match.options, "Options")
        self.named(match.view, "View")
        if match.outcome is not None:
            self.outcome(match.outcome)

    def outcome(self, outcome: Any) -> None:
        assert type(outcome.detail).__name__ in (self.prefix + "OutcomeDetail", "EndedEarlyDetail")

    def own_action(self, action: Any) -> None:
        self.named(action, type_prefix(action.type_) + "Action")

    def own_event(self, event: Any) -> None:
        self.named(event, type_prefix(event.type_) + "Event")

    def named_game(self, body: Any, suffix: str) -> None:
        """A body that names its game: that game's class, whose ``game`` is this game."""
        self.named(body, suffix)
        assert body.game == self.game_id

    def action_result(self, result: Any) -> None:
        self.named_game(result, "ActionResult")
        self.named(result.view, "View")
        for event in result.events:
            self.own_event(event)
        for action in result.legal_actions:
            self.own_action(action)


SEAT_MOVES = 40
"""Moves a test plays through a seat's legal actions, decoding each answer."""


@pytest.mark.parametrize("game_id", list(games()))
def test_every_answer_decodes_to_its_games_classes(client_package: ModuleType, base_url: str, game_id: str) -> None:
    """A match played through a seat for a while (its reads, legal actions and answers), then a
    match the house plays to its end by itself (the finished match, its replay, its stream)."""
    client, models = client_package, importlib.import_module(f"{PYTHON_PACKAGE}.models")
    expect = Expect(game_id)
    anyone = client.Client(base_url=base_url, raise_on_unexpected_status=True, timeout=httpx.Timeout(120))
    players = games()[game_id].min_players
    creation = getattr(models, expect.prefix + "CreateMatch")

    created = operation("matches.create_match").sync(client=anyone, body=creation(game=game_id, players=players))
    expect.match(created, "CreatedMatch")
    match_id = created.match_id
    seats = {s.seat: client.AuthenticatedClient(base_url=base_url, token=s.token) for s in created.seats}
    expect.match(operation("matches.get_match").sync(client=seats[0], match_id=match_id))
    chooser = random.Random(game_id)
    for _ in range(SEAT_MOVES):
        match = operation("matches.get_match").sync(client=anyone, match_id=match_id)
        expect.match(match)
        if match.status.value != "active":
            break
        seat = seats[chooser.choice(match.to_act)]
        legal = operation("matches.list_legal_actions").sync(client=seat, match_id=match_id)
        answer = httpx.get(
            f"{base_url}/v1/matches/{match_id}/legal-actions", headers={"Authorization": f"Bearer {seat.token}"}
        )
        assert [action.to_dict() for action in legal.actions] == answer.json()["actions"]
        expect.named_game(legal, "LegalActions")
        for action in legal.actions:
            expect.own_action(action)
        body = models.ActionRequest(state_token=legal.state_token, action=chooser.choice(legal.actions))
        validation = operation("matches.validate_action").sync(client=seat, match_id=match_id, body=body)
        assert validation.legal and validation.game.value == game_id
        expect.action_result(operation("matches.submit_action").sync(client=seat, match_id=match_id, body=body))
    history = operation("matches.get_history").sync(client=anyone, match_id=match_id)
    expect.named_game(history, "History")
    assert history.entries
    for entry in history.entries:
        expect.named(entry, "HistoryEntry")
        for event in entry.events:
            expect.own_event(event)

    house = [models.HouseSeat(seat=seat, bot=models.HouseSeatBot.RANDOM) for seat in range(players)]
    exhibition = operation("matches.create_match").sync(
        client=anyone, body=creation(game=game_id, players=players, house=house)
    )
    expect.match(exhibition, "CreatedMatch")
    finished = until_finished(exhibition.match_id, anyone)
    expect.match(finished)
    assert finished.outcome is not None
    replay = operation("replays.get_replay").sync(client=anyone, match_id=exhibition.match_id)
    expect.named(replay, "Replay")
    expect.named(replay.options, "Options")
    expect.outcome(replay.outcome)
    assert replay.actions
    for entry in replay.actions:
        expect.own_action(entry.action)

    stream = operation("streams.stream_match").sync(client=anyone, match_id=exhibition.match_id)
    assert isinstance(stream, str)
    data = [json.loads(line.removeprefix("data: ")) for line in stream.splitlines() if line.startswith("data: ")]
    assert data, stream
    others = [getattr(models, game_prefix(game) + "StreamEvent") for key, game in games().items() if key != game_id]
    for raw in data:
        event = getattr(models, game_prefix(games()[raw["game"]]) + "StreamEvent").from_dict(raw)
        expect.named_game(event, "StreamEvent")
        expect.named(event.view, "View")
        for each in event.events:
            expect.own_event(each)
        assert event.status.value == "finished"
        for other in others:
            with pytest.raises(ValueError, match="game must match const"):
                other.from_dict(raw)


def test_the_games_end_turn_decodes_as_the_games_own(client_package: ModuleType, base_url: str) -> None:
    """The Game's ``end_turn`` has the shape of L'Isola dei Vulcani's (``{"type": "end_turn"}``):
    the answer's ``game`` says whose it is, in the legal actions and in an action's answer."""
    client, models = client_package, importlib.import_module(f"{PYTHON_PACKAGE}.models")
    anyone = client.Client(base_url=base_url, raise_on_unexpected_status=True)
    body = models.TheGameCreateMatch(game="the-game", players=2)
    created = operation("matches.create_match").sync(client=anyone, body=body)
    seats = {s.seat: client.AuthenticatedClient(base_url=base_url, token=s.token) for s in created.seats}
    to_act, answered = created.to_act, []
    for _ in range(10):  # agree on a starter, then play cards until the turn may end
        seat = seats[to_act[0]]
        legal = operation("matches.list_legal_actions").sync(client=seat, match_id=created.match_id)
        ends = [action for action in legal.actions if action.type_ == "end_turn"]
        if ends:
            assert [type(action) for action in ends + answered] == [models.TheGameEndTurnAction] * 2
            return
        request = models.ActionRequest(state_token=legal.state_token, action=legal.actions[0])
        result = operation("matches.submit_action").sync(client=seat, match_id=created.match_id, body=request)
        answered = [action for action in result.legal_actions if action.type_ == "end_turn"]
        to_act = result.to_act
    pytest.fail("The Game's turn could not be ended after ten moves")


def until_finished(match_id: str, client: Any, timeout: float = 120) -> Any:
    """The match once the house has played it to its end."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        match = operation("matches.get_match").sync(client=client, match_id=match_id)
        if match.status.value != "active":
            return match
        time.sleep(0.1)
    pytest.fail(f"{match_id} did not finish in {timeout} s")
