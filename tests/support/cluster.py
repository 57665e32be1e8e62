"""A real Redis Cluster on localhost for tests and CI: ``redis-server --cluster-enabled yes``
nodes in a scratch folder, joined with ``redis-cli --cluster create``.

Used by the ``redis_cluster`` fixtures (tests/conftest.py) and from the shell, e.g. to try the
service on a cluster by hand (``.ci/redis-cluster`` wraps this)::

    python -m tests.support.cluster start --port 7000 --replicas 1   # prints the URL
    python -m tests.support.cluster stop --port 7000

Nodes run without persistence (``--save '' --appendonly no``). ``cluster-node-timeout`` is
5 s (nodes of a busy test machine must not take each other for dead), or less for a failover
test: with 1 s a killed master is replaced within about two seconds.
Ports come from 7000-7099, the range kept for clusters on the shared test machines; a cluster
takes the first free block of ``masters * (1 + replicas)`` ports there, each pytest-xdist
worker searching from its own quarter of the range first, so two workers starting clusters at
once do not pick the same block.
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import redis

PORT_RANGE = range(7000, 7100)

#: Milliseconds before a silent master is failed over by its replica, unless told.
NODE_TIMEOUT_MS = 5000


def tools_available() -> bool:
    """Whether ``redis-server`` and ``redis-cli`` are installed."""
    return shutil.which("redis-server") is not None and shutil.which("redis-cli") is not None


def _port_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
    # A cluster node also listens on port + 10000 (the cluster bus).
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind(("127.0.0.1", port + 10000))
        except OSError:
            return False
    return True


def free_block(size: int) -> int:
    """The first port of ``size`` consecutive free ports in :data:`PORT_RANGE`, from this
    xdist worker's quarter of it on (``gw1`` from 7025, ...), wrapping around."""
    worker = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw") or 0)
    firsts = list(range(PORT_RANGE.start, PORT_RANGE.stop - size + 1, size))
    start = next((i for i, first in enumerate(firsts) if first >= PORT_RANGE.start + 25 * (worker % 4)), 0)
    for first in firsts[start:] + firsts[:start]:
        if all(_port_free(p) for p in range(first, first + size)):
            return first
    raise RuntimeError(f"no {size} free ports in {PORT_RANGE.start}-{PORT_RANGE.stop - 1}")


@dataclass
class Node:
    """One ``redis-server`` of the cluster, started in its own folder."""

    port: int
    folder: Path
    node_timeout_ms: int = NODE_TIMEOUT_MS

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                *self.role_options(),
                "--dir",
                str(self.folder),
                "--pidfile",
                str(self.pidfile),
                "--logfile",
                str(self.folder / "redis.log"),
                "--daemonize",
                "yes",
            ],
            check=True,
        )
        self.wait_until(lambda c: c.ping())

    def role_options(self) -> list[str]:
        """What makes this server a node of a cluster, keeping nothing on disk."""
        return [
            "--cluster-enabled",
            "yes",
            "--cluster-config-file",
            "nodes.conf",
            "--cluster-node-timeout",
            str(self.node_timeout_ms),
            "--cluster-require-full-coverage",
            "no",
            "--repl-diskless-sync-delay",
            "0",
            "--save",
            "",
            "--appendonly",
            "no",
        ]

    @property
    def pidfile(self) -> Path:
        return self.folder / "redis.pid"

    def client(self) -> redis.Redis:
        return redis.Redis(port=self.port, socket_timeout=2, socket_connect_timeout=2)

    def wait_until(self, check: Callable[[redis.Redis], bool], timeout: float = 20.0) -> None:
        """Poll ``check(client)`` until it is true (errors count as false)."""
        deadline = time.monotonic() + timeout
        while True:
            try:
                if check(self.client()):
                    return
            except (redis.RedisError, OSError):
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"redis node {self.port} did not get ready")
            time.sleep(0.05)

    def pid(self) -> int | None:
        try:
            return int(self.pidfile.read_text().strip())
        except (OSError, ValueError):
            return None

    def kill(self) -> None:
        """``kill -9``: the node vanishes as in a crash (also how the cluster stops: it
        keeps nothing, and a graceful shutdown waits for lagging replicas)."""
        pid = self.pid()
        if pid is not None:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self.pidfile.unlink(missing_ok=True)
            self._wait_gone()

    def _wait_gone(self) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.2):
                    pass
            except OSError:
                return
            time.sleep(0.05)

    def role(self) -> str:
        return self.client().info("replication")["role"]

    def pause(self) -> None:
        """``kill -STOP``: the node stops reading and answering, its sockets stay open
        (``kill`` still ends it)."""
        self._signal(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal(signal.SIGCONT)

    def _signal(self, signum: int) -> None:
        pid = self.pid()
        if pid is None:
            raise RuntimeError(f"redis node {self.port} is not running")
        os.kill(pid, signum)


@dataclass
class LocalCluster:
    """``masters`` masters, each with ``replicas`` replicas, on consecutive ports from
    ``first_port``; the first ``masters`` ports are the masters at creation."""

    first_port: int
    masters: int = 3
    replicas: int = 0
    node_timeout_ms: int = NODE_TIMEOUT_MS
    folder: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="referee-cluster-")))
    nodes: list[Node] = field(init=False)

    def __post_init__(self) -> None:
        count = self.masters * (1 + self.replicas)
        ports = range(self.first_port, self.first_port + count)
        self.nodes = [Node(p, self.folder / str(p), self.node_timeout_ms) for p in ports]

    @property
    def url(self) -> str:
        """The URL of one node: the cluster client discovers the others."""
        return f"redis://127.0.0.1:{self.first_port}"

    def start(self) -> LocalCluster:
        for node in self.nodes:
            node.start()
        addresses = [f"127.0.0.1:{n.port}" for n in self.nodes]
        subprocess.run(
            ["redis-cli", "--cluster", "create", *addresses, "--cluster-replicas", str(self.replicas), "--cluster-yes"],
            check=True,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        self.wait_ok()
        return self

    def wait_ok(self, timeout: float = 30.0) -> None:
        """Until every running node reports ``cluster_state:ok`` and sees all slots served
        (and, with replicas, every master has a connected replica)."""
        deadline = time.monotonic() + timeout
        while not self._ok():
            if time.monotonic() > deadline:
                raise RuntimeError(f"cluster on {self.first_port} did not reach cluster_state:ok")
            time.sleep(0.1)

    def _ok(self) -> bool:
        try:
            for node in self.running_nodes():
                info = node.client().cluster("info")
                if info.get("cluster_state") != "ok" or int(info.get("cluster_slots_ok", 0)) != 16384:
                    return False
                if int(info.get("cluster_known_nodes", 0)) != len(self.nodes):
                    return False
            if self.replicas:
                for node in self.running_nodes():
                    replication = node.client().info("replication")
                    if replication["role"] == "master" and int(replication["connected_slaves"]) < self.replicas:
                        return False
                    if replication["role"] == "slave" and replication.get("master_link_status") != "up":
                        return False
        except (redis.RedisError, OSError):
            return False
        return True

    def running_nodes(self) -> list[Node]:
        return [n for n in self.nodes if n.pid() is not None]

    def master_of(self, key: str) -> Node:
        """The node that serves ``key``'s slot now."""
        slot = self.nodes[0].client().cluster("keyslot", key)
        for node in self.running_nodes():
            for start, end, *owners in node.client().execute_command("CLUSTER SLOTS"):
                if start <= slot <= end:
                    port = owners[0][1]
                    return next(n for n in self.nodes if n.port == port)
        raise RuntimeError(f"no node serves slot {slot}")

    def replica_of(self, master: Node) -> Node:
        """The running node that replicates ``master`` now."""
        for node in self.running_nodes():
            replication = node.client().info("replication")
            if replication["role"] == "slave" and int(replication["master_port"]) == master.port:
                return node
        raise RuntimeError(f"no replica of {master.port}")

    def wait_for_promotion(self, victim: Node, timeout: float = 20.0) -> Node:
        """The replica of ``victim`` once it has become a master, the cluster is whole again
        (``victim`` having died) and every live node's slot map names it, so a client that
        reads the map from any of them finds the new master."""
        deadline = time.monotonic() + timeout
        others = [n for n in self.nodes if n is not victim]
        while time.monotonic() < deadline:
            for node in others:
                try:
                    info = node.client().cluster("info")
                    replication = node.client().info("replication")
                except (redis.RedisError, OSError):
                    continue  # a node busy electing may not answer yet
                if (
                    replication["role"] == "master"
                    and info.get("cluster_state") == "ok"
                    and not replication["connected_slaves"]
                    and self._everyone_names(node, victim)
                ):
                    return node
            time.sleep(0.05)
        raise AssertionError(f"no replica took over from {victim.port}")

    def fail_over(self, master: Node, timeout: float = 20.0) -> Node:
        """A manual failover (``CLUSTER FAILOVER`` on ``master``'s replica): the replica
        takes over without losing a write, and ``master`` stays up as its replica. Returns the
        new master once every node's slot map names it and ``master``'s link to it is up (so
        it can confirm writes)."""
        successor = self.replica_of(master)
        deadline = time.monotonic() + timeout
        # Every node must know the node as the master's replica (the cluster bus's gossip can
        # lag replication), or the master ignores the request, the others refuse their votes,
        # and the failover times out.
        while not self._everyone_knows(master, successor):
            if time.monotonic() > deadline:
                raise AssertionError(f"{master.port} never learnt {successor.port} replicates it")
            time.sleep(0.05)
        successor.client().execute_command("CLUSTER FAILOVER")
        while time.monotonic() < deadline:
            try:
                replication = master.client().info("replication")
                demoted = replication["role"] == "slave" and replication.get("master_link_status") == "up"
            except (redis.RedisError, OSError):
                demoted = False
            if demoted and self._everyone_names(successor, master):
                return successor
            time.sleep(0.05)
        raise AssertionError(f"{successor.port} did not take over from {master.port}")

    def _everyone_knows(self, master: Node, replica: Node) -> bool:
        """Whether every live node's ``CLUSTER NODES`` has ``replica`` replicate ``master``."""
        master_id = master.client().execute_command("CLUSTER MYID").decode()
        for node in self.running_nodes():
            entry = node.client().cluster("nodes").get(f"127.0.0.1:{replica.port}", {})
            if "slave" not in entry.get("flags", "") or entry.get("master_id") != master_id:
                return False
        return True

    def _everyone_names(self, promoted: Node, victim: Node) -> bool:
        """Whether every live node's ``CLUSTER SLOTS`` has ``promoted`` serve slots and
        ``victim`` serve none."""
        for node in self.running_nodes():
            try:
                slots = node.client().execute_command("CLUSTER SLOTS")
            except (redis.RedisError, OSError):
                return False
            masters = {owners[0][1] for _, _, *owners in slots}
            if promoted.port not in masters or victim.port in masters:
                return False
        return True

    def stop(self) -> None:
        for node in self.nodes:
            node.kill()
        shutil.rmtree(self.folder, ignore_errors=True)


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("command", choices=["start", "stop"])
    parser.add_argument("--port", type=int, default=7000, help="first port (7000-7099)")
    parser.add_argument("--masters", type=int, default=3)
    parser.add_argument("--replicas", type=int, default=0)
    parser.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "referee-cluster")
    args = parser.parse_args()
    cluster = LocalCluster(args.port, args.masters, args.replicas, folder=args.dir / str(args.port))
    if args.command == "start":
        print(cluster.start().url)
    else:
        for port in PORT_RANGE:
            if (cluster.folder / str(port)).exists():
                Node(port, cluster.folder / str(port)).kill()
        shutil.rmtree(cluster.folder, ignore_errors=True)


if __name__ == "__main__":
    _main()
