"""Draw each game's board to ``docs/img/<game-id>.png``, as the watch page shows it.

    .venv/bin/python docs/screenshots.py [game-id ...]    # default: every game with a module

It starts ``referee serve`` on a free port, plays a seeded match of each game with random legal
moves to the moment given in ``MOMENTS`` (a middle of the match, where there is most to see),
opens ``/watch/<match_id>`` in seat mode (so a hand shows) in Debian's Chromium, and saves the
board alone. Same seed, same picture: rerun it after changing a drawing module.
"""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the test helpers that start servers and browsers

from tests.support.browser import WatchPage, launched  # noqa: E402
from tests.support.http import MatchClient  # noqa: E402
from tests.support.servers import BIN, clean_env, free_port, running  # noqa: E402

MODULES = ROOT / "service" / "web" / "static" / "games"
IMAGES = ROOT / "docs" / "img"
SEED = "d0c5" * 16


# game id -> (players, random moves played before the picture, seat whose page it is)
MOMENTS: dict[str, tuple[int, int, int]] = {
    "the-game": (2, 14, 0),
    "halunken-und-spelunken": (4, 55, 2),
    "viaggio-al-centro-della-terra": (3, 160, 0),
    "isola-dei-vulcani": (3, 120, 1),
    "esploratore": (3, 70, 0),
}
DEFAULT_MOMENT = (2, 40, 0)

# game id -> browser window (width, height) for boards drawn wide and detailed
WINDOWS: dict[str, tuple[int, int]] = {
    "viaggio-al-centro-della-terra": (1700, 1200),
    "isola-dei-vulcani": (1700, 1200),
    "esploratore": (1700, 1200),
}
DEFAULT_WINDOW = (1200, 1000)


def drawn_games() -> list[str]:
    return sorted(path.stem for path in MODULES.glob("*.js"))


def screenshot(browser, base_url: str, client, game: str, target: Path) -> None:  # type: ignore[no-untyped-def]
    players, moves, seat = MOMENTS.get(game, DEFAULT_MOMENT)
    match = MatchClient.create(client, game, players, seed=SEED)
    version = match.play(random.Random(7), moves)["version"]
    width, height = WINDOWS.get(game, DEFAULT_WINDOW)
    context = browser.new_context(viewport={"width": width, "height": height}, device_scale_factor=1)
    try:
        watch = WatchPage(context.new_page(), base_url).open(match.created["match_id"], match.tokens[seat])
        # Not "networkidle": the page holds the match's event stream open for as long as it lives.
        watch.wait_for_version(version)
        watch.page.locator("#board svg").screenshot(path=str(target))
        assert not watch.errors, watch.errors
    finally:
        context.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", nargs="*", help="game ids (default: every game with a drawing module)")
    parser.add_argument("--out", type=Path, default=IMAGES, help="folder of the PNGs")
    args = parser.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    port = free_port()
    command = [str(BIN / "referee"), "serve", "--port", str(port)]
    env = clean_env(REFEREE_ACCESS_LOG="0", REFEREE_RATE_LIMIT="", REFEREE_SECRET="screenshots")
    with running(command, env, port) as server, launched() as browser:
        for game in args.games or drawn_games():
            target = args.out / f"{game}.png"
            screenshot(browser, server.client.base_url, server.client, game, target)
            print(target)


if __name__ == "__main__":
    main()
