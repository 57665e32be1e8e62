"""The store's own connections for a move's compare-and-set (service/store/direct.py): one
command per commit, what the client's own path guaranteed kept (a dropped connection
replaced and the command sent once more, an error reply raised with the connection kept, a
forked process never sharing its parent's sockets)."""

from __future__ import annotations

import os
import threading

import pytest
import redis

from service.store import RedisStore
from service.store.direct import DirectConnections, pack
from service.tokens import new_match_id


def _commands(client: redis.Redis) -> dict[str, int]:
    """Calls per command so far, as Redis counts them (INFO itself left out)."""
    stats = client.info("commandstats")
    return {name: entry["calls"] for name, entry in stats.items() if name != "cmdstat_info"}


def test_a_commit_is_one_command_on_redis(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisStore(client)
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    assert store.commit(match_id, 0, b"v1", b"e1", 60).committed  # loads the script if needed
    before = _commands(client)
    assert store.commit(match_id, 1, b"v2", b"e2", 60).committed
    after = _commands(client)
    sent = {name: after[name] - before.get(name, 0) for name in after if after[name] != before.get(name, 0)}
    # Redis counts the commands a script runs too: those of the commit script (one HMGET of
    # the version and identity), and no read (the HMGET of a load) before it.
    assert sent["cmdstat_evalsha"] == 1 and sent["cmdstat_hmget"] == 1
    assert set(sent) <= {
        "cmdstat_evalsha",
        "cmdstat_hmget",
        "cmdstat_hget",
        "cmdstat_llen",
        "cmdstat_hset",
        "cmdstat_rpush",
        "cmdstat_expire",
        "cmdstat_publish",
    }


def test_a_dropped_connection_is_replaced_and_the_commit_applies_once(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    store = RedisStore(client)
    match_id = new_match_id()
    store.create(match_id, b"v0", 60)
    assert store.commit(match_id, 0, b"v1", b"e1", 60).committed
    client.client_kill_filter(_type="normal", skipme=True)  # the store's idle connection too
    assert store.commit(match_id, 1, b"v2", b"e2", 60).committed
    assert store.history(match_id, 0, 10) == [b"e1", b"e2"]
    assert store.load(match_id).version == 2


def test_an_error_reply_is_raised_and_its_connection_kept(redis_url: str) -> None:
    direct = DirectConnections(redis.Redis.from_url(redis_url))
    first = direct.execute(("CLIENT", "ID"))
    with pytest.raises(redis.ResponseError, match="REFUSED"):
        direct.execute(("EVAL", "return redis.error_reply('REFUSED for the test')", 0))
    assert direct.execute(("CLIENT", "ID")) == first


def test_a_script_redis_lost_is_loaded_again(redis_url: str) -> None:
    client = redis.Redis.from_url(redis_url)
    direct = DirectConnections(client)
    script = client.register_script("return KEYS[1] .. ARGV[1]")
    client.script_flush()
    assert direct.evalsha(script, ["a"], ["b"]) == b"ab"


def test_a_forked_process_opens_its_own_connection(redis_url: str) -> None:
    direct = DirectConnections(redis.Redis.from_url(redis_url))
    parents = direct.execute(("CLIENT", "ID"))
    reader, writer = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        try:
            os.write(writer, str(direct.execute(("CLIENT", "ID"))).encode())
        finally:
            os._exit(0)
    os.close(writer)
    childs = int(os.read(reader, 64))
    os.waitpid(child, 0)
    assert childs != parents
    assert direct.execute(("CLIENT", "ID")) == parents, "the parent's connection is untouched"


@pytest.mark.parametrize(
    "command",
    [
        ("EVALSHA", "a" * 40, 2, "m:{x}", "l:{x}", 7, b"\x00\xffrecord", "", "é", b"", -3, 10**20),
        ("SET", "k", 1.5),  # a float: left to the client's serializer
        ("CONFIG GET", "maxmemory"),  # a command name with a space: the client splits it
        ("SET", "k", True),  # a bool: the client's serializer refuses it
    ],
)
def test_commands_are_packed_as_the_client_packs_them(redis_url: str, command: tuple) -> None:
    connection = redis.Redis.from_url(redis_url).connection_pool.make_connection()
    try:
        expected = b"".join(connection.pack_command(*command))
    except redis.DataError:
        with pytest.raises(redis.DataError):
            pack(command, connection)
        return
    assert b"".join(pack(command, connection)) == expected


def test_commands_sent_at_once_each_get_their_own_reply(redis_url: str) -> None:
    """Callers that arrive while a batch is on the wire queue and go together in the next:
    every caller gets its own command's reply, an error reply or an argument the client
    cannot send stays with its own caller, and the batches share connections."""
    client = redis.Redis.from_url(redis_url)
    direct = DirectConnections(client)
    results: dict[int, object] = {}
    start = threading.Barrier(40)

    def call(n: int) -> None:
        start.wait()
        command: tuple = ("ECHO", f"caller {n}")
        if n % 7 == 3:
            command = ("EVAL", f"return redis.error_reply('REFUSED {n}')", 0)
        if n % 11 == 5:
            command = ("ECHO", True)  # refused by the packer, as by the client
        try:
            results[n] = direct.execute(command)
        except (redis.ResponseError, redis.DataError) as error:
            results[n] = error

    before = client.info("clients")["connected_clients"]
    threads = [threading.Thread(target=call, args=(n,)) for n in range(40)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    for n in range(40):
        if n % 11 == 5:
            assert isinstance(results[n], redis.DataError)
        elif n % 7 == 3:
            assert isinstance(results[n], redis.ResponseError) and f"REFUSED {n}" in str(results[n])
        else:
            assert results[n] == f"caller {n}".encode()
    assert client.info("clients")["connected_clients"] - before <= 1, "one connection carries the batches"
