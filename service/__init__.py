"""The game-referee service: an HTTP referee for five board and card games.

``gunicorn 'service:create_app()'`` serves it. The factory is imported lazily so that the
engines (``service.engine``, ``service.games``) load without Flask.
"""

from __future__ import annotations

from typing import Any


def create_app(config: dict[str, Any] | None = None) -> Any:
    """Build the Flask app (see :func:`service.server.app.create_app`)."""
    from service.server.app import create_app as build

    return build(config)
