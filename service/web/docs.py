"""``/docs``: the OpenAPI document rendered by Swagger UI, served from this server.

Swagger UI 5 (the first to render OpenAPI 3.1) comes from the ``flask-swagger-ui`` package,
which carries Swagger UI's own distribution (its ``dist/`` folder, with its ``VERSION`` and
Apache-2.0 ``LICENSE``): nothing is fetched from a CDN, so the page works offline. Only the
files are used, not that package's blueprint, whose page starts Swagger UI from an inline
script: ``static/docs/start.js`` does it here, so the page runs under a Content-Security-Policy
that allows scripts from this server only.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

from flask import Blueprint, Response, render_template, send_from_directory

from service.api.headers import STRICT_PAGE_POLICY

DOCS_HEADERS = {"Content-Security-Policy": STRICT_PAGE_POLICY}
"""The page's stricter policy (every other security header comes from
:mod:`service.api.headers`, for every answer): Swagger UI needs no inline style or script (its
icons are ``data:`` images in its stylesheet)."""

SWAGGER_UI = Path(str(resources.files("flask_swagger_ui") / "dist"))
"""Swagger UI's distribution: ``swagger-ui-bundle.js``, ``swagger-ui.css``, ``VERSION``, ``LICENSE``."""

blp = Blueprint(
    "docs", __name__, template_folder="templates", static_folder="static/docs", static_url_path="/docs/static"
)


def swagger_ui_version() -> str:
    """The version of the Swagger UI this page serves (``5.34.0``)."""
    return (SWAGGER_UI / "VERSION").read_text().strip().removeprefix("v")


@blp.get("/docs")
def docs() -> Response:
    """Every operation of ``/openapi.json``, with "Try it out" against this server."""
    html = render_template("docs.html", swagger_ui_version=swagger_ui_version())
    return Response(html, mimetype="text/html", headers=DOCS_HEADERS)


@blp.get("/docs/assets/<path:filename>")
def assets(filename: str) -> Response:
    """Swagger UI's own files, from the installed package."""
    return send_from_directory(SWAGGER_UI, filename, max_age=3600)
