"""The move's one command, sent on connections the store holds itself.

redis-py wraps each command in machinery built for any caller: a checkout from the pool
that probes the connection for unread data (under gevent a socket timeout set to zero and
back, and a failed read), the retry wrapper, the observability hooks and events, and, for a
script, the ``Script`` object's own layer. Under gevent that costs more CPU than the round
trip itself: sending the commit this way took a referee node from 886 to 800 µs of CPU per
move in ``bench/http_moves.py``, and measured alone in fresh servers (``bench/ab_moves.py``)
it is worth far more than the noise. Every other command of the store keeps the client's
full path; only the compare-and-set of a move, the one command per request, comes here,
written in RESP by :func:`pack`.

What the client's path gave that command is kept: its connections come from the client's
own settings (``socket_timeout`` included), a connection that fails is dropped and the
command sent once more on a new one, as the client's ``Retry(…, 1)`` does (safe for a
compare-and-set: a second run finds the version moved on, and the referee then finds its
own move in the log), and a script Redis lost (a restart, a promoted replica) is loaded again.
An error reply (OOM, READONLY) leaves the connection healthy: it goes back to the idle list
and the error is raised as the client would raise it.
"""

from __future__ import annotations

import threading
from typing import Any

import redis
from redis.commands.core import Script
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.processes import current_pid

_DROPPED = (RedisConnectionError, RedisTimeoutError, OSError)


def pack(command: tuple[Any, ...], connection: Any) -> list[bytes]:
    """``command`` as one RESP array of bulk strings (in a list of one, the shape
    ``send_packed_command`` takes): the bytes redis-py would send for it, text as UTF-8 (the
    client's default encoding) and integers in decimal. redis-py's general serializer runs an
    encoder call, type checks and a join per argument, which for the commit's two dozen
    arguments cost a tenth of the store's part of a move. A command with any other argument
    (a float, a memoryview, a command name holding a space) is left to ``connection``'s own
    serializer."""
    if type(command[0]) is not str or " " in command[0]:
        return connection.pack_command(*command)
    parts = [b"*%d\r\n" % len(command)]
    for argument in command:
        kind = type(argument)
        if kind is str:
            argument = argument.encode()
        elif kind is int:
            argument = b"%d" % argument
        elif kind is not bytes:
            return connection.pack_command(*command)
        parts.append(b"$%d\r\n%s\r\n" % (len(argument), argument))
    return [b"".join(parts)]


class _Waiting:
    """One caller's command on its way: its reply or error once its batch is read."""

    __slots__ = ("command", "done", "error", "leads", "reply", "woken")

    def __init__(self, command: tuple[Any, ...]) -> None:
        self.command = command
        self.done = False
        self.leads = False
        self.reply: Any = None
        self.error: BaseException | None = None
        self.woken: threading.Event | None = None

    def outcome(self) -> Any:
        if self.error is not None:
            raise self.error
        return self.reply


class DirectConnections:
    """Commands to one Redis, those that arrive together sent together.

    One caller at a time writes (the *leader*): it sends every command queued so far in
    one write on one connection and reads their replies in order. Callers that arrive
    meanwhile queue and wait; when the leader's batch is read, the first of them leads the
    next batch. A node answering several moves at once thus sends their commits two or
    three to a write, and Redis reads them in one read and answers them in one write: fewer
    system calls and wake-ups on both sides of the connection than a round trip per commit,
    where each took its own connection. A caller alone sends at once, as before.

    Safe to share between greenlets and threads (the lock and events are gevent's in a
    patched worker). A process forked from this one does not reuse its parent's sockets or
    queue (they are left to the parent)."""

    def __init__(self, client: redis.Redis) -> None:
        self._pool = client.connection_pool
        self._forked()

    def _forked(self) -> None:
        self._pid = current_pid()
        self._idle: list[Any] = []
        self._queue: list[_Waiting] = []
        self._leading = False
        self._lock = threading.Lock()

    def evalsha(self, script: Script, keys: list[str], args: list[Any]) -> Any:
        """``script`` on ``keys`` and ``args``: its reply, loading it first if Redis lost it.

        :raises redis.RedisError: as the client would raise it.
        """
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        try:
            return self.execute(command)
        except NoScriptError:
            self.execute(("SCRIPT", "LOAD", script.script))
            return self.execute(command)

    def execute(self, command: tuple[Any, ...]) -> Any:
        """One command's reply; when its connection dropped, the command is sent once more
        (on a new one)."""
        try:
            return self._exchange(command)
        except _DROPPED:
            return self._exchange(command)

    def _exchange(self, command: tuple[Any, ...]) -> Any:
        if current_pid() != self._pid:
            self._forked()
        waiting = _Waiting(command)
        with self._lock:
            self._queue.append(waiting)
            if self._leading:
                waiting.woken = threading.Event()
            else:
                self._leading = waiting.leads = True
        if not waiting.leads:
            self._wait(waiting)
            if waiting.done:
                return waiting.outcome()
        try:
            with self._lock:
                batch, self._queue = self._queue, []
            self._send(batch)
        finally:
            with self._lock:
                self._hand_over()
        return waiting.outcome()

    def _wait(self, waiting: _Waiting) -> None:
        """Until ``waiting``'s batch is read or it is its turn to lead. A caller killed while
        waiting (a timeout) leaves the queue, and hands on the lead if it had just got it."""
        assert waiting.woken is not None
        try:
            waiting.woken.wait()
        except BaseException:
            with self._lock:
                if waiting in self._queue:
                    self._queue.remove(waiting)
                if waiting.leads:
                    self._hand_over()
            raise

    def _hand_over(self) -> None:
        """The lead to the first caller queued, or to whoever comes next (lock held)."""
        if self._queue:
            following = self._queue[0]
            following.leads = True
            assert following.woken is not None
            following.woken.set()
        else:
            self._leading = False

    def _send(self, batch: list[_Waiting]) -> None:
        """Every command of ``batch`` in one write, then their replies in order. An error
        reply is its command's alone; a connection that fails fails every command not yet
        answered (each caller sends it once more)."""
        connection = self._take()
        sent: list[_Waiting] = []
        try:
            chunks = []
            for waiting in batch:
                try:
                    chunks += pack(waiting.command, connection)
                except redis.DataError as error:  # an argument the client cannot send either
                    waiting.error = error
                else:
                    sent.append(waiting)
            if sent:
                connection.send_packed_command([b"".join(chunks)], check_health=False)
            for waiting in sent:
                try:
                    waiting.reply = connection.read_response()
                except ResponseError as error:
                    waiting.error = error
                waiting.done = True
        except BaseException as error:  # dropped, or a greenlet killed mid-read
            connection.disconnect()
            lost = error if isinstance(error, _DROPPED) else RedisConnectionError(f"connection closed: {error!r}")
            for waiting in sent:
                if not waiting.done:
                    waiting.error = lost
            raise
        else:
            self._idle.append(connection)
        finally:
            for waiting in batch:
                waiting.done = True
                if waiting.woken is not None:
                    waiting.woken.set()

    def _take(self) -> Any:
        try:
            return self._idle.pop()
        except IndexError:
            return self._pool.make_connection()
