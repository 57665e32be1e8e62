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

from typing import Any

import redis
from redis.commands.core import Script
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from service.store.batches import Batches, Pending
from service.store.processes import current_pid

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


class DirectConnections:
    """Commands to one Redis on connections of the store's own, those that arrive together
    sent together (:class:`service.store.batches.Batches`): the leader writes every queued
    command in one write on one connection and reads their replies in order. A node
    answering several moves at once thus sends their commits two or three to a write, and
    Redis reads them in one read and answers them in one write: fewer system calls and
    wake-ups on both sides of the connection than a round trip per commit.

    Safe to share between greenlets and threads. A process forked from this one does not
    reuse its parent's sockets (they are left to the parent)."""

    def __init__(self, client: redis.Redis) -> None:
        self._pool = client.connection_pool
        self._idle: list[Any] = []
        self._pid = current_pid()
        self._batches: Batches[tuple[Any, ...]] = Batches(self._send)

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
            return self._batches.submit(command)
        except _DROPPED:
            return self._batches.submit(command)

    def _send(self, batch: list[Pending[tuple[Any, ...]]]) -> None:
        """Every command of ``batch`` in one write, then their replies in order. An error
        reply is its command's alone, and leaves the connection healthy; a connection that
        fails fails every command not yet answered."""
        connection = self._take()
        sent: list[Pending[tuple[Any, ...]]] = []
        chunks: list[bytes] = []
        try:
            for pending in batch:
                try:
                    chunks += pack(pending.item, connection)
                except redis.DataError as error:  # an argument the client cannot send either
                    pending.fail(error)
                else:
                    sent.append(pending)
            if sent:
                connection.send_packed_command([b"".join(chunks)], check_health=False)
            for pending in sent:
                try:
                    pending.answer(connection.read_response())
                except ResponseError as error:
                    pending.fail(error)
        except _DROPPED:
            connection.disconnect()
            raise
        except BaseException as error:  # a greenlet killed mid-read: the replies are still on the wire
            connection.disconnect()
            lost = RedisConnectionError(f"connection closed mid-reply: {error!r}")
            for pending in sent:
                if not pending.settled:
                    pending.fail(lost)  # the others' callers send theirs again
            raise
        self._idle.append(connection)

    def _take(self) -> Any:
        if current_pid() != self._pid:
            self._idle, self._pid = [], current_pid()
        try:
            return self._idle.pop()
        except IndexError:
            return self._pool.make_connection()
