"""Record identities: new with every write, and never the same sequence in two processes."""

from __future__ import annotations

import os

from service.store import IDENTITY_BYTES, new_identity


def test_identities_are_fresh_for_every_write() -> None:
    made = {new_identity() for _ in range(1000)}
    assert len(made) == 1000 and all(len(identity) == IDENTITY_BYTES for identity in made)


def test_a_forked_child_draws_other_identities_than_its_parent() -> None:
    """gunicorn forks its workers from one master: without a new seed in the child, two
    workers would write the same identities in the same order."""
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.write(write, b"".join(new_identity() for _ in range(4)))
        os._exit(0)
    os.waitpid(child, 0)
    theirs = os.read(read, 4 * IDENTITY_BYTES)
    ours = b"".join(new_identity() for _ in range(4))
    os.close(read)
    os.close(write)
    assert len(theirs) == 4 * IDENTITY_BYTES and theirs != ours
