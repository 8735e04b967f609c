"""Ports for the servers the tests start, which no other test can be handed meanwhile.

A port found by binding port 0 and closing is back in the kernel's ephemeral pool at
once: another test process's bind(0), or any outgoing connection, may take it before our
server binds it (a ladder test once met another test's server there: 401 instead of 200).
So each pytest-xdist worker draws from its own block below the ephemeral range, in turn,
skipping a port that something holds.
"""

import itertools
import os
import socket

FIRST_PORT = 20000          # below Linux's default ephemeral range (32768-60999)
BLOCK = 1500                # ports per worker: 8 workers fit below 32768


def _worker_index() -> int:
    name = os.environ.get("PYTEST_XDIST_WORKER", "gw0")        # gw0, gw1, ...
    digits = name[2:]
    return int(digits) % 8 if digits.isdigit() else 0


_NEXT = itertools.cycle(range(BLOCK))


def free_port() -> int:
    """A port on 127.0.0.1 that nothing listens on now and that no other test worker
    draws; RuntimeError when a whole block is held."""
    base = FIRST_PORT + _worker_index() * BLOCK
    for _ in range(BLOCK):
        port = base + next(_NEXT)
        with socket.socket() as probe:
            try:
                probe.bind(("127.0.0.1", port))
            except OSError:
                continue
        return port
    raise RuntimeError(f"every port of {base}-{base + BLOCK - 1} is held")
