"""The web pages a browser gets: the landing page at ``/`` and the watch/play page at
``/watch/<match_id>``, with their static files (``static/``: the shell's ES modules and one
drawing module per game, ``static/games/<game-id>.js``).

Plain Flask (not the API blueprint machinery): pages are not part of the OpenAPI document.
The pages are clients of the public API like any other: the server renders no match state
into them, so a page can show only what a spectator, or the seat whose token it holds, may
read. Everything they load comes from this server (no CDN, no external font), which the
Content-Security-Policy below also enforces.
"""

from __future__ import annotations

from flask import Blueprint, Response, render_template

from service.games import games

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/static")

# Scripts and everything else only from this server; drawing modules may set inline styles on
# SVG elements. No referrer, so a page's address never travels to another site.
PAGE_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
        "img-src 'self' data:; object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
}


def page(html: str) -> Response:
    return Response(html, mimetype="text/html", headers=PAGE_HEADERS)


@blp.get("/")
def landing() -> Response:
    """What this server is, links to the docs, the catalogue and the spec; the matches being
    played and a form to start one (both filled in by ``static/landing.js`` from the API)."""
    return page(render_template("landing.html", games=games().values()))


@blp.get("/watch/<match_id>")
def watch(match_id: str) -> Response:
    """The board of one match, drawn live by ``static/watch.js``. A seat token, if any, comes
    in the address's fragment (``#seat=<token>``), which browsers never send to a server."""
    return page(render_template("watch.html", match_id=match_id))
