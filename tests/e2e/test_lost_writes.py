"""Redis loses moves it acknowledged, under two referee nodes (two workers each, so each node
shares one match cache between its workers), over HTTP:

- a Redis restarted from a snapshot older than its last writes (no append-only file);
- a failover of a Redis Cluster master to a replica that had not received its last writes
  (asynchronous replication, ``REFEREE_REDIS_WAIT_REPLICAS=0``, the default).

Either way the matches go back to an earlier version, and their next moves write new records
under the version numbers the lost ones had, while one node's cache still holds the lost
records and its clients the lost state tokens. The tests play the lost branch through node B,
lose it, play each match on to the same version number through node A, then send node B the
move its client was about to make on the lost record. A version number alone would let that
move commit on the lost record; the record's identity refuses it and the move is decided on
the record the store holds. Then every match is played to its end through both nodes, and
each one's stored state must be what its log gives when replayed through the engine, and its
replay must verify (``referee verify``).
"""

from __future__ import annotations

import random
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from service.match import Move
from service.store import MatchStore, RedisStore
from tests.support import cluster
from tests.support.http import PROBLEM_JSON, WireClient, WireResponse, auth, cache_lookups
from tests.support.redis_server import SnapshottingRedis
from tests.support.servers import BIN, clean_env, free_port, running
from tests.support.stored import disagreement_with_log

#: The matches played, game and seed: The Game, and Halunken und Spelunken, whose captains choose at once.
MATCHES = [("the-game", 1), ("the-game", 2), ("halunken-und-spelunken", 3), ("halunken-und-spelunken", 4)]
#: Moves played before the store's copy that survives; moves of the branch it then loses.
BEFORE, LOST = 3, 3


@dataclass
class Table:
    """One match and its clients' seat tokens, played through whichever node a step names.
    A 503 is retried after its ``Retry-After``, as a client does while Redis recovers, and
    counted in ``unavailable``."""

    match_id: str
    tokens: list[str]
    rng: random.Random
    acknowledged: dict[int, tuple[int, dict[str, Any]]] = field(default_factory=dict)
    unavailable: int = 0

    @property
    def url(self) -> str:
        return f"/v1/matches/{self.match_id}"

    def request(self, client: WireClient, method: str, path: str, body: Any = None, token: str | None = None) -> Any:
        headers = auth(token) if token else {}
        deadline = time.monotonic() + 60
        while True:
            response = client.get(path, headers) if method == "GET" else client.post(path, body, headers)
            if response.status_code != 503 or time.monotonic() > deadline:
                return response
            assert response.content_type.startswith(PROBLEM_JSON)
            self.unavailable += 1
            time.sleep(min(float(response.headers["Retry-After"]), 0.3))

    def read(self, client: WireClient) -> dict[str, Any]:
        response = self.request(client, "GET", self.url)
        assert response.status_code == 200, response.get_json()
        return response.get_json()

    def next_move(self, client: WireClient, avoid: tuple[int, dict[str, Any]] | None = None) -> Pending:
        """What a client decides on the state ``client`` shows: a seat that owes a decision,
        its state token and one of its legal actions (other than ``avoid`` when it can)."""
        seat = self.rng.choice(self.read(client)["to_act"])
        response = self.request(client, "GET", f"{self.url}/legal-actions", token=self.tokens[seat])
        assert response.status_code == 200, response.get_json()
        legal = response.get_json()
        actions = [a for a in legal["actions"] if avoid != (seat, a)] or legal["actions"]
        return Pending(seat, legal["state_token"], legal["version"], self.rng.choice(actions))

    def send(self, client: WireClient, move: Pending) -> WireResponse:
        body = {"state_token": move.state_token, "action": move.action}
        return self.request(client, "POST", f"{self.url}/actions", body, self.tokens[move.seat])

    def play(
        self, clients: list[WireClient], moves: int, avoid: tuple[int, dict[str, Any]] | None = None
    ) -> list[tuple[int, dict[str, Any]]]:
        """Up to ``moves`` moves (fewer if the match ends), the n-th through ``clients[n % len]``,
        each decided on a fresh read; the moves made as ``(seat, action)``."""
        made: list[tuple[int, dict[str, Any]]] = []
        for n in range(moves):
            client = clients[n % len(clients)]
            if self.read(client)["status"] != "active":
                break
            move = self.next_move(client, avoid if n == 0 else None)
            response = self.send(client, move)
            assert response.status_code == 200, response.get_json()
            self.acknowledged[response.get_json()["version"]] = (move.seat, move.action)
            made.append((move.seat, move.action))
        return made

    def play_to_end(self, clients: list[WireClient]) -> None:
        while self.read(clients[0])["status"] == "active":
            self.play(clients, 10)


@dataclass(frozen=True)
class Pending:
    """A move a client has decided and not sent yet."""

    seat: int
    state_token: str
    version: int
    action: dict[str, Any]


def two_nodes(stack: ExitStack, **store: str) -> list[WireClient]:
    """Two ``referee serve`` of two workers each on one store."""
    clients = []
    for _ in range(2):
        port = free_port()
        env = clean_env(
            **store,
            REFEREE_SECRET="lost-writes",
            REFEREE_ACCESS_LOG="0",
            REFEREE_RATE_LIMIT="",
            REFEREE_STORE_TIMEOUT="1",
        )
        command = [str(BIN / "referee"), "serve", "--port", str(port), "--workers", "2"]
        clients.append(stack.enter_context(running(command, env, port)).client)
    return clients


def start_tables(client: WireClient, matches: list[tuple[str, int]]) -> list[Table]:
    tables = []
    for game, seed in matches:
        response = client.post("/v1/matches", {"game": game, "players": 2, "seed": f"{seed:064x}"})
        assert response.status_code == 201, response.get_json()
        created = response.get_json()
        tables.append(Table(created["match_id"], [s["token"] for s in created["seats"]], random.Random(seed)))
    return tables


@dataclass
class LostBranch:
    """What node B and its clients keep of a branch the store lost: the move a client was
    about to send, decided on the lost record node B caches, and the first lost move."""

    table: Table
    saved_version: int
    first: tuple[int, dict[str, Any]]
    pending: Pending


def play_a_branch_to_lose(tables: list[Table], node_b: WireClient) -> list[LostBranch]:
    """``LOST`` moves of each match through node B, and the next move its client decides."""
    branches = []
    for table in tables:
        saved_version = table.read(node_b)["version"]
        made = table.play([node_b], LOST)
        assert len(made) == LOST, "a match ended within the branch to lose: choose other seeds"
        branches.append(LostBranch(table, saved_version, made[0], table.next_move(node_b)))
    return branches


def the_lost_moves_are_decided_on_the_stores_records(
    store: MatchStore, branches: list[LostBranch], node_a: WireClient, node_b: WireClient
) -> None:
    """Each match is back at its saved version: played on through node A to the version of the
    lost record node B caches, then node B gets its client's move. B's cache holds the lost
    record at that very version; the compare-and-set must refute it (a stale hit) and the
    move be decided on the store's record, so whatever the answer, the log stays true."""
    for branch in branches:
        loaded = store.load(branch.table.match_id)
        assert loaded is not None and loaded.version == branch.saved_version, "the store did not lose the branch"
        for version in list(branch.table.acknowledged):
            if version > branch.saved_version:
                del branch.table.acknowledged[version]
        made = branch.table.play([node_a], LOST, avoid=branch.first)
        assert len(made) == LOST and made[0] != branch.first, "the match took another way"
        assert branch.table.read(node_a)["version"] == branch.pending.version
    before = cache_lookups(node_b)
    for branch in branches:
        response = branch.table.send(node_b, branch.pending)
        if response.status_code == 200:
            branch.table.acknowledged[response.get_json()["version"]] = (branch.pending.seat, branch.pending.action)
        else:
            assert response.status_code in (403, 409, 422), response.get_json()
            assert response.content_type.startswith(PROBLEM_JSON)
    stale = cache_lookups(node_b).get("stale", 0) - before.get("stale", 0)
    assert stale == len(branches), "every lost record node B held was tried and refused by the store"


def every_match_agrees_with_its_log_and_verifies(
    store: MatchStore, tables: list[Table], clients: list[WireClient]
) -> None:
    for table in tables:
        table.play_to_end(clients)
    for table in tables:
        assert disagreement_with_log(store, table.match_id) is None, disagreement_with_log(store, table.match_id)
        logged = [Move.decode(raw) for raw in store.history(table.match_id, 0, 100_000)]
        for version, (seat, action) in table.acknowledged.items():
            move = logged[version - 1]
            assert (move.seat, move.action) == (seat, action), f"acknowledged move {version} is not in the log"
        replay = f"{clients[0].base_url}{table.url}/replay"
        verified = subprocess.run([str(BIN / "referee"), "verify", replay], capture_output=True, text=True, timeout=60)
        assert verified.returncode == 0, verified.stdout + verified.stderr


# -- a restart from an older snapshot ----------------------------------------------------------


@pytest.fixture(scope="module")
def snapshotting_redis(tmp_path_factory: pytest.TempPathFactory) -> Iterator[SnapshottingRedis]:
    if not cluster.tools_available():
        from tests.conftest import missing_redis

        missing_redis("redis-server is not installed (needed to restart a Redis from its snapshot)")
    server = SnapshottingRedis(free_port(), Path(tmp_path_factory.mktemp("snapshotting-redis")))
    server.start()
    yield server
    server.kill()


def test_a_redis_restarted_from_an_older_snapshot_never_continues_a_lost_record(
    snapshotting_redis: SnapshottingRedis,
) -> None:
    with ExitStack() as stack:
        node_a, node_b = two_nodes(stack, REDIS_URL=snapshotting_redis.url)
        tables = start_tables(node_a, MATCHES)
        for table in tables:
            table.play([node_a, node_b], BEFORE)
        snapshotting_redis.snapshot()
        branches = play_a_branch_to_lose(tables, node_b)
        snapshotting_redis.restart_from_snapshot()
        store = RedisStore.from_url(snapshotting_redis.url)
        the_lost_moves_are_decided_on_the_stores_records(store, branches, node_a, node_b)
        every_match_agrees_with_its_log_and_verifies(store, tables, [node_a, node_b])


# -- a failover to a replica that had not received the last writes -----------------------------


@pytest.fixture(scope="module")
def replicated() -> Iterator[cluster.LocalCluster]:
    """Three masters with one replica each, for this test only (it loses one master)."""
    if not cluster.tools_available():
        from tests.conftest import missing_redis

        missing_redis("redis-server or redis-cli is not installed (needed for the failover test)")
    local = cluster.LocalCluster(cluster.free_block(6), masters=3, replicas=1, node_timeout_ms=1000).start()
    yield local
    local.stop()


def tables_on_one_master(local: cluster.LocalCluster, client: WireClient) -> tuple[cluster.Node, list[Table]]:
    """Matches created until one master holds ``len(MATCHES)`` of them: that master and its
    matches (the others are left alone)."""
    by_master: dict[int, list[Table]] = {}
    for n in range(100):
        game, seed = MATCHES[n % len(MATCHES)]
        (table,) = start_tables(client, [(game, seed + 10 * n)])
        master = local.master_of(f"m:{{{table.match_id}}}")
        by_master.setdefault(master.port, []).append(table)
        if len(by_master[master.port]) == len(MATCHES):
            return master, by_master[master.port]
    raise AssertionError("the matches do not spread over the masters")


def hold_back_replication(master: cluster.Node, replica: cluster.Node, tag: str) -> None:
    """From now on, what ``master`` writes stays in its memory until its replica reads it,
    and the replica reads nothing: the replica is stopped (``kill -STOP``) with everything
    written so far, and junk fills the socket buffers between them, so the next writes wait
    in the master's output buffer for the replica (a replica that fell behind)."""
    client = master.client()
    client.set(f"junk:{{{tag}}}:sync", b"1")
    assert client.wait(1, 5000) == 1, "the replica did not catch up"
    replica.pause()
    junk = b"j" * (1 << 20)
    for n in range(64):
        client.set(f"junk:{{{tag}}}:{n}", junk)
        (link,) = client.client_list(_type="replica")
        if int(link["omem"]) >= 4 << 20:
            return
    raise AssertionError("the master never had to keep writes back for its replica")


def test_a_failover_that_loses_the_last_writes_never_continues_a_lost_record(
    replicated: cluster.LocalCluster,
) -> None:
    with ExitStack() as stack:
        node_a, node_b = two_nodes(stack, REDIS_CLUSTER_URL=replicated.url)
        victim, tables = tables_on_one_master(replicated, node_a)
        replica = replicated.replica_of(victim)
        for table in tables:
            table.play([node_a, node_b], BEFORE)
        hold_back_replication(victim, replica, tables[0].match_id)
        try:
            branches = play_a_branch_to_lose(tables, node_b)
            victim.kill()
        finally:
            replica.resume()
        assert replicated.wait_for_promotion(victim) is replica
        before = sum(table.unavailable for table in tables)
        store = RedisStore.from_url(f"redis://127.0.0.1:{replica.port}", cluster=True)
        the_lost_moves_are_decided_on_the_stores_records(store, branches, node_a, node_b)
        # Once every node names the new master, a worker whose slot map still names the dead
        # one is sent there by the first failure, reads or writes alike: no client sees a 503.
        assert sum(table.unavailable for table in tables) == before
        every_match_agrees_with_its_log_and_verifies(store, tables, [node_a, node_b])
