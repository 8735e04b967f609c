"""Helpers every program shares: the error contract, atomic output files, and how the
user called us (to print commands they can run as they are)."""

from __future__ import annotations

import os
import stat
import sys

from .errors import UsageError

# Every program imports this module, so a grader's every run pays for what it imports:
# typing, pathlib, shlex and signal (about 30 ms together) are imported by the functions
# that use them, or read by mypy only (tests/test_startup.py pins a case's imports).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import argparse
    from pathlib import Path
    from typing import Any, Callable, List, NoReturn, Optional, Tuple, Union


# ENGINE_DEBUG=1 in the environment: a program shows the traceback its one-line error
# message stands for (see run_program).
DEBUG_VARIABLE = "ENGINE_DEBUG"


def _debug_traceback() -> None:
    """Under ENGINE_DEBUG=1, print the traceback of the exception being handled."""
    if os.environ.get(DEBUG_VARIABLE, "") not in ("", "0"):
        import traceback  # only then: no run without the switch pays for the import
        traceback.print_exc(file=sys.stderr)


def run_program(name: str, body: Callable[[List[str]], Optional[int]], argv: List[str],
                help_text: Optional[str] = None) -> int:
    """Run ``body(argv)`` with the project's error contract and return the exit code.

    ``-h``/``--help`` as the first argument prints ``help_text`` and exits 0.

    A :class:`UsageError` becomes one line ``<name>: <message>`` on stderr and exit code 2;
    so does any other exception (an internal error must never show a traceback to a
    grader), worded as such. Ctrl-C exits 130 quietly; a closed stdout pipe exits 0.
    With ENGINE_DEBUG=1 in the environment, both kinds of error also print their
    traceback on stderr, after the line.
    """
    try:
        if help_text is not None and argv[:1] in (["-h"], ["--help"]):
            print(help_text.strip("\n"))
            return 0
        code = body(argv)
        return 0 if code is None else code
    except UsageError as error:
        print(f"{name}: {error}", file=sys.stderr)
        _debug_traceback()
        return 2
    except KeyboardInterrupt:
        print(f"{name}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `| head`): not an error of ours.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except Exception as error:  # noqa: BLE001 - last line of defence, see docstring
        print(f"{name}: internal error: {type(error).__name__}: {error}", file=sys.stderr)
        _debug_traceback()
        return 2


def stream_target(path: Union[str, "os.PathLike[str]"]) -> Optional[str]:
    """``path`` when it names a character device or a FIFO (``/dev/null``, a named pipe,
    ``/dev/stdout``): such a file is written into, never renamed over (as root, renaming
    over /dev/null replaced the device by a regular file for every program). Else None.

    Only what root or we made counts, or what lies in a folder nobody else may write: a
    link is followed only when root or we own it and its folder is ours alone (the links
    of /dev, as /dev/stdout), and a pipe or device another user made in a shared folder
    (as /tmp) is replaced as any file there, never written into (our output would go to
    its reader, or wait for ever for one)."""
    name = os.fspath(path)
    mine = (0, os.getuid())
    try:
        status = os.lstat(name)
        folder = os.stat(os.path.dirname(os.path.abspath(name)))
        ours_alone = folder.st_uid in mine and not folder.st_mode & 0o022
        if stat.S_ISLNK(status.st_mode):
            if status.st_uid not in mine or not ours_alone:
                return None
            status = os.stat(name)
        elif status.st_uid not in mine and not ours_alone:
            return None
    except OSError:
        return None
    return name if stat.S_ISCHR(status.st_mode) or stat.S_ISFIFO(status.st_mode) else None


def write_atomically(path: Union[str, "os.PathLike[str]"], data: Union[str, bytes]) -> None:
    """Write ``data`` (str or bytes) to ``path`` all at once: temp file, then rename.

    A reader never sees a half-written file, and ``path`` is left untouched if writing
    fails. A character device or a FIFO (see :func:`stream_target`) is written into
    instead. Raises UsageError when the folder cannot be written.
    """
    if isinstance(data, str):
        data = data.encode("utf-8")
    target = stream_target(path)
    if target is not None:
        try:
            with open(target, "wb") as handle:
                handle.write(data)
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror}") from None
        return
    folder = os.path.dirname(os.path.abspath(path))
    # A new file in the same folder, so that the final rename is atomic, under a name
    # nobody can guess and created exclusively: a link planted there is never written
    # through. (Not the tempfile module: importing it costs more than many a whole run.)
    for _ in range(100):
        temporary = os.path.join(
            folder, f".{os.path.basename(path)}.{os.urandom(6).hex()}.tmp")
        try:
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL
                                 | os.O_NOFOLLOW, 0o644)
            break
        except FileExistsError:
            continue
        except OSError as error:
            raise UsageError(f"cannot write {path}: {error.strerror}") from None
    else:
        raise UsageError(f"cannot write {path}: no free temporary name")
    try:
        with os.fdopen(descriptor, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except OSError as error:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise UsageError(f"cannot write {path}: {error.strerror}") from None


def parse_positive_int(text: str, what: str) -> int:
    """``int(text)`` if it is a positive decimal integer, else UsageError naming ``what``."""
    if not (text.isascii() and text.isdigit()) or int(text) < 1:
        raise UsageError(f"{what} must be a positive integer, not {text!r}")
    return int(text)


def argument_parser(prefix_errors: bool = False, **options: Any) -> "argparse.ArgumentParser":
    """An ``argparse.ArgumentParser(**options)`` whose errors (and its subparsers') are
    UsageErrors: one stderr line and exit code 2 through :func:`run_program`, never
    argparse's usage dump and exit; with ``prefix_errors``, each message starts with the
    last word of the (sub)parser's prog (``table: ...``). argparse is imported here, not
    by every program."""
    import argparse

    class ArgumentParser(argparse.ArgumentParser):
        def error(self, message: str) -> "NoReturn":
            if prefix_errors:
                message = f"{self.prog.split()[-1]}: {message}"
            raise UsageError(message)
    return ArgumentParser(**options)


def positive(kind: Callable[[str], Any]) -> Callable[[str], Any]:
    """An argparse ``type`` taking ``kind(text)`` (int, float) when it is above zero."""
    def parse(text: str) -> Any:
        import argparse
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
        if not value > 0:
            raise argparse.ArgumentTypeError(f"must be positive: {text!r}")
        return value
    return parse


def read_text_file(path: Union[str, "os.PathLike[str]"], errors: str = "strict",
                   cap: Optional[int] = None) -> str:
    """The UTF-8 text of the input file ``path`` (``errors``: how bytes that are not
    UTF-8 are taken, as ``bytes.decode`` does); UsageError "cannot read PATH: WHY" when
    it cannot be read or decoded, or is larger than ``cap`` bytes."""
    try:
        with open(path, "rb") as handle:
            data = handle.read() if cap is None else handle.read(cap + 1)
    except OSError as error:
        raise UsageError(f"cannot read {os.fspath(path)}: {error.strerror}") from None
    if cap is not None and len(data) > cap:
        raise UsageError(f"cannot read {os.fspath(path)}: it is larger than "
                         f"{cap >> 20} MB")
    try:
        return data.decode("utf-8", errors=errors)
    except UnicodeDecodeError:
        raise UsageError(f"cannot read {os.fspath(path)}: not UTF-8 text") from None


def terminate_as_interrupt() -> None:
    """From now on SIGTERM (a scheduler preempting or cancelling a task, ``kill``)
    stops this process as Ctrl-C does: long runs keep what they finished and exit 130.
    Call from the main thread."""

    import signal

    def interrupt(number: int, frame: Any) -> None:
        raise KeyboardInterrupt()

    signal.signal(signal.SIGTERM, interrupt)


def invoked_as() -> str:
    """How the user called us: ``python3 -m engine``, or the installed command's name
    (``game-search``)."""
    name = os.path.basename(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    return "python3 -m engine" if name in ("", "__main__.py", "-c") else name


def package_parent() -> str:
    """The folder holding the ``engine`` package running now."""
    from pathlib import Path
    return str(Path(__file__).resolve().parent.parent)


def command_words() -> str:
    """The start of a command line that runs this engine from any folder, as the user
    called us: the installed command (its script imports the installed package, never a
    copy in the current folder), else ``PYTHONPATH=<the package's folder> python3 -m
    engine`` (where a copy in the current folder would come first, the programs that
    use our search refuse: :func:`shadowing_engine`)."""
    import shlex
    called = invoked_as()
    if called != "python3 -m engine":
        return called
    return f"PYTHONPATH={shlex.quote(package_parent())} python3 -m engine"


def shadowing_engine(pythonpath: Optional[str] = None,
                     loaded: Union[str, Path, None] = None) -> Optional[Tuple[Path, Path]]:
    """``(loaded, wanted)`` package folders when the ``engine`` package running now is not
    the one PYTHONPATH names (else None).

    ``python3 -m engine`` puts the current folder first on sys.path: run from a folder
    that holds an ``engine/`` of its own (a student's copy of this repository), it runs
    that copy, not the one PYTHONPATH asks for.
    """
    from pathlib import Path
    loaded = Path(loaded or Path(__file__).resolve().parent)
    pythonpath = os.environ.get("PYTHONPATH", "") if pythonpath is None else pythonpath
    for entry in pythonpath.split(os.pathsep):
        candidate = Path(entry or ".") / "engine"
        if entry and (candidate / "__init__.py").is_file():
            if candidate.resolve() != loaded.resolve():
                return loaded, candidate.resolve()
            return None
    return None
