"""The web pages a browser gets: for now the landing page at ``/``.

Plain Flask (not the API blueprint machinery): pages are not part of the OpenAPI document.
"""

from __future__ import annotations

from flask import Blueprint, render_template

from service.engine.registry import games

blp = Blueprint("web", __name__, template_folder="templates")


@blp.get("/")
def landing() -> str:
    """What this server is, and links to the interactive docs, the catalogue and the spec."""
    return render_template("landing.html", games=games().values())
