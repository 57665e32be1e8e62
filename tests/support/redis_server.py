"""A single Redis of a test's own that writes an RDB snapshot when told (``SAVE``) and starts
again from it: a restart that loses every write made after the last snapshot, as a Redis
without AOF does after a crash. For clusters see :mod:`tests.support.cluster`."""

from __future__ import annotations

from dataclasses import dataclass

from tests.support.cluster import Node


@dataclass
class SnapshottingRedis(Node):
    """A ``redis-server`` on ``port`` keeping ``dump.rdb`` in ``folder``."""

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def role_options(self) -> list[str]:
        """No automatic snapshot (only :meth:`snapshot` writes one) and no append-only file,
        so a restart finds exactly the last snapshot."""
        return ["--dbfilename", "dump.rdb", "--save", "", "--appendonly", "no"]

    def snapshot(self) -> None:
        self.client().save()

    def restart_from_snapshot(self) -> None:
        """``kill -9`` and start again: Redis comes back with the last snapshot's data."""
        self.kill()
        self.start()
