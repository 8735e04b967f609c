"""The ladder's optional libraries (``pip install '.[ladder]'``), imported late with one
clear line when they are missing: a worker, and every usage error, need none of them."""

from types import ModuleType

from ..errors import UsageError

EXTRA = "the ladder needs its extra libraries: pip install '.[ladder]' ({})"


def store_module() -> ModuleType:
    """engine.ladder.store, or UsageError naming the missing library."""
    try:
        from . import store
    except ImportError as error:
        raise UsageError(EXTRA.format(error)) from None
    return store


def web_module() -> ModuleType:
    """engine.ladder.web, or UsageError naming the missing library."""
    try:
        from . import web
    except ImportError as error:
        raise UsageError(EXTRA.format(error)) from None
    return web
