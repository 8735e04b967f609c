"""A submission's source files, read as the kit reads what students hand in.

:func:`read_submission` walks a submission folder (or takes one file) without following a
link (engine.sandbox.untrusted_files: every component opened relative to its folder,
``O_NOFOLLOW``), within :data:`BOUNDS`, skipping the folders a build never copies
(version control, virtual environments, caches), and reads the files some lexer reads
(:mod:`engine.similarity.languages`), regular files only, at most :data:`FILE_CAP`
bytes each. A file is set aside, with the reason, when it is

* ``empty``: nothing but blanks (or no token at all, found later);
* ``binary``: it holds a NUL byte (a compiled file under a source file's name);
* ``too large``: over :data:`FILE_CAP` bytes (or past :data:`SUBMISSION_CAP` in all);
* ``unreadable``: a link, a special file, or a file the kit may not open.

Text is decoded as UTF-8, an invalid byte read as U+FFFD (a Latin-1 comment does not
make a file unreadable).
"""

import os
import stat
from typing import List, NamedTuple, Optional, Tuple

from ..grading.detect import IGNORED, submission_root
from ..sandbox.untrusted_files import (Bounds, TooLarge, open_folder, open_path,
                                       read_regular, walk)
from .languages import language_of

# Past this a source file is not read (a 400-line program is about 15 kB).
FILE_CAP = 1 << 20
# Past this in all, the rest of a submission's source files are not read.
SUBMISSION_CAP = 8 << 20
# How much of a submission folder is walked (the files' sizes do not count: only the
# source files are read, each within FILE_CAP).
BOUNDS = Bounds(depth=32, entries=10_000, bytes=1 << 62)


class SourceFile(NamedTuple):
    """One source file of a submission: its path within the submission (``/``
    separators; the file's own name when the submission is one file), its language and
    its text."""
    name: str
    language: str
    text: str


class Submission(NamedTuple):
    """What :func:`read_submission` found: the files to compare, and one line per file
    set aside (``reason: name (detail)``, the reason one of the words of the module
    docstring). ``error`` is set when the submission itself could not be read."""
    files: List[SourceFile]
    set_aside: List[str]
    error: Optional[str] = None


def read_submission(path: str) -> Submission:
    """The source files of the submission at ``path`` (a folder or one file)."""
    try:
        root = submission_root(path)
        status = os.lstat(root)
    except OSError as error:
        return Submission([], [], f"unreadable: {error.strerror or error}")
    if stat.S_ISREG(status.st_mode):
        # One file named by the instructor: its folder is theirs to resolve.
        folder, name = os.path.split(os.path.abspath(root))
        return _read_files(os.path.realpath(folder), [name])
    if not stat.S_ISDIR(status.st_mode):
        return Submission([], [], "unreadable: not a folder nor a regular file")
    try:
        entries = walk(root, BOUNDS, skip=IGNORED)
    except TooLarge as error:
        return Submission([], [], f"too large: {error}")
    except OSError as error:
        return Submission([], [], f"unreadable: {error.strerror or error}")
    names = [entry.path for entry in entries
             if entry.kind in ("file", "link", "other") and language_of(entry.path)
             and not set(entry.path.split("/")[:-1]) & set(IGNORED)]
    return _read_files(root, names)


def _read_files(folder: str, names: List[str]) -> Submission:
    try:
        top = open_folder(folder)
    except OSError as error:
        return Submission([], [], f"unreadable: {error.strerror or error}")
    files: List[SourceFile] = []
    set_aside: List[str] = []
    total = 0
    try:
        for name in names:
            language = language_of(name)
            if language is None:
                set_aside.append(f"not compared: {name} (no language of ours)")
                continue
            if total > SUBMISSION_CAP:
                set_aside.append(f"too large: {name} (past {SUBMISSION_CAP >> 20} MB of "
                                 "source in all)")
                continue
            text, problem = _read_text(top, name)
            if problem is not None:
                set_aside.append(f"{problem[0]}: {name}" + (f" ({problem[1]})"
                                                              if problem[1] else ""))
                continue
            total += len(text)
            files.append(SourceFile(name, language, text))
    finally:
        os.close(top)
    return Submission(files, set_aside)


def _read_text(top: int, name: str) -> Tuple[str, Optional[Tuple[str, str]]]:
    """``(text, None)`` of the file ``name`` below the open folder ``top``, or
    ``("", (reason, detail))``."""
    parent, _, base = name.rpartition("/")
    try:
        folder = open_path(parent, top) if parent else os.dup(top)
    except OSError:
        return "", ("unreadable", "a folder on its way is a link or cannot be opened")
    try:
        found = read_regular(base, folder, FILE_CAP + 1)
    finally:
        os.close(folder)
    if found is None:
        return "", ("unreadable", "a link, a special file, or not readable by the kit")
    data, size = found
    if size > FILE_CAP:
        return "", ("too large", f"{size:,} bytes; the cap is {FILE_CAP >> 20} MB")
    if b"\0" in data:
        return "", ("binary", "it holds NUL bytes")
    text = data.decode("utf-8", errors="replace")
    if not text.strip():
        return "", ("empty", "")
    return text, None
