"""The ``referee`` command: ``serve`` the API, ``openapi --write/--check`` the spec,
``verify`` a replay, ``arena`` to play bots against each other, and ``bot`` to run a bot's
account (register, challenge, connect a local bot to it)."""

from __future__ import annotations

import argparse
import difflib
import os
import sys
from pathlib import Path
from typing import Any

import orjson

DEFAULT_SPEC = Path("openapi") / "openapi.json"


def spec_bytes() -> bytes:
    """The OpenAPI document the app serves, in its committed form (sorted, indented)."""
    from service import create_app

    app = create_app({"REFEREE_SECRET": "spec", "REDIS_URL": "", "REFEREE_STORE": "memory", "REFEREE_ACCESS_LOG": "0"})
    spec = app.test_client().get("/openapi.json").get_json()
    return orjson.dumps(spec, option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS) + b"\n"


def cmd_openapi(args: argparse.Namespace) -> int:
    path = Path(args.path)
    current = spec_bytes()
    if args.write:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(current)
        print(f"wrote {path}")
        return 0
    committed = path.read_bytes() if path.exists() else b""
    if committed == current:
        print(f"{path} is up to date")
        return 0
    diff = difflib.unified_diff(
        committed.decode().splitlines(), current.decode().splitlines(), str(path), "served", lineterm=""
    )
    print("\n".join(list(diff)[:80]))
    print(f"{path} differs from the served spec: run 'referee openapi --write'", file=sys.stderr)
    return 1


def serve_bind(host: str | None, port: int | None, env: dict[str, str]) -> str:
    """Where ``referee serve`` listens: ``--host``/``--port`` when given, else ``REFEREE_BIND``,
    else 127.0.0.1:8000 (a development server is not exposed to the network by default)."""
    if host is None and port is None and env.get("REFEREE_BIND", "").strip():
        return env["REFEREE_BIND"].strip()
    return f"{host or '127.0.0.1'}:{8000 if port is None else port}"


def describe_store() -> str:
    """Where matches will live, for the start-up line: a user must see (and can change)
    the file that holds them."""
    if os.environ.get("REDIS_URL"):
        return f"Redis at {os.environ['REDIS_URL']}"
    if os.environ.get("REFEREE_STORE") == "memory":
        return "matches in memory (lost when it stops; REFEREE_STORE=memory)"
    from service.store import default_path

    path = os.environ.get("REFEREE_DB_PATH") or default_path()
    return f"matches in {path} (set REFEREE_DB_PATH to change)"


def cmd_serve(args: argparse.Namespace) -> int:
    from gunicorn.app.base import BaseApplication

    os.environ["REFEREE_BIND"] = serve_bind(args.host, args.port, dict(os.environ))
    if args.workers:
        os.environ["WEB_CONCURRENCY"] = str(args.workers)
    from service.server import gunicorn_conf  # checks the configuration; exits 2 naming a bad variable

    class Server(BaseApplication):
        def load_config(self) -> None:
            for name in dir(gunicorn_conf):
                if name in self.cfg.settings:
                    self.cfg.set(name, getattr(gunicorn_conf, name))

        def load(self) -> Any:
            from service import create_app

            return create_app()

    print(f"referee: serving on http://{gunicorn_conf.bind} with {describe_store()} (docs at /docs)", flush=True)
    Server().run()
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from service.replay import verify as verify_command

    return verify_command.run(args.source, args.key, args.skip_signature)


def cmd_arena(args: argparse.Namespace) -> int:
    from service.arena import command
    from service.server import inprocess

    return command.run(args, inprocess.serving)


def cmd_bot(args: argparse.Namespace) -> int:
    from service.botkit import command

    return command.run(args)


def cmd_ladder(args: argparse.Namespace) -> int:
    from service.botkit import ladder_command as command

    return command.run_ladder(args)


def cmd_export(args: argparse.Namespace) -> int:
    from service.botkit import ladder_command as command

    return command.run_export(args)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="referee", description="The game-referee service.")
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="serve the API (a SQLite file unless REDIS_URL is set)")
    serve.add_argument("--host", help="address to listen on (default: REFEREE_BIND, else 127.0.0.1)")
    serve.add_argument("--port", type=int, help="port to listen on (default: REFEREE_BIND, else 8000)")
    serve.add_argument(
        "--workers",
        type=int,
        default=0,
        help="worker processes (default: 2 with Redis, 1 on the SQLite file; several share the file)",
    )
    serve.set_defaults(run=cmd_serve)
    spec = sub.add_parser("openapi", help="write or check the committed OpenAPI document")
    mode = spec.add_mutually_exclusive_group(required=True)
    mode.add_argument("--write", action="store_true")
    mode.add_argument("--check", action="store_true")
    spec.add_argument("--path", default=str(DEFAULT_SPEC))
    spec.set_defaults(run=cmd_openapi)
    check = sub.add_parser("verify", help="verify a finished match's replay: signature, seed, every move, outcome")
    check.add_argument("source", help="a replay file, '-' for standard input, or its URL (…/v1/matches/<id>/replay)")
    check.add_argument("--key", action="append", default=[], help="trusted key: JWK Set file or URL, or base64url key")
    check.add_argument("--skip-signature", action="store_true", help="replay the moves without checking who signed")
    check.set_defaults(run=cmd_verify)
    arena = sub.add_parser("arena", help="play bots against each other and rate them (docs/arena.md)")
    from service.arena.command import add_arguments

    add_arguments(arena)
    arena.set_defaults(run=cmd_arena)
    bot = sub.add_parser("bot", help="a bot's account: register, challenge, connect a local bot (docs/bots.md)")
    from service.botkit.command import add_arguments as add_bot_arguments

    add_bot_arguments(bot)
    bot.set_defaults(run=cmd_bot)
    from service.botkit.ladder_command import add_export_arguments, add_ladder_arguments

    ladder = sub.add_parser("ladder", help="open and run a ladder with the admin token (docs/ladders.md)")
    add_ladder_arguments(ladder)
    ladder.set_defaults(run=cmd_ladder)
    export = sub.add_parser("export", help="write a ladder's signed replays as JSON lines (docs/ladders.md)")
    add_export_arguments(export)
    export.set_defaults(run=cmd_export)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
