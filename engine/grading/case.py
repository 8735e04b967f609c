"""Cases: a command line, its inputs and the exact outputs expected of it.

A case on disk is a folder holding:

    cmd        one line: the program word, then its arguments, separated by single
               spaces (quote nothing). The program word is a top-level script of the
               repository (``tictactoe.py``, ``TakeStones``, ...) or ``engine`` for
               ``python3 -m engine``.
    stdin      optional: bytes fed to standard input (missing: empty input)
    files/     optional: files copied into the empty working folder before the run
    stdout     expected standard output, byte for byte (missing: must be empty)
    stderr     optional: expected standard error, byte for byte (missing: not checked)
    exit       optional: expected exit code (missing: 0)
    expected/  files that must exist after the run, byte for byte

After the run the working folder must hold exactly files/ plus expected/: a program that
leaves a stray or half-written file fails, and so does one that creates a file a case
says must not exist (e.g. the visited file after a terminal tic-tac-toe state).

:func:`load_case` / :func:`write_case` read and write that layout, :func:`run_reference`
runs one of the repository's own programs on a case, :func:`compare` lists every way an
:class:`Outcome` differs from the case, and :func:`replay` does all three.
"""

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, NamedTuple, Optional, Tuple, Union

from ..sandbox import open_folder, write_new

REPO = Path(__file__).resolve().parent.parent.parent
# A folder as the callers name it.
Folder = Union[str, Path]


class Case(NamedTuple):
    """One case. ``files`` and ``expected`` map relative paths to bytes."""
    name: str
    program: str
    args: Tuple[str, ...]
    stdin: bytes = b""
    files: Dict[str, bytes] = {}
    stdout: bytes = b""
    stderr: Optional[bytes] = None
    exit: int = 0
    expected: Dict[str, bytes] = {}


class Outcome(NamedTuple):
    """What a run did: its exit code (None when it was killed), its output streams, and
    every file of its working folder afterwards (relative path -> bytes)."""
    exit: Optional[int]
    stdout: bytes
    stderr: bytes
    files: Dict[str, bytes]


def snapshot(folder: Folder) -> Dict[str, bytes]:
    """{relative path: bytes} of every file under ``folder`` (POSIX separators)."""
    root = Path(folder)
    return {path.relative_to(root).as_posix(): path.read_bytes()
            for path in sorted(root.rglob("*")) if path.is_file()}


def _optional_bytes(path: Path) -> Optional[bytes]:
    return path.read_bytes() if path.exists() else None


def load_case(folder: Folder) -> Case:
    """The :class:`Case` stored in ``folder``. Raises ValueError on an empty ``cmd``."""
    folder = Path(folder)
    words = (folder / "cmd").read_text().split()
    if not words:
        raise ValueError(f"{folder}: empty cmd")
    exit_text = _optional_bytes(folder / "exit")
    return Case(
        name=folder.name, program=words[0], args=tuple(words[1:]),
        stdin=_optional_bytes(folder / "stdin") or b"",
        files=snapshot(folder / "files") if (folder / "files").is_dir() else {},
        stdout=_optional_bytes(folder / "stdout") or b"",
        stderr=_optional_bytes(folder / "stderr"),
        exit=int(exit_text) if exit_text is not None else 0,
        expected=snapshot(folder / "expected") if (folder / "expected").is_dir() else {})


def write_case(case: Case, folder: Folder) -> None:
    """Store ``case`` in ``folder`` (created; files of the layout are overwritten).

    Only what differs from the defaults is written (no ``stdin`` file for empty input,
    no ``exit`` file for 0, ...), except ``stdout``, always written so that a reader sees
    that the expected output is empty.
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "cmd").write_text(" ".join((case.program,) + tuple(case.args)) + "\n")
    (folder / "stdout").write_bytes(case.stdout)
    if case.stdin:
        (folder / "stdin").write_bytes(case.stdin)
    if case.stderr is not None:
        (folder / "stderr").write_bytes(case.stderr)
    if case.exit != 0:
        (folder / "exit").write_text(f"{case.exit}\n")
    for subfolder, contents in (("files", case.files), ("expected", case.expected)):
        for name, data in contents.items():
            path = folder / subfolder / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)


def prepare(case: Case, workdir: Folder) -> None:
    """Write the case's input files into the (empty) folder ``workdir``: each created
    exclusively, never through a link (see :func:`engine.sandbox.untrusted_files.write_new`;
    a name already there raises FileExistsError)."""
    folder = open_folder(str(workdir))
    try:
        for name, data in case.files.items():
            write_new(name, data, folder)
    finally:
        os.close(folder)


def reference_command(case: Case, python: Optional[str] = None, repo: Folder = REPO
                      ) -> List[str]:
    """The argv that runs the case with the repository's own program under ``python``."""
    python = python or sys.executable
    if case.program == "engine":
        return [python, "-m", "engine"] + list(case.args)
    return [python, str(Path(repo) / case.program)] + list(case.args)


def run_reference(case: Case, workdir: Folder, python: Optional[str] = None,
                  timeout: float = 600, repo: Folder = REPO) -> Outcome:
    """Run the repository's program on ``case`` in ``workdir``; return its Outcome.

    The working folder gets the case's input files first; PYTHONPATH points at ``repo``
    so that ``-m engine`` works from any folder, and hash randomisation stays on so that
    nothing may depend on set or dict order of strings.
    """
    prepare(case, workdir)
    env = dict(os.environ, PYTHONPATH=str(repo), PYTHONHASHSEED="random")
    completed = subprocess.run(reference_command(case, python, repo), cwd=workdir,
                               input=case.stdin, capture_output=True, timeout=timeout,
                               env=env)
    return Outcome(completed.returncode, completed.stdout, completed.stderr,
                   snapshot(workdir))


def compare(case: Case, outcome: Outcome) -> List[str]:
    """Every way ``outcome`` differs from ``case``, as short sentences (empty: it passed)."""
    problems: List[str] = []
    if outcome.exit != case.exit:
        problems.append(f"exit code {outcome.exit}, expected {case.exit}; "
                        f"stderr: {outcome.stderr[-500:]!r}")
    if outcome.stdout != case.stdout:
        problems.append(first_difference("stdout", outcome.stdout, case.stdout))
    if case.stderr is not None and outcome.stderr != case.stderr:
        problems.append(first_difference("stderr", outcome.stderr, case.stderr))
    wanted = dict(case.files, **case.expected)
    found = outcome.files
    for name in sorted(set(found) | set(wanted)):
        if name not in found:
            problems.append(f"file {name} missing")
        elif name not in wanted:
            problems.append(f"unexpected file {name} left behind")
        elif found[name] != wanted[name]:
            problems.append(first_difference(f"file {name}", found[name], wanted[name]))
    return problems


def replay(case: Union[Case, Folder], workdir: Folder, python: Optional[str] = None,
           timeout: float = 600) -> List[str]:
    """Run ``case`` (a Case or a case folder) in the empty ``workdir``; list mismatches."""
    if not isinstance(case, Case):
        case = load_case(case)
    return compare(case, run_reference(case, workdir, python, timeout))


def first_difference(what: str, got: bytes, want: bytes) -> str:
    """A short description of where ``got`` first differs from ``want``."""
    got_lines, want_lines = got.split(b"\n"), want.split(b"\n")
    for number, (line, expected) in enumerate(zip(got_lines, want_lines), 1):
        if line != expected:
            return f"{what}: line {number} is {line[:200]!r}, expected {expected[:200]!r}"
    return (f"{what}: {len(got_lines)} lines ({len(got)} bytes), "
            f"expected {len(want_lines)} lines ({len(want)} bytes)")


# --- cases as plain fields (the golden files' form) -------------------------------------
#
# A case can also be stored as a mapping of plain values (str and int), e.g. in a YAML
# file. Text fields hold the bytes decoded as UTF-8 when that text is "plain": it has
# no character a YAML writer or reader may change or refuse (CR, other control characters
# but LF and TAB, format characters such as a BOM, line and paragraph separators,
# unassigned code points). Anything else goes, escaped by :func:`escape_bytes`, under the
# field's ``_escaped`` name: ``stdout_escaped`` instead of ``stdout``, and for the file
# mappings an entry of ``files_escaped`` / ``expected_escaped`` instead of ``files`` /
# ``expected``.

TEXT_FIELDS = ("stdin", "stdout", "stderr")
FILE_FIELDS = ("files", "expected")
ESCAPED = "_escaped"
# Control (Cc), format (Cf), line/paragraph separator (Zl, Zp), surrogate (Cs) and
# unassigned (Cn) characters are never left to a YAML round trip; LF and TAB are.
_UNSAFE_CATEGORIES = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Cn"))


def _unsafe(char: str) -> bool:
    import unicodedata  # only the golden files need it: not on the programs' start-up path
    return char not in "\n\t" and unicodedata.category(char) in _UNSAFE_CATEGORIES


def plain_text(data: bytes) -> Optional[str]:
    """``data`` (bytes) as a str that a YAML file carries unchanged, or None if it has
    bytes that are not UTF-8 or characters a YAML round trip may change (see above)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        return None
    if any(_unsafe(char) for char in text):
        return None
    return text


def escape_bytes(data: bytes) -> str:
    """``data`` as plain text with backslash escapes: ``\\\\`` for a backslash, ``\\r``
    for CR, ``\\xNN`` for a byte that is not part of valid UTF-8, ``\\uNNNN`` /
    ``\\UNNNNNNNN`` for any other unsafe character. LF, TAB and everything else stay as
    they are, so an escaped text keeps its lines. :func:`unescape_text` reverses it."""
    parts: List[str] = []
    for char in data.decode("utf-8", "surrogateescape"):
        if char == "\\":
            parts.append("\\\\")
        elif char == "\r":
            parts.append("\\r")
        elif "\udc80" <= char <= "\udcff":          # an undecodable byte
            parts.append(f"\\x{ord(char) - 0xdc00:02x}")
        elif _unsafe(char):
            code = ord(char)
            parts.append(f"\\u{code:04x}" if code <= 0xffff else f"\\U{code:08x}")
        else:
            parts.append(char)
    return "".join(parts)


def unescape_text(text: str) -> bytes:
    """The bytes that :func:`escape_bytes` turned into ``text``. Raises ValueError on a
    backslash that starts no escape of that form."""
    out = bytearray()
    position = 0
    while True:
        backslash = text.find("\\", position)
        if backslash < 0:
            out += text[position:].encode("utf-8")
            return bytes(out)
        out += text[position:backslash].encode("utf-8")
        kind = text[backslash + 1:backslash + 2]
        width = {"\\": 0, "r": 0, "x": 2, "u": 4, "U": 8}.get(kind)
        digits = text[backslash + 2:backslash + 2 + (width or 0)]
        if width is None or len(digits) != width or not all(
                c in "0123456789abcdefABCDEF" for c in digits):
            raise ValueError(f"bad escape at character {backslash}: "
                             f"{text[backslash:backslash + 10]!r}")
        if kind == "\\":
            out += b"\\"
        elif kind == "r":
            out += b"\r"
        elif kind == "x":
            out.append(int(digits, 16))
        else:
            out += chr(int(digits, 16)).encode("utf-8", "surrogatepass")
        position = backslash + 2 + width


def _text_fields(name: str, data: bytes) -> Dict[str, str]:
    """{name: text} when ``data`` is plain, else {name + '_escaped': escaped text}."""
    text = plain_text(data)
    return {name: text} if text is not None else {name + ESCAPED: escape_bytes(data)}


def case_to_fields(case: Case) -> Dict[str, Any]:
    """``case`` as a dict of plain values, in reading order: ``cmd`` (the program word and
    its arguments joined by spaces, as in a ``cmd`` file), ``stdin`` (left out when empty),
    ``files``, ``exit``, ``stdout`` (always), ``stderr`` (left out when not checked),
    ``expected`` (file mappings left out when empty); text under ``_escaped`` names
    when it is not plain. :func:`case_from_fields` gives the same Case back."""
    fields: Dict[str, Any] = {"cmd": " ".join((case.program,) + tuple(case.args))}
    if case.stdin:
        fields.update(_text_fields("stdin", case.stdin))

    def add_files(name: str, contents: Mapping[str, bytes]) -> None:
        for path, data in sorted(contents.items()):
            for key, text in _text_fields(name, data).items():
                fields.setdefault(key, {})[path] = text

    add_files("files", case.files)
    fields["exit"] = case.exit
    fields.update(_text_fields("stdout", case.stdout))
    if case.stderr is not None:
        fields.update(_text_fields("stderr", case.stderr))
    add_files("expected", case.expected)
    return fields


def case_from_fields(name: str, fields: Mapping[str, Any]) -> Case:
    """The :class:`Case` named ``name`` that ``fields`` (see :func:`case_to_fields`)
    describe. Keys other than the case's own are ignored. Raises ValueError on an empty
    ``cmd``, on a field given both plainly and escaped, or on a bad escape."""
    words = str(fields.get("cmd") or "").split()
    if not words:
        raise ValueError(f"{name}: empty cmd")

    def text(key: str) -> Optional[bytes]:
        plain, escaped = fields.get(key), fields.get(key + ESCAPED)
        if plain is not None and escaped is not None:
            raise ValueError(f"{name}: both {key} and {key}{ESCAPED}")
        if escaped is not None:
            return unescape_text(escaped)
        return None if plain is None else plain.encode("utf-8")

    def files(key: str) -> Dict[str, bytes]:
        plain, escaped = fields.get(key) or {}, fields.get(key + ESCAPED) or {}
        both = sorted(set(plain) & set(escaped))
        if both:
            raise ValueError(f"{name}: {both} both in {key} and {key}{ESCAPED}")
        contents = {path: data.encode("utf-8") for path, data in plain.items()}
        contents.update((path, unescape_text(data)) for path, data in escaped.items())
        return dict(sorted(contents.items()))

    return Case(name=name, program=words[0], args=tuple(words[1:]),
                stdin=text("stdin") or b"", files=files("files"),
                stdout=text("stdout") or b"", stderr=text("stderr"),
                exit=int(fields.get("exit") or 0), expected=files("expected"))
