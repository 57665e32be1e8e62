"""``referee ladder`` and ``referee export``: running ladders and taking their replays, over
the referee's HTTP API (docs/ladders.md).

- ``ladder create --url URL --id ID --game G --players N --time-control per_decision_s=5
  [--house random] …``: open a ladder; prints it.
- ``ladder pause|resume|close --url URL ID``: change its status; prints it.
- ``export --url URL --ladder ID --out replays.jsonl``: every finished match of the ladder the
  referee still lists, newest first, as its signed replay document, one per line (``referee
  verify`` checks each).

Operator calls take the admin token from ``--admin-token`` or ``REFEREE_ADMIN_TOKEN``.
Exit status 2: bad arguments, or the referee refused the request.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

ADMIN_VARIABLE = "REFEREE_ADMIN_TOKEN"


def add_ladder_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="ladder_command", required=True)
    create = sub.add_parser("create", help="open a ladder and print it")
    _add_operator(create)
    create.add_argument("--id", required=True, help="2–40 of a-z 0-9 -")
    create.add_argument("--game", required=True, help="game id (GET /v1/games lists them)")
    create.add_argument("--players", type=int, required=True, help="seats per match")
    create.add_argument("--options", default="{}", help="the game's options as a JSON object")
    create.add_argument("--time-control", required=True, help="'per_decision_s=5' or 'initial_s=60,increment_s=1'")
    create.add_argument(
        "--on-timeout", choices=("forfeit", "auto"), default="forfeit", help="policy of a timed-out seat"
    )
    create.add_argument("--house", action="append", default=[], help="a house bot as a permanent member (repeatable)")
    create.add_argument("--max-concurrent", type=int, help="matches one bot plays at once (default 1)")
    create.add_argument("--provisional-games", type=int, help="games a rating stays provisional (default 10)")
    create.add_argument("--same-owner", action="store_true", help="let two bots of one owner meet")
    create.add_argument("--fault-threshold", type=int, help="faulty matches that suspend a bot (default 3)")
    create.add_argument("--fault-window", type=int, help="recent matches the threshold counts over (default 10)")
    create.add_argument("--cool-down", type=int, dest="cool_down_s", help="seconds before a suspended bot may rejoin")
    create.set_defaults(ladder_run=_create)
    for verb in ("pause", "resume", "close"):
        change = sub.add_parser(verb, help=f"{verb} a ladder and print it")
        _add_operator(change)
        change.add_argument("ladder", help="the ladder's id")
        change.set_defaults(ladder_run=_change)


def add_export_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", required=True, help="the referee, e.g. http://127.0.0.1:8000")
    parser.add_argument("--ladder", required=True, help="the ladder's id")
    parser.add_argument("--out", required=True, type=Path, help="where to write the replays (JSON lines)")


def _add_operator(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", required=True, help="the referee, e.g. http://127.0.0.1:8000")
    parser.add_argument("--admin-token", help=f"the server's admin token (default: {ADMIN_VARIABLE})")


def run_ladder(args: argparse.Namespace) -> int:
    return _guarded(f"ladder {args.ladder_command}", lambda: args.ladder_run(args))


def run_export(args: argparse.Namespace) -> int:
    return _guarded("export", lambda: _export(args))


def _guarded(name: str, work: Any) -> int:
    from service.arena.errors import ArenaError

    try:
        return int(work())
    except ArenaError as exc:
        print(f"referee {name}: {exc}", file=sys.stderr)
        return 2


def _admin(args: argparse.Namespace) -> str:
    from service.arena.errors import ArenaError

    token = args.admin_token or os.environ.get(ADMIN_VARIABLE, "")
    if not token:
        raise ArenaError(f"no admin token: pass --admin-token or set {ADMIN_VARIABLE}")
    return str(token)


def _create(args: argparse.Namespace) -> int:
    from service.arena.errors import ArenaError
    from service.arena.runner import parse_clock, parse_options

    clock = parse_clock(args.time_control, args.on_timeout)
    if clock is None:
        raise ArenaError("a ladder is timed: give --time-control")
    body: dict[str, Any] = {
        "id": args.id,
        "game": args.game,
        "players": args.players,
        "options": parse_options(args.options),
        "time_control": clock,
        "house": args.house,
        "same_owner": args.same_owner,
    }
    for name in ("max_concurrent", "provisional_games", "fault_threshold", "fault_window", "cool_down_s"):
        if getattr(args, name) is not None:
            body[name] = getattr(args, name)
    return _print(_call(args.url, "POST", "/v1/ladders", _admin(args), json=body))


def _change(args: argparse.Namespace) -> int:
    return _print(_call(args.url, "POST", f"/v1/ladders/{args.ladder}/{args.ladder_command}", _admin(args)))


def _export(args: argparse.Namespace) -> int:
    import orjson

    from service.arena.client import RefereeClient

    client = RefereeClient(args.url)
    written = 0
    try:
        with args.out.open("wb") as out:
            cursor: str | None = "0"
            while cursor is not None:
                page = client.get(f"/v1/ladders/{args.ladder}/matches", params={"cursor": cursor})
                for match in page["matches"]:
                    out.write(orjson.dumps(client.get(match["replay_url"])) + b"\n")
                    written += 1
                cursor = page["next_cursor"]
    finally:
        client.close()
    print(f"wrote {written} replays of ladder {args.ladder} to {args.out}", file=sys.stderr)
    return 0


def _call(url: str, method: str, path: str, token: str, **kwargs: Any) -> dict[str, Any]:
    from service.arena.client import RefereeClient

    client = RefereeClient(url)
    try:
        return client.call(method, path, token, **kwargs)
    finally:
        client.close()


def _print(body: dict[str, Any]) -> int:
    import orjson

    print(orjson.dumps(body).decode())
    return 0
