"""``referee bot``: a bot's account from the command line (docs/bots.md).

- ``register --url URL --name NAME``: create the bot; prints its key (shown this once).
- ``challenge --url URL --key KEY --game G OPPONENT...``: send a challenge; prints it.
- ``connect --url URL --key KEY [--accept RULES] [--max-matches N] -- COMMAND``: the bridge
  (:mod:`service.botkit.bridge`) with a command speaking docs/arena.md's protocol, or a
  built-in bot's name.

The key may come from ``REFEREE_BOT_KEY`` instead of ``--key`` (a command line is visible to
every user of the machine). Exit status 2: bad arguments, or the referee refused the request.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

KEY_VARIABLE = "REFEREE_BOT_KEY"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from service.botkit.bridge import DEFAULT_MAX_MATCHES, DEFAULT_MOVE_TIMEOUT_S

    sub = parser.add_subparsers(dest="bot_command", required=True)
    register = sub.add_parser("register", help="create a bot account and print its key")
    register.add_argument("--url", required=True, help="the referee, e.g. http://127.0.0.1:8000")
    register.add_argument("--name", required=True, help="3–32 of A-Z a-z 0-9 _ -")
    register.add_argument("--description", help="up to 280 characters, shown on the bot's page")
    register.add_argument("--admin-token", help="when the referee requires one (default: REFEREE_ADMIN_TOKEN)")
    register.set_defaults(bot_run=_register)

    challenge = sub.add_parser("challenge", help="challenge other bots to a match and print the challenge")
    _add_account(challenge)
    challenge.add_argument("--game", required=True, help="game id, e.g. the-game (GET /v1/games lists them)")
    challenge.add_argument("--players", type=int, help="seats (default: one for you and one per opponent)")
    challenge.add_argument("--options", default="{}", help="the game's options as a JSON object")
    challenge.add_argument("--time-control", help="'per_decision_s=5' or 'initial_s=60,increment_s=1' (default: none)")
    challenge.add_argument(
        "--on-timeout", choices=("forfeit", "auto"), default="forfeit", help="policy of a timed-out seat"
    )
    challenge.add_argument("--seats", choices=("random", "in_order"), help="who sits where (default: the referee's)")
    challenge.add_argument("opponents", nargs="+", metavar="OPPONENT", help="the bots challenged, by name")
    challenge.set_defaults(bot_run=_challenge)

    connect = sub.add_parser("connect", help="play every match of the account with a local bot command")
    _add_account(connect)
    connect.add_argument(
        "--accept", metavar="RULES", help="accept challenges: 'all' or e.g. 'games=the-game;opponents=alice,bob'"
    )
    connect.add_argument(
        "--max-matches",
        type=int,
        default=DEFAULT_MAX_MATCHES,
        help=f"matches played at once (default {DEFAULT_MAX_MATCHES})",
    )
    connect.add_argument(
        "--move-timeout",
        type=float,
        default=DEFAULT_MOVE_TIMEOUT_S,
        help=f"seconds the command may think in an untimed match (default {DEFAULT_MOVE_TIMEOUT_S:g})",
    )
    connect.add_argument(
        "command", nargs=argparse.REMAINDER, help="after --: the bot command (docs/arena.md), or a built-in bot"
    )
    connect.set_defaults(bot_run=_connect)


def _add_account(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--url", required=True, help="the referee, e.g. http://127.0.0.1:8000")
    parser.add_argument("--key", help=f"the bot's key (default: {KEY_VARIABLE})")


def _key(args: argparse.Namespace) -> str:
    from service.arena.errors import ArenaError

    key = args.key or os.environ.get(KEY_VARIABLE, "")
    if not key:
        raise ArenaError(f"no key: pass --key or set {KEY_VARIABLE}")
    return str(key)


def run(args: argparse.Namespace) -> int:
    from service.arena.errors import ArenaError

    try:
        return int(args.bot_run(args))
    except ArenaError as exc:
        print(f"referee bot {args.bot_command}: {exc}", file=sys.stderr)
        return 2


def _register(args: argparse.Namespace) -> int:
    from service.botkit.accounts import AccountClient

    client = AccountClient(args.url)
    try:
        created = client.register(
            args.name, args.description, args.admin_token or os.environ.get("REFEREE_ADMIN_TOKEN")
        )
    finally:
        client.close()
    print(created["key"])
    print(f"registered {created['name']}; the key is shown this once: keep it secret", file=sys.stderr)
    return 0


def _challenge(args: argparse.Namespace) -> int:
    import orjson

    from service.arena.runner import parse_clock, parse_options
    from service.botkit.accounts import AccountClient

    options = parse_options(args.options)
    body: dict[str, Any] = {
        "game": args.game,
        "players": args.players or 1 + len(args.opponents),
        "options": options,
        "opponents": args.opponents,
    }
    clock = parse_clock(args.time_control, args.on_timeout)
    if clock is not None:
        body["time_control"] = clock
    if args.seats:
        body["seats"] = args.seats
    client = AccountClient(args.url, _key(args))
    try:
        challenge = client.challenge(body)
    finally:
        client.close()
    print(orjson.dumps(challenge).decode())
    return 0


def _connect(args: argparse.Namespace) -> int:
    import random
    import shlex

    from service.arena.errors import ArenaError
    from service.arena.players import make_player
    from service.arena.runner import BotEntry
    from service.botkit.bridge import connect

    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        raise ArenaError("name the bot after --: a command speaking docs/arena.md's protocol, or a built-in bot")
    entry = BotEntry.parse(shlex.join(command))
    return connect(
        args.url,
        _key(args),
        lambda started: make_player(entry.name, entry.command, started["game"], random.Random()),
        args.accept,
        args.max_matches,
        args.move_timeout,
    )
