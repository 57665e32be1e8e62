"""The web pages a browser gets: the landing page at ``/`` (with the bots online), a bot's
page at ``/bots/<name>`` (with its ladders and rating charts), a ladder's page at
``/ladders/<id>`` and the watch/play page at ``/watch/<match_id>``, with their static
files (``static/``: the shell's ES modules and one drawing module per game,
``static/games/<game-id>.js``).

Plain Flask (not the API blueprint machinery): pages are not part of the OpenAPI document.
The pages are clients of the public API like any other. The server renders into them only
what a spectator may read (:mod:`service.web.summary`: the listing, a match's summary), as a
first paint that also serves a browser without JavaScript; the scripts then draw the rest,
and a seat's view only ever reaches the page of the person holding its token. Everything they
load comes from this server (no CDN, no external font), which their Content-Security-Policy
(:mod:`service.api.headers`, for every page) also enforces.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Response, current_app, render_template, request

from service.api.errors import problem_for
from service.bots.registry import levels_of
from service.errors import RefereeError
from service.games import games
from service.listing import decode_cursor
from service.web.charts import sparkline
from service.web.summary import ListingRow, MatchSummary

blp = Blueprint("web", __name__, template_folder="templates", static_folder="static", static_url_path="/static")


LISTED = 20
"""Matches on the landing page's first paint, as many as its script lists per page."""


def page(html: str, status: int = 200) -> Response:
    return Response(html, status=status, mimetype="text/html")


def _extension(name: str) -> Any:
    return current_app.extensions[name]


@blp.get("/")
def landing() -> Response:
    """What this server is, links to the docs, the catalogue and the spec; the matches being
    played (the first page, or the page ``?cursor=`` names, rendered here; ``static/landing.js``
    keeps it fresh) and a form to start one (the script's: it sends JSON)."""
    rows: list[ListingRow] = []
    next_cursor = problem = None
    online: list[dict[str, Any]] = []
    try:
        online = _extension("accounts").listing(None, LISTED, online_only=True)[0]
        listing = _extension("listing").page(None, None, decode_cursor(request.args.get("cursor", "")), LISTED)
        rows, next_cursor = [ListingRow.of(match) for match in listing["matches"]], listing["next_cursor"]
    except RefereeError as exc:  # the store cannot answer: the page still loads, and says so
        problem = exc.detail
    return page(
        render_template(
            "landing.html",
            games=games().values(),
            bots={game.id: levels_of(game.id) for game in games().values()},
            rows=rows,
            next_cursor=next_cursor,
            problem=problem,
            online=online,
        )
    )


def _result(outcome: dict[str, Any], seat: int) -> str:
    """A finished match's result for one seat, in words."""
    if outcome.get("aborted"):
        return "aborted"
    ranks = outcome.get("ranks") or []
    if seat >= len(ranks):
        return "finished"
    reason = (outcome.get("detail") or {}).get("end_reason")
    words = f"rank {ranks[seat]} of {len(ranks)}"
    return f"{words} ({reason})" if reason else words


@blp.get("/bots/<name>")
def bot_page(name: str) -> Response:
    """A bot's profile: online or not, its matches in progress (watch links) and its recent
    results (replay links). Names and descriptions are the bots' own words: escaped here as
    everywhere (Jinja's autoescape); no seat token ever reaches the page."""
    accounts, challenges = _extension("accounts"), _extension("challenges")
    try:
        profile = accounts.profile(name)
        playing, finished = challenges.bot_matches(accounts.find(name)[0])
    except RefereeError as exc:
        answer = problem_for(exc)
        html = render_template("bot.html", bot=None, problem=f"{answer.title}: {answer.detail} ({answer.code})")
        return page(html, answer.status)
    results = [
        {
            "game": r["game"],
            "seat": r["seat"],
            "match_id": r["match_id"],
            "result": _result(r["outcome"], r["seat"]),
            "replay": not r["outcome"].get("aborted"),
        }
        for r in finished
    ]
    ladders = [entry | {"chart": sparkline(entry["history"])} for entry in _extension("ladders").bot_ladders(name)]
    html = render_template("bot.html", bot=profile, playing=playing, results=results, ladders=ladders, problem=None)
    return page(html)


@blp.get("/ladders/<ladder_id>")
def ladder_page(ladder_id: str) -> Response:
    """A ladder: its leaderboard, the matches being played (watch links) and the latest
    results (replay links). Bot names are the bots' own words: escaped, as everywhere."""
    ladders = _extension("ladders")
    try:
        ladder, board = ladders.get(ladder_id), ladders.leaderboard(ladder_id)
        live, results = ladders.live(ladder_id), ladders.matches(ladder_id, None, 0, LISTED)["matches"]
    except RefereeError as exc:
        answer = problem_for(exc)
        html = render_template("ladder.html", ladder=None, problem=f"{answer.title}: {answer.detail} ({answer.code})")
        return page(html, answer.status)
    html = render_template("ladder.html", ladder=ladder, board=board, live=live, results=results, problem=None)
    return page(html)


@blp.get("/watch/<match_id>")
def watch(match_id: str) -> Response:
    """The board of one match, drawn live by ``static/watch.js`` over a first paint of its
    public summary (game, status, seats, whose turn, outcome). A seat token, if any, comes in
    the address's fragment (``#seat=<token>``), which browsers never send to a server."""
    try:
        summary, problem, status = MatchSummary.of(_extension("referee").get_match(match_id, None)), None, 200
    except RefereeError as exc:
        answer = problem_for(exc)  # what the API answers for it: the same status and words
        summary, problem, status = None, f"{answer.title}: {answer.detail} ({answer.code})", answer.status
    return page(render_template("watch.html", match_id=match_id, summary=summary, problem=problem), status)
