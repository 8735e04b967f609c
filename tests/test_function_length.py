"""Functions of engine/ stay short (issue 67, part 7): none over 80 lines, at most 5 over 60.

A function's length is what ast says it spans, ``end_lineno - lineno + 1``: its ``def``
line through its last line, docstring and comments included, decorators not. Methods
and nested functions count on their own (a nested function's lines also count in the
function around it).
"""

import ast
import functools
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"
LONGEST = 80            # no function of engine/ is longer
LONG = 60               # ... and at most MAX_LONG are longer than this
MAX_LONG = 5


def function_lengths(source, filename="<source>"):
    """[(lines, qualified name)] of every function and method defined in ``source``."""
    found = []

    def visit(node, prefix):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + child.name
                found.append((child.end_lineno - child.lineno + 1, name))
                visit(child, name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
            else:
                visit(child, prefix)

    visit(ast.parse(source, filename), "")
    return found


@functools.lru_cache(maxsize=None)
def engine_lengths():
    """[(lines, "path: name")] over every module of engine/, longest first (read once)."""
    rows = []
    for path in sorted(ENGINE.rglob("*.py")):
        where = path.relative_to(ENGINE.parent).as_posix()
        rows += [(lines, f"{where}: {name}")
                 for lines, name in function_lengths(path.read_text(encoding="utf-8"),
                                                     str(path))]
    return tuple(sorted(rows, reverse=True))


def _function(name, body_lines, indent=""):
    body = "".join(f"{indent}    x{i} = {i}\n" for i in range(body_lines))
    return f"{indent}def {name}():\n{body}"


def test_lengths_count_def_to_last_line_for_functions_methods_and_nested_ones():
    source = (_function("short", 2) + "\n"
              + "class Box:\n" + _function("method", 60, "    ")
              + "async def outer():\n    async def inner():\n        pass\n    return 1\n")
    assert sorted(function_lengths(source)) == sorted(
        [(3, "short"), (61, "Box.method"), (4, "outer"), (2, "outer.inner")])


def test_the_walk_finds_the_engine_and_its_methods():
    names = [name for _, name in engine_lengths()]
    assert len(names) > 1000
    assert "engine/search.py: search" in names
    assert any(name.endswith(".__init__") for name in names)


def test_no_function_of_engine_is_over_80_lines():
    too_long = [f"{name} ({lines} lines)" for lines, name in engine_lengths()
                if lines > LONGEST]
    assert not too_long, f"over {LONGEST} lines: " + ", ".join(too_long)


def test_at_most_5_functions_of_engine_are_over_60_lines():
    long = [f"{name} ({lines} lines)" for lines, name in engine_lengths() if lines > LONG]
    assert len(long) <= MAX_LONG, (f"{len(long)} functions over {LONG} lines "
                                   f"(at most {MAX_LONG}): " + ", ".join(long))
