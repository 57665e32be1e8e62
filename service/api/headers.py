"""The security headers of every answer: the one place that decides them.

A WSGI middleware around the whole application, so that nothing escapes it: the API's JSON,
problems, server-sent events, the action lane that answers moves in front of Flask, static
files, the web pages and ``/docs`` (whatever page is served there). Each answer gets:

- ``X-Content-Type-Options: nosniff``: a browser takes the declared type (a JSON answer or a
  static file is never run as a script or shown as a page it was not declared as);
- ``X-Frame-Options: DENY`` and a ``Content-Security-Policy`` with ``frame-ancestors
  'none'``: no page may frame this server's (clickjacking), by the old header and the new;
- ``Referrer-Policy: no-referrer``: a page's address (a watch page's, with a seat token in
  its fragment) never travels to another site;
- on HTML pages, :data:`PAGE_POLICY` (scripts, styles, images and connections from this
  server only, no plugins, no ``<base>``), and ``Permissions-Policy`` turning off the browser
  features no page here uses; on every other answer :data:`ANSWER_POLICY`, which lets
  nothing load or run should a browser open it as a document.

A response that sets a header itself keeps its value (``/docs`` sends
:data:`STRICT_PAGE_POLICY`, from here); a ``Content-Security-Policy`` without
``frame-ancestors`` gets ``frame-ancestors 'none'`` added. No page here needs another policy:
the pages and ``/docs`` load everything from this server with no inline script, so a test
checks that every page runs under :data:`PAGE_POLICY` with no violation in a browser. Strict
Transport Security belongs to whatever terminates TLS in front of the service.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

PAGE_POLICY = (
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
    "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
)
"""The Content-Security-Policy of every HTML page. Inline styles are allowed for the drawing
modules, which set them on SVG elements; inline scripts are not."""

STRICT_PAGE_POLICY = PAGE_POLICY.replace("style-src 'self' 'unsafe-inline'", "style-src 'self'")
"""The policy of a page that sets no inline style either (``/docs``: Swagger UI's styles are
all in its stylesheet), which it sends itself; every other page gets :data:`PAGE_POLICY`."""

ANSWER_POLICY = "default-src 'none'; frame-ancestors 'none'"
"""The Content-Security-Policy of everything that is not a page: nothing may load or run."""

PERMISSIONS_POLICY = "camera=(), microphone=(), geolocation=(), payment=(), usb=()"
"""Browser features no page here uses, turned off."""

_ALWAYS = (
    ("X-Content-Type-Options", "nosniff"),
    ("X-Frame-Options", "DENY"),
    ("Referrer-Policy", "no-referrer"),
)
_PAGE = (*_ALWAYS, ("Content-Security-Policy", PAGE_POLICY), ("Permissions-Policy", PERMISSIONS_POLICY))
_ANSWER = (*_ALWAYS, ("Content-Security-Policy", ANSWER_POLICY))

StartResponse = Callable[..., Any]


def secured(headers: list[tuple[str, str]]) -> list[tuple[str, str]]:
    """``headers`` with every security header the answer lacks (see the module's docstring)."""
    present: dict[str, int] = {}
    content_type = ""
    for index, (name, value) in enumerate(headers):
        lower = name.lower()
        present[lower] = index
        if lower == "content-type":
            content_type = value
    defaults = _PAGE if content_type.startswith("text/html") else _ANSWER
    for name, value in defaults:
        if name.lower() not in present:
            headers.append((name, value))
    policy_at = present.get("content-security-policy")
    if policy_at is not None:
        name, policy = headers[policy_at]
        if "frame-ancestors" not in policy:
            headers[policy_at] = (name, f"{policy.rstrip('; ')}; frame-ancestors 'none'")
    return headers


class SecurityHeaders:
    """WSGI middleware adding :func:`secured` headers to every answer of ``app``."""

    def __init__(self, app: Callable[[dict[str, Any], StartResponse], Iterable[bytes]]) -> None:
        self.app = app

    def __call__(self, environ: dict[str, Any], start_response: StartResponse) -> Iterable[bytes]:
        def start(status: str, headers: list[tuple[str, str]], exc_info: Any = None) -> Any:
            return start_response(status, secured(headers), exc_info)

        return self.app(environ, start)
