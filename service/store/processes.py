"""This process's id, read from memory.

``os.getpid`` is a system call (CPython does not cache it), and the move path asks for it
several times: the store's connections and write batches check it before reusing a socket or a
queue after a fork, and (reusing this, from the HTTP edge) every Prometheus sample in
multiprocess mode checks it to notice one. The id only changes at a fork,
so it is read once and read again in the child of every ``os.fork`` (gunicorn's workers
included) by a hook the interpreter runs there.
"""

from __future__ import annotations

import os

_pid = os.getpid()


def _forked() -> None:
    global _pid
    _pid = os.getpid()


os.register_at_fork(after_in_child=_forked)


def current_pid() -> int:
    """The id of the process calling, as ``os.getpid()`` would say."""
    return _pid
