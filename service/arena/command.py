"""``referee arena``: play a tournament of bots and print who is best.

Exit status: 0 every match was played to its end, 1 some match was given up (its JSON line
says why), 2 the tournament could not run (bad arguments, no referee at ``--url``), 130
interrupted (Ctrl-C: the matches under way stop at their next decision, their bots with them).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the command line is built for every ``referee`` command: import the rest on use
    from rich.console import Console
    from rich.progress import Progress

    from service.arena.client import RefereeClient
    from service.arena.runner import BotEntry, MatchRecord, Plan

ServeLocally = Callable[[int], AbstractContextManager[str]]
"""Serves a referee in this process on a port of 127.0.0.1 (0: any free one) while the block
runs, yielding its base URL; :class:`OSError` when it cannot listen there."""

DEFAULT_MATCHES = 10
DEFAULT_MOVE_TIMEOUT_S = 10.0


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--game", required=True, help="game id, e.g. the-game (GET /v1/games lists them)")
    parser.add_argument(
        "--bots",
        required=True,
        help="comma-separated: a house bot ('level1' to 'level5'; 'random' and 'heuristic' are levels 1 and 2) "
        "or a command speaking docs/arena.md's protocol (./my_bot.sh)",
    )
    parser.add_argument(
        "--matches", type=int, default=DEFAULT_MATCHES, help=f"matches to play (default {DEFAULT_MATCHES})"
    )
    parser.add_argument("--players", type=int, help="seats per match (default: one per bot, within the game's range)")
    parser.add_argument("--options", default="{}", help="the game's options as a JSON object")
    parser.add_argument("--url", help="a running referee (default: one served in this process, in memory)")
    parser.add_argument(
        "--port", type=int, help="without --url: the port of the referee served in this process (default: a free one)"
    )
    parser.add_argument("--clock", help="'per_decision_s=5' or 'initial_s=60,increment_s=1' (default: untimed)")
    parser.add_argument(
        "--on-timeout", choices=("forfeit", "auto"), default="forfeit", help="policy of a timed-out seat"
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=DEFAULT_MOVE_TIMEOUT_S,
        help=f"seconds an external bot may think in an untimed match (default {DEFAULT_MOVE_TIMEOUT_S:g})",
    )
    parser.add_argument("--out", type=Path, help="write one JSON line per match here")
    parser.add_argument("--seed", help="make the tournament reproducible: match seeds and built-in bots' choices")
    parser.add_argument("--concurrency", type=int, default=1, help="matches played at once (default 1)")
    parser.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")


@contextmanager
def _referee(args: argparse.Namespace, serve_locally: ServeLocally) -> Iterator[str]:
    """The base URL of the referee to play on: ``--url``, else one served here on ``--port``."""
    from service.arena.errors import ArenaError

    if args.url:
        if args.port is not None:
            raise ArenaError("--port chooses the in-process referee's port: it cannot go with --url")
        yield args.url
        return
    port = args.port or 0
    if not 0 <= port <= 65535:
        raise ArenaError(f"--port {port} is not a port number")
    try:
        serving = serve_locally(port)
        served = serving.__enter__()
    except OSError as exc:
        raise ArenaError(f"cannot serve on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    try:
        yield served
    finally:
        serving.__exit__(None, None, None)


def _check_builtins(bots: list[BotEntry], game_id: str) -> None:
    """Every built-in bot named exists for this game (the registry says which)."""
    from service.arena.errors import ArenaError
    from service.bots.registry import make_bot

    for bot in bots:
        if bot.command is None:
            try:
                make_bot(game_id, bot.name)
            except KeyError:
                raise ArenaError(f"--bots: {game_id} has no built-in bot {bot.name!r}") from None


def _plan(args: argparse.Namespace, game: dict[str, Any], bots: list[BotEntry]) -> Plan:

    from service.arena.errors import ArenaError
    from service.arena.runner import Plan, parse_clock, parse_options

    _check_builtins(bots, game["id"])
    players = args.players or min(max(len(bots), game["min_players"]), game["max_players"])
    if not game["min_players"] <= players <= game["max_players"]:
        raise ArenaError(
            f"{game['id']} is played by {game['min_players']}–{game['max_players']} players, not {players}"
        )
    if args.matches < 1 or args.concurrency < 1 or args.move_timeout <= 0:
        raise ArenaError("--matches, --concurrency and --move-timeout must be positive")
    options = parse_options(args.options)
    return Plan(
        game=game["id"],
        players=players,
        bots=bots,
        matches=args.matches,
        options=options,
        clock=parse_clock(args.clock, args.on_timeout),
        seed=args.seed,
        move_timeout_s=args.move_timeout,
        concurrency=args.concurrency,
    )


def _progress(console: Console, disabled: bool) -> Progress:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
    )

    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        disable=disabled,
    )


def run(args: argparse.Namespace, serve_locally: ServeLocally) -> int:
    """Play the tournament ``args`` describe against ``--url``, or against a referee that
    ``serve_locally`` starts in this process. Bots that cannot run are refused first."""
    from rich.console import Console

    from service.arena import report
    from service.arena.client import RefereeClient
    from service.arena.errors import ArenaError
    from service.arena.runner import parse_bots, run_tournament
    from service.arena.schedule import cycle

    err = Console(stderr=True, soft_wrap=True)  # messages are one line each, whatever the width
    out = Console()
    try:
        bots = parse_bots(args.bots)
        with _referee(args, serve_locally) as url:
            client = RefereeClient(url, connections=max(4, 2 * args.concurrency))
            try:
                game = client.game(args.game)
                plan = _plan(args, game, bots)
                if not args.url:
                    err.print(f"referee: in-process at {url} (matches in memory, gone when this ends)", markup=False)
                with _progress(err, args.no_progress) as progress:
                    task = progress.add_task(f"{plan.game}, {plan.players} seats", total=plan.matches)
                    records = run_tournament(
                        client,
                        plan,
                        on_done=lambda record: progress.advance(task),
                        on_start=lambda record: progress.console.print(_started(record, client), markup=False),
                    )
            finally:
                client.close()
    except ArenaError as exc:
        err.print(f"referee arena: {exc}", markup=False)
        return 2
    except KeyboardInterrupt:
        err.print("referee arena: interrupted", markup=False)
        return 130
    if args.out:
        report.write_jsonl(records, args.out)
    summaries = report.summarize(
        records,
        [bot.name for bot in plan.bots],
        bool(game.get("cooperative")),
        len(cycle(len(plan.bots), plan.players)),
    )
    report.print_table(
        out, summaries, report.title(plan.game, len(report.rated(records)), plan.players), bool(game.get("cooperative"))
    )
    return _report_problems(err, records)


def _started(record: MatchRecord, client: RefereeClient) -> str:
    """The line that says a match has started and where to watch it."""
    assert record.match_id is not None
    lineup = " vs ".join(record.seats)
    return f"match {record.index} ({lineup}): {client.watch_url(record.match_id)}"


_FAULTS_SHOWN = 10


def _report_problems(err: Console, records: list[MatchRecord]) -> int:
    """Faults are part of the results (the table counts them; here is what each one was); a
    match given up is a failure of the run."""
    faults = [(record, fault) for record in records for fault in record.faults]
    for record, fault in faults[:_FAULTS_SHOWN]:
        err.print(
            f"fault: match {record.index}, seat {fault['seat']} ({fault['bot']}): {fault['reason']}: {fault['detail']}",
            markup=False,
        )
    if len(faults) > _FAULTS_SHOWN:
        err.print(f"… and {len(faults) - _FAULTS_SHOWN} more faults (--out keeps them all)", markup=False)
    failed = [record for record in records if record.error]
    for record in failed:
        err.print(f"match {record.index} ({record.match_id}) given up: {record.error}", markup=False)
    return 1 if failed else 0
