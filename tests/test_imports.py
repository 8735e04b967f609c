"""Imports run one way (programs -> games -> search/trace -> game): no cycle in engine/.

The graph is built from the source with :mod:`ast`, so it sees every import statement
wherever it stands: at the top of a module, inside a function (a "late import" hides a
cycle from Python but not from this test) or under ``if``/``try``. Relative imports are
resolved against the importing module's package. ``from package import name`` counts as
an import of ``package.name`` when that is a module, else of ``package``.
"""

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "engine"


def module_name(path, root=ENGINE):
    """``engine/programs/morris.py`` -> ``engine.programs.morris`` (packages: no __init__)."""
    parts = list(path.relative_to(root.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def engine_modules(root=ENGINE):
    """{module name: path} of every module under ``root``."""
    return {module_name(path, root): path for path in sorted(root.rglob("*.py"))}


def imported_modules(name, path, known):
    """The modules of ``known`` that module ``name`` (source at ``path``) imports."""
    is_package = path.name == "__init__.py"
    package = name if is_package else name.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            targets = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - (node.level - 1)]
                source = ".".join(base + ([node.module] if node.module else []))
            else:
                source = node.module
            targets = [f"{source}.{alias.name}" for alias in node.names]
            targets = [target if target in known else source for target in targets]
        else:
            continue
        for target in targets:
            # ``import engine.games.morris`` also runs engine/__init__ and engine.games:
            # only the deepest module that exists is the edge that can close a cycle.
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                found.add(target)
    return found


def import_graph(root=ENGINE):
    """{module: set of engine modules it imports}."""
    modules = engine_modules(root)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def find_cycle(graph):
    """One cycle of ``graph`` as a list of modules (first == last), or None."""
    state = {}              # module -> "open" while on the DFS stack, "done" after
    stack = []

    def visit(module):
        state[module] = "open"
        stack.append(module)
        for target in sorted(graph.get(module, ())):
            if state.get(target) == "open":
                return stack[stack.index(target):] + [target]
            if target not in state:
                cycle = visit(target)
                if cycle:
                    return cycle
        stack.pop()
        state[module] = "done"
        return None

    for module in sorted(graph):
        if module not in state:
            cycle = visit(module)
            if cycle:
                return cycle
    return None


def test_engine_imports_have_no_cycle():
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def test_graph_sees_late_and_relative_imports(tmp_path):
    """The graph builder itself: a cycle closed by a late relative import is found."""
    package = tmp_path / "engine"
    (package / "sub").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "sub" / "__init__.py").write_text("")
    (package / "a.py").write_text("from .sub.b import thing\n")
    (package / "sub" / "b.py").write_text("def thing():\n    from .. import a\n")
    (package / "sub" / "c.py").write_text("import engine.a\n")
    graph = import_graph(package)
    assert graph["engine.a"] == {"engine.sub.b"}
    assert graph["engine.sub.b"] == {"engine.a"}
    assert graph["engine.sub.c"] == {"engine.a"}
    assert find_cycle(graph) == ["engine.a", "engine.sub.b", "engine.a"]
    (package / "sub" / "b.py").write_text("def thing():\n    pass\n")
    assert find_cycle(import_graph(package)) is None


# --- the layers -----------------------------------------------------------------------------
# Which engine modules may import which (by prefix), read from the source like the cycle
# test: a rule names a layer, the layers it must never reach and, optionally, modules of
# those it may reach all the same.
SEARCH_MODULES = ("engine.search", "engine.searchoptions", "engine.searchparts", "engine.node",
                  "engine.entries", "engine.selective", "engine.iterative")
SEARCH_CORE = ("engine.game",) + SEARCH_MODULES + ("engine.trace", "engine.searchtree",
                                                  "engine.errors")
# The grading kit's modules that other packages may import (engine/grading/__init__.py).
KIT_PUBLIC = ("engine.grading.cli", "engine.grading.detect", "engine.grading.judges",
              "engine.grading.layouts", "engine.grading.printable",
              "engine.grading.report_html", "engine.grading.results",
              "engine.grading.workers")
LAYER_RULES = [
    # Games hold rules only: no program, no grading, no search.
    ("engine.games", ("engine.programs", "engine.grading", "engine.trace",
                      "engine.registry") + SEARCH_MODULES),
    # The search core knows no game, no program, no output format.
    (SEARCH_CORE, ("engine.games", "engine.programs", "engine.grading", "engine.registry",
                   "engine.pictures", "engine.commandline")),
    # The grading kit reaches programs only through the registry (imported by name).
    ("engine.grading", ("engine.programs",)),
    # Programs do not grade, nor run tournaments.
    ("engine.programs", ("engine.grading", "engine.tournament")),
    # The kit knows nothing of tournaments (tournaments build on the kit's sandbox).
    ("engine.grading", ("engine.tournament",)),
    # A tournament runs our players as entrants do, through their command line: it
    # imports no program and no search.
    ("engine.tournament", ("engine.programs",) + SEARCH_MODULES),
    # The ladder builds on the tournament and the kit; nothing of the engine imports it.
    (("engine.grading", "engine.tournament", "engine.programs", "engine.games",
      "engine.pictures") + SEARCH_CORE, ("engine.ladder",)),
    # The registry is a table: it imports nothing of ours.
    ("engine.registry", ("engine.",)),
    # grade similar reads what students handed in and runs nothing: it reaches the kit's
    # layouts and the sandbox's file functions, never a program, a game, the search, the
    # sandbox's runs or the kit's runner.
    ("engine.similarity", ("engine.programs", "engine.games", "engine.search",
                           "engine.tournament", "engine.ladder", "engine.sandbox",
                           "engine.grading.runner"), ("engine.sandbox.untrusted_files",)),
    # The sandbox is the bottom layer of everything that runs someone else's code: it
    # imports nothing of ours but the errors.
    ("engine.sandbox", ("engine.",), ("engine.sandbox", "engine.errors")),
    # The tournament, the ladder and grade similar reach the kit through its public
    # modules only (engine/grading/__init__.py names them); its runner, cases, diagnoses
    # and generators are its own.
    (("engine.tournament", "engine.ladder", "engine.similarity"), ("engine.grading",),
     KIT_PUBLIC),
]


def layer_violations(graph):
    """["a -> b"] for every import that breaks LAYER_RULES."""
    found = []
    for layer, forbidden, *allowed in LAYER_RULES:
        layers = (layer,) if isinstance(layer, str) else layer
        exceptions = allowed[0] if allowed else ()
        for module, targets in graph.items():
            if not within(module, layers):
                continue
            for target in sorted(targets):
                if within(target, forbidden) and not within(target, exceptions):
                    found.append(f"{module} -> {target}")
    return sorted(set(found))


def within(module, names):
    """True when ``module`` is one of ``names`` or inside one (a name ending with "."
    is a prefix: "engine." is every module of ours)."""
    return any(module == name or module.startswith(name if name.endswith(".")
                                                   else name + ".")
               for name in names)


def test_the_layers_hold():
    assert layer_violations(import_graph()) == []


def test_a_layer_violation_is_seen(tmp_path):
    """The rule checker itself: a game importing the search is reported."""
    package = tmp_path / "engine"
    (package / "games").mkdir(parents=True)
    for path in (package / "__init__.py", package / "games" / "__init__.py",
                 package / "search.py", package / "grading.py"):
        path.write_text("")
    (package / "games" / "chess.py").write_text("from ..search import thing\n")
    assert layer_violations(import_graph(package)) == ["engine.games.chess -> engine.search"]


# --- the sandbox's front door ---------------------------------------------------------------
# engine/sandbox/ is the one place that runs someone else's code. Its fences (cgroups,
# seccomp, Landlock, bubblewrap, the launcher, the processes of a run) are private modules
# (a leading underscore): outside the package, a module imports ``engine.sandbox`` or one
# of its public modules, never a fence. Tests may (white-box tests).
SANDBOX = "engine.sandbox"


def sandbox_back_doors(graph):
    """["a -> b"] for every import of a private module of engine.sandbox from outside it."""
    found = []
    for module, targets in graph.items():
        if within(module, (SANDBOX,)):
            continue
        for target in sorted(targets):
            inside = target[len(SANDBOX) + 1:] if within(target, (SANDBOX,)) else ""
            if any(part.startswith("_") for part in inside.split(".")):
                found.append(f"{module} -> {target}")
    return found


def test_only_the_sandbox_front_door_is_imported():
    graph = import_graph()
    assert SANDBOX in graph and any(name.startswith(SANDBOX + "._") for name in graph)
    assert sandbox_back_doors(graph) == []


def test_a_sandbox_back_door_is_seen(tmp_path):
    """The checker itself: the kit importing a fence is reported; the front door, a public
    module and the package's own imports of its fences are not."""
    package = tmp_path / "engine"
    (package / "sandbox").mkdir(parents=True)
    (package / "grading").mkdir()
    for path in ("__init__.py", "errors.py", "grading/__init__.py", "sandbox/_seccomp.py",
                 "sandbox/untrusted_files.py"):
        (package / path).write_text("")
    (package / "sandbox" / "__init__.py").write_text("from ._seccomp import x\n")
    (package / "grading" / "runner.py").write_text(
        "from ..sandbox import Sandbox\nfrom ..sandbox.untrusted_files import walk\n")
    (package / "grading" / "precompile.py").write_text(
        "from engine.sandbox import _seccomp\n")
    graph = import_graph(package)
    assert sandbox_back_doors(graph) == ["engine.grading.precompile -> engine.sandbox._seccomp"]
    assert layer_violations(graph) == []
