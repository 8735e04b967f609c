"""A ladder worker (``ladder work``), standard library only, so that a cluster node needs
nothing but the checkout:

    loop.py    the worker: leases builds and games, plays them through the tournament's
               director in the sandbox, posts the results (the protocol is its docstring)
    client.py  JSON over HTTP with the worker's own token; retries; reading the token
    cache.py   the worker's folder on disk and its builds, kept by last use
"""

from .loop import Worker, add_arguments, command

__all__ = ["Worker", "add_arguments", "command"]
