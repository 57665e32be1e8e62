"""The process id read from memory follows forks."""

from __future__ import annotations

import os

from service.store.processes import current_pid


def test_the_id_is_the_process_id_here_and_in_a_forked_child() -> None:
    assert current_pid() == os.getpid()
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - runs in the child
        os.write(write, b"1" if current_pid() == os.getpid() != os.getppid() else b"0")
        os._exit(0)
    os.waitpid(child, 0)
    assert os.read(read, 1) == b"1"
    os.close(read)
    os.close(write)
