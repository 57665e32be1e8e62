"""The baseline: a bare Flask endpoint doing one Redis GET and one SET, nothing else.

Served by gunicorn exactly like the referee, it is the ceiling a referee move is compared to.
"""

from __future__ import annotations

import os

import redis
from flask import Flask, Response, request

app = Flask(__name__)
client = redis.Redis.from_url(os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/14"))


@app.post("/bare")
def bare() -> Response:
    key = "bench:bare:" + (request.headers.get("X-Key") or "k")
    client.get(key)
    client.set(key, request.get_data(), ex=300)
    return Response(b'{"ok":true}', mimetype="application/json")
