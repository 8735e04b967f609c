"""Every public function and method of engine/ is annotated (docs/engine.md, "Types").

The check reads the source with :mod:`ast`, so it needs neither mypy nor the ladder's
optional packages: a function is *public* when its name does not start with ``_`` (or is
``__init__``/``__call__``) and it stands at the top of a module or in a public class
(classes nested in public classes too, and under module- or class-level ``if``/``try``).
Functions nested in functions are closures, not interface, and are not read. It is
*annotated* when its return and every parameter (``*args``/``**kwargs`` and keyword-only
ones included; ``self``/``cls`` excepted) carry an annotation.

mypy (``mypy.ini``) then checks that the annotations are true; this test keeps new code
from dropping them. ``PENDING`` lists the parts of engine/ not annotated yet: each entry
fails the test once it is fully annotated, so the list only shrinks.
"""

import ast
from pathlib import Path

import pytest

ENGINE = Path(__file__).resolve().parent.parent / "engine"

# Paths relative to engine/'s parent; a folder entry covers everything under it.
# Every module of engine/ is annotated: nothing is pending. An entry would name a part
# not annotated yet (and fail once it is).
PENDING: tuple = ()


def _public(name):
    return not name.startswith("_") or name in ("__init__", "__call__")


def _definitions(body, in_class=False):
    """(function node, defined in a class?) for the public functions reachable in ``body``."""
    for node in body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if _public(node.name):
                yield node, in_class
        elif isinstance(node, ast.ClassDef):
            if not node.name.startswith("_"):
                yield from _definitions(node.body, in_class=True)
        elif isinstance(node, ast.If):
            yield from _definitions(node.body, in_class)
            yield from _definitions(node.orelse, in_class)
        elif isinstance(node, ast.Try):
            for block in [node.body, node.orelse, node.finalbody]:
                yield from _definitions(block, in_class)
            for handler in node.handlers:
                yield from _definitions(handler.body, in_class)


def _unannotated(function, in_class):
    """The names left unannotated in ``function``'s signature ("return" for the return)."""
    arguments = function.args
    positional = arguments.posonlyargs + arguments.args
    decorators = {getattr(d, "id", None) for d in function.decorator_list}
    if in_class and "staticmethod" not in decorators and positional:
        positional = positional[1:]            # self, or cls of a classmethod
    parameters = positional + arguments.kwonlyargs
    parameters += [p for p in (arguments.vararg, arguments.kwarg) if p is not None]
    missing = [p.arg for p in parameters if p.annotation is None]
    if function.returns is None:
        missing.append("return")
    return missing


def unannotated_functions(path):
    """["line name (missing, ...)"] for the public functions of the module at ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for function, in_class in _definitions(tree.body):
        missing = _unannotated(function, in_class)
        if missing:
            found.append(f"{function.lineno} {function.name} ({', '.join(missing)})")
    return found


def _relative(path):
    return path.relative_to(ENGINE.parent).as_posix()


def _pending_entry(path):
    name = _relative(path)
    for entry in PENDING:
        if name == entry or (entry.endswith("/") and name.startswith(entry)):
            return entry
    return None


def test_public_functions_are_annotated():
    missing = []
    for path in sorted(ENGINE.rglob("*.py")):
        if _pending_entry(path) is None:
            missing += [f"{_relative(path)}:{line}" for line in unannotated_functions(path)]
    assert not missing, "public functions without annotations:\n" + "\n".join(missing)


def test_pending_list_only_names_what_is_left():
    """An entry names something that exists and still lacks annotations."""
    paths = sorted(ENGINE.rglob("*.py"))
    stale = []
    for entry in PENDING:
        covered = [p for p in paths if _pending_entry(p) == entry]
        if not covered:
            stale.append(f"{entry}: no such module or package")
        elif not any(unannotated_functions(p) for p in covered):
            stale.append(f"{entry}: fully annotated, remove it from PENDING")
    assert not stale, "\n".join(stale)


PLANTED = '''
def annotated(a: int, *rest: str, flag: bool = False, **more: int) -> int:
    def closure(x):                   # a closure is not interface
        return x
    return a


def _private(a):
    return a


def no_return(a: int):
    return a


def one_parameter(a: int, b) -> int:
    return a


class Public:
    def __init__(self, a: int) -> None:
        self.a = a

    def method(self, a):
        return a

    @staticmethod
    def static(a) -> int:
        return a

    @classmethod
    def build(cls) -> "Public":
        return cls(1)

    def _helper(self, a):
        return a

    class Inner:
        def keyword_only(self, *, a) -> None:
            pass


class _Private:
    def method(self, a):
        return a


if True:
    def conditional(*args) -> None:
        pass

try:
    def guarded(**kwargs) -> None:
        pass
except ImportError:
    pass
'''


def test_planted_unannotated_functions_are_caught(tmp_path):
    module = tmp_path / "planted.py"
    module.write_text(PLANTED, encoding="utf-8")
    assert unannotated_functions(module) == [
        "12 no_return (return)",
        "16 one_parameter (b)",
        "24 method (a, return)",
        "28 static (a)",
        "39 keyword_only (a)",
        "49 conditional (args)",
        "53 guarded (kwargs)",
    ]


@pytest.mark.parametrize("source, expected", [
    ("def f(a: int) -> int: ...", []),
    ("async def f(a) -> int: ...", ["1 f (a)"]),
    ("def f(a: int, /, b) -> int: ...", ["1 f (b)"]),
    ("def __call__(a) -> None: ...", ["1 __call__ (a)"]),
])
def test_each_kind_of_parameter_is_read(tmp_path, source, expected):
    module = tmp_path / "one.py"
    module.write_text(source + "\n", encoding="utf-8")
    assert unannotated_functions(module) == expected
