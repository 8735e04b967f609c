"""Byte-compile what a Python submission's program imports: the build's last step.

Run inside the sandbox, in the submission's folder, by the sandbox's own ``python3``:
``python3 -I -c <this file's text> ENTRY`` (see :func:`engine.grading.detect.compile_step`).
``-I`` keeps the folder off ``sys.path``, so a planted ``ast.py`` or ``py_compile.py``
is never imported; this file imports the standard library only, and nothing of the
engine (which the sandbox hides).

Compiling every file of a folder that holds a whole copy of the engine (114 modules)
cost 0.2 s of CPU per submission, while a program imports a tenth of them. So the
modules ENTRY imports are found by reading their import statements (``ast``, nothing
is run), following them through the folder as Python would (``sys.path[0]`` is the
entry's folder), at any depth of the code: an import inside a function counts. Only
those are compiled (the entry itself never is: Python compiles a script afresh each
run). A module not reached this way still works: Python compiles it when it is
imported, in each case that imports it.

Where a reached module can import what its statements do not name (``importlib``,
``__import__``, ``exec``, changes to ``sys.path``, ...), every file is compiled as
before. Without ENTRY too.

Prints a line per file it could not compile (the case's own output shows the error
again); exits 1 then, else 0.
"""

import ast
import os
import py_compile
import sys
from typing import List, Optional, Sequence, Set, Tuple

# Names whose use means imports the statements do not show.
DYNAMIC_NAMES = frozenset(("__import__", "import_module", "importlib", "exec", "eval",
                           "runpy", "pkgutil", "imp", "zipimport", "execfile",
                           "reload", "find_spec", "spec_from_file_location", "load_module"))


def module_file(folder: str, name: str) -> Optional[str]:
    """The file of module ``name`` (dotted) under ``folder``: ``a/b.py`` or
    ``a/b/__init__.py``, else None."""
    base = os.path.join(folder, *name.split("."))
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        if os.path.isfile(candidate) and not os.path.islink(candidate):
            return candidate
    return None


def dotted_name(folder: str, path: str) -> str:
    """The module name of ``path`` under ``folder`` (a package's own name for its
    ``__init__.py``)."""
    relative = os.path.relpath(path, folder)[:-len(".py")].replace(os.sep, ".")
    return relative[:-len(".__init__")] if relative.endswith(".__init__") else relative


def imports_of(tree: ast.AST, module: str, is_package: bool
               ) -> Tuple[List[str], bool]:
    """``(names, dynamic)``: the dotted names a module's import statements may load
    (``from a import b`` may load ``a.b``; a star import, every submodule of its
    package: given as ``a.*``), and whether it can import what they do not name."""
    names: List[str] = []
    dynamic = False
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names.append(alias.name)
                dynamic = dynamic or alias.name.split(".")[0] in DYNAMIC_NAMES
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = module.split(".") if module else []
                parent = parts if is_package else parts[:-1]
                if node.level - 1 > len(parent):
                    continue                 # beyond the top: an error at run time
                parent = parent[:len(parent) - (node.level - 1)]
                base = ".".join(parent + ([node.module] if node.module else []))
            else:
                base = node.module or ""
                dynamic = dynamic or base.split(".")[0] in DYNAMIC_NAMES
            if base:
                names.append(base)
            for alias in node.names:
                names.append(f"{base}.{alias.name}" if base else alias.name)
        elif isinstance(node, ast.Name) and node.id in DYNAMIC_NAMES:
            dynamic = True
        elif isinstance(node, ast.Attribute):
            if node.attr in DYNAMIC_NAMES:
                dynamic = True
            elif node.attr in ("path", "meta_path", "path_hooks", "modules") and \
                    isinstance(node.value, ast.Name) and node.value.id == "sys":
                dynamic = True
    return names, dynamic


def reachable(folder: str, entry: str) -> Tuple[List[str], bool]:
    """``(files, dynamic)``: the module files under ``folder`` that ``entry`` (a path
    under ``folder``) imports, directly or not, as Python would find them from the
    entry's folder; ``dynamic`` when one of them (or the entry) can import more than its
    statements name. A file that does not parse adds nothing. Files are never followed
    through links."""
    root = os.path.dirname(os.path.join(folder, entry)) or folder
    found: Set[str] = set()
    dynamic = False
    pending: List[Tuple[str, str, bool]] = [(os.path.join(folder, entry), "", False)]
    while pending:
        path, module, is_package = pending.pop()
        try:
            with open(path, "rb") as handle:
                tree = ast.parse(handle.read(), path)
        except (OSError, SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        names, uses_dynamic = imports_of(tree, module, is_package)
        dynamic = dynamic or uses_dynamic
        for name in names:
            parts = name.split(".")
            for count in range(1, len(parts) + 1):
                prefix = parts[:count]
                if prefix[-1] == "*":
                    # A star import may load any submodule its package lists.
                    package = os.path.join(root, *prefix[:-1])
                    if os.path.isdir(package) and not os.path.islink(package):
                        for child in sorted(os.listdir(package)):
                            if child.endswith(".py") and child != "__init__.py":
                                dotted = ".".join(prefix[:-1] + [child[:-3]])
                                target = module_file(root, dotted)
                                if target is not None and target not in found:
                                    found.add(target)
                                    pending.append((target, dotted, False))
                    break
                target = module_file(root, ".".join(prefix))
                if target is not None and target not in found:
                    found.add(target)
                    pending.append((target, dotted_name(root, target),
                                    target.endswith("__init__.py")))
    found.discard(os.path.join(folder, entry))
    return sorted(found), dynamic


def main(argv: Sequence[str]) -> int:
    """Compile what ``argv[0]`` (the entry, relative to the current folder) imports, or
    every file without one (or when its imports are dynamic); the exit status."""
    if argv:
        files, dynamic = reachable(".", argv[0])
        if not dynamic:
            failed = 0
            for path in files:
                try:
                    py_compile.compile(path, doraise=True)
                except (py_compile.PyCompileError, OSError, ValueError) as error:
                    print(f"cannot compile {path}: {error}")
                    failed += 1
            return 1 if failed else 0
    import compileall        # here only: it imports pathlib and urllib (6 ms a build)
    return 0 if compileall.compile_dir(".", quiet=1) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
