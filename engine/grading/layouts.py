"""Class folders as instructors download them: every entry becomes a student or a reason.

:func:`read_paths` turns the SUBMISSION paths of ``grade run`` into :class:`Student`
rows. Each row is graded (``folder`` is what the kit builds) or carries the ``reason``
it is not (``folder`` None); nothing a class folder holds is dropped silently, so that
every student, and every stray file, shows in the console, the CSV, the JSON, the
Gradescope folder and the report.

Layouts (``--layout``; ``auto`` recognises each by its own marks):

``single``      the folder is one submission.
``folders``     one folder per student (``class/alice/``); loose files, folders that hold
                no entry point and names that differ only in case are listed with why.
``canvas``      Canvas's "Download Submissions": loose files named
                ``name[_late]_USERID_ATTACHMENTID_FILE`` (``smithbob_1234_5678_tictactoe.py``;
                ``LATE_`` in front also read; Canvas numbers a re-uploaded file
                ``tictactoe-1.py``).
``blackboard``  Blackboard's "Download Assignment": ``ASSIGNMENT_USER_attempt_DATE_FILE``
                per file and ``ASSIGNMENT_USER_attempt_DATE.txt``, a receipt whose
                ``Name: First Last (user)`` line names the student and whose ``Original
                filename`` / ``Filename`` lines map the files back; the latest attempt
                of each student is graded.
``moodle``      Moodle's "Download all submissions": ``Full Name_ID_assignsubmission_file_/``
                folders (``_assignsubmission_onlinetext_/`` beside them is text, not code).
``gradescope``  Gradescope's "Export Submissions": ``submission_ID/`` folders named in
                ``submission_metadata.yml`` (``:submitters:`` ``- :name:``).
``classroom``   GitHub Classroom clones: ``ASSIGNMENT-username/`` folders.

A student's name (never the export's own folder or file name) labels the row:
``export/Bob Smith``. Files of a flat export are staged, under their original names,
in a folder of the caller's (``staging``); they are read without following links,
regular files only, at most :data:`FILE_CAP` bytes each.

A folder that is a submission itself AND holds student submissions (a stray
``tictactoe.py`` at the top of a class folder) has two readings: :class:`Ambiguous`
names both and the flag that picks one. Names starting with ``.`` and ``__MACOSX``
(left by zip tools) are not entries.
"""

import os
import re
import stat
from collections import OrderedDict
from typing import Callable, Dict, Iterable, List, NamedTuple, Optional, Sequence, Tuple

from .detect import detect
from .judges import GradedAssignment
from ..sandbox import open_folder, read_regular, write_new
from ..errors import EngineError

LAYOUTS = ("auto", "single", "folders", "canvas", "blackboard", "moodle", "gradescope",
           "classroom")
# A file of a flat export larger than this is not staged (its student's row says so).
FILE_CAP = 64 << 20
# Entries that zip tools and file managers leave: never a student's.
NOISE = ("__MACOSX",)

CANVAS = re.compile(r"^(?:LATE_)?(?P<name>[A-Za-z0-9-]+?)(?:_(?:late|LATE))?_(?P<user>\d+)"
                    r"_(?P<attachment>\d+)_(?P<file>.+)$")
CANVAS_COPY = re.compile(r"^(?P<stem>.+?)-\d+(?P<ext>\.[^.]*)?$")
BLACKBOARD = re.compile(r"^(?P<assignment>.+?)_(?P<user>[^_]+)_attempt_"
                        r"(?P<date>\d{4}-\d\d-\d\d-\d\d-\d\d-\d\d)(?:_(?P<file>.+)|\.txt)$")
MOODLE = re.compile(r"^(?P<name>.+)_(?P<id>\d+)_assignsubmission_(?P<kind>[a-z]+)_$")
CLASSROOM = re.compile(r"^(?P<prefix>.+?-)(?P<user>[^-]+)$")


class Student(NamedTuple):
    """One row of the gradebook: ``label`` is shown everywhere (``class/alice``,
    ``export/Bob Smith``); ``folder`` is the folder to grade (None: not graded, see
    ``reason``); ``source`` is what of the class folder it came from; ``ids`` what the
    export says of the student (user id, email, ...)."""
    label: str
    folder: Optional[str]
    reason: Optional[str] = None
    source: str = ""
    ids: Tuple[str, ...] = ()


class Ambiguous(EngineError, ValueError):
    """A folder that reads as one submission and as a class folder (the message says
    both and the flag that picks one)."""


def _entries(path: str) -> List[str]:
    try:
        names = sorted(os.listdir(path))
    except OSError:
        return []
    return [name for name in names if not name.startswith(".") and name not in NOISE]


def _is_folder(path: str) -> bool:
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except OSError:
        return False


def _is_submission(assignment: GradedAssignment, path: str) -> bool:
    return detect(assignment, path).kind != "none"


def recognise(assignment: GradedAssignment, path: str) -> str:
    """The layout ``auto`` reads ``path`` as (see the module docstring). Raises
    :class:`Ambiguous` for a submission that also holds student submissions."""
    if not _is_folder(path):
        return "single"
    names = _entries(path)
    files = [name for name in names if not _is_folder(os.path.join(path, name))]
    folders = [name for name in names if _is_folder(os.path.join(path, name))]
    export = None
    if "submission_metadata.yml" in files:
        export = "gradescope"
    elif any(MOODLE.match(name) for name in folders):
        export = "moodle"
    elif any(BLACKBOARD.match(name) for name in files):
        export = "blackboard"
    elif any(CANVAS.match(name) for name in files):
        export = "canvas"
    students = [name for name in folders if _is_submission(assignment, os.path.join(path, name))]
    if export is None and len(folders) >= 2 and _classroom_prefix(folders) and all(
            _is_folder(os.path.join(path, name, ".git")) for name in folders):
        export = "classroom"
    itself = _is_submission(assignment, path)
    if itself and (export or len(students) >= 2):
        entry = detect(assignment, path)
        others = export or f"{len(students)} student folders ({', '.join(students[:3])}" \
            + (", ..." if len(students) > 3 else "") + ")"
        raise Ambiguous(
            f"{path} is a submission itself ({entry.kind}: {' '.join(entry.run)}) and "
            f"holds {others}: --layout single grades it as one submission, --layout "
            f"{export or 'folders'} grades each student")
    if itself:
        return "single"
    if export:
        return export
    return "folders" if students else "single"


def _classroom_prefix(folders: Sequence[str]) -> Optional[str]:
    """The ``ASSIGNMENT-`` prefix every folder shares, up to its last ``-`` (usernames
    may hold ``-`` too), or None."""
    common = os.path.commonprefix(list(folders))
    prefix = common[:common.rfind("-") + 1]
    if not prefix or any(len(name) == len(prefix) for name in folders):
        return None
    return prefix


def read_paths(assignment: GradedAssignment, paths: Sequence[str], layout: str = "auto",
               staging: Optional[str] = None, descend: bool = False
               ) -> Tuple[List[str], List["Student"]]:
    """``(layouts used, [Student])`` for the SUBMISSION ``paths`` (see the module
    docstring). ``staging`` is an empty folder for the flat exports' files (needed only
    for ``canvas`` and ``blackboard``). Raises :class:`Ambiguous`, and ValueError for a
    layout that does not fit the folder."""
    used, students = [], []
    for path in paths:
        chosen = recognise(assignment, path) if layout == "auto" else layout
        reader = READERS[chosen]
        found = reader(assignment, path, staging)
        if descend:
            found = [_descended(assignment, student) for student in found]
        used.append(chosen)
        students.extend(sorted(_unique_labels(found), key=lambda student: student.label))
    return used, students


def _descended(assignment: GradedAssignment, student: Student) -> Student:
    """With ``--descend``: a folder that is no submission but holds exactly one
    subfolder that is one (``alice/hw1``) stands for it."""
    folder = student.folder
    if folder is None or not _is_folder(folder) or _is_submission(assignment, folder):
        return student
    inside = [os.path.join(folder, name) for name in _entries(folder)
              if _is_folder(os.path.join(folder, name))
              and _is_submission(assignment, os.path.join(folder, name))]
    return student._replace(folder=inside[0]) if len(inside) == 1 else student


def _unique_labels(students: Sequence[Student]) -> List[Student]:
    """Two rows never share a label: a repeated one gets its source added."""
    counts: Dict[str, int] = {}
    for student in students:
        counts[student.label] = counts.get(student.label, 0) + 1
    return [student._replace(label=f"{student.label} ({student.source})")
            if counts[student.label] > 1 and student.source else student
            for student in students]


def _single(assignment: GradedAssignment, path: str, staging: Optional[str]) -> List[Student]:
    return [Student(path, path, None, path)]


def _loose(path: str, name: str, why: str) -> Student:
    label = os.path.join(path, name)
    return Student(label, None, why, name)


def _folders(assignment: GradedAssignment, path: str, staging: Optional[str]
             ) -> List[Student]:
    """One folder per student; every other entry is listed with the reason."""
    rows: List[Student] = []
    names = _entries(path)
    lowered: Dict[str, List[str]] = {}
    for name in names:
        lowered.setdefault(name.lower(), []).append(name)
    for name in names:
        full = os.path.join(path, name)
        twins = [other for other in lowered[name.lower()] if other != name]
        if twins:
            rows.append(_loose(path, name, f"{name} and {', '.join(twins)} differ only "
                               "in case (one student twice? a grader on a case-insensitive "
                               "disk would see one): keep one"))
        elif not _is_folder(full):
            rows.append(_loose(path, name, f"a loose file beside the students' folders: "
                               f"put it in a folder of its own ({_stem(name)}/) to grade "
                               "it"))
        else:
            rows.append(Student(full, full, None, name))
    return rows


def _stem(name: str) -> str:
    return name.split(".")[0] or name


def _stage(staging: str, key: str, files: Dict[str, Tuple[str, str]]
           ) -> Tuple[str, Optional[str]]:
    """A new folder under ``staging`` holding ``files`` ({name in the folder: (export
    folder, export file name)}); the reason it cannot be made, else None."""
    folder = os.path.join(staging, f"{len(os.listdir(staging)):04d}-{key}")
    os.mkdir(folder, 0o755)
    for target, (parent, name) in sorted(files.items()):
        descriptor = open_folder(parent)
        try:
            found = read_regular(name, descriptor, FILE_CAP + 1)
        finally:
            os.close(descriptor)
        if found is None:
            return folder, f"{name} is not a regular file"
        if found[1] > FILE_CAP:
            return folder, f"{name} is larger than {FILE_CAP >> 20} MB"
        # ``target`` may come from a receipt the student's upload named: written below
        # the staged folder only (no "..", no absolute name, no link followed).
        staged = open_folder(folder)
        try:
            write_new(target, found[0], staged)
        except (ValueError, OSError) as error:
            return folder, f"{target!r} cannot be staged ({error})"
        finally:
            os.close(staged)
    return folder, None


def _staged_row(label: str, staging: Optional[str], key: str, files: Dict[str, Tuple[str, str]],
                source: str, ids: Tuple[str, ...]) -> Student:
    if staging is None:
        raise ValueError("a flat export needs a staging folder")
    folder, problem = _stage(staging, re.sub(r"[^\w.-]", "_", key), files)
    if problem:
        return Student(label, None, problem, source, ids)
    return Student(label, folder, None, source, ids)


def _canvas(assignment: GradedAssignment, path: str, staging: Optional[str]
            ) -> List[Student]:
    """Loose files ``name[_late]_USER_ATTACHMENT_FILE``, grouped by student."""
    groups: Dict[Tuple[str, str], List[Tuple[str, str]]] = OrderedDict()
    rows: List[Student] = []
    for name in _entries(path):
        match = CANVAS.match(name)
        if match is None or _is_folder(os.path.join(path, name)):
            rows.append(_loose(path, name, "not named as Canvas names a student's file "
                               "(name_userid_attachmentid_file)"))
            continue
        groups.setdefault((match.group("name"), match.group("user")), []).append(
            (match.group("file"), name))
    for (student, user), files in groups.items():
        given = {original for original, _ in files}
        staged = {}
        for original, name in files:
            copy = CANVAS_COPY.match(original)
            # Canvas names a re-uploaded file tictactoe-1.py: the grader wants tictactoe.py.
            if copy and (copy.group("stem") + (copy.group("ext") or "")) not in given:
                original = copy.group("stem") + (copy.group("ext") or "")
            staged[original] = (path, name)
        rows.append(_staged_row(os.path.join(path, student), staging, student, staged,
                                ", ".join(name for _, name in files), (f"user {user}",)))
    return rows


def _receipt(path: str, name: str) -> Tuple[Optional[str], Dict[str, str]]:
    """(student's name or None, {stored file name: original name}) of a Blackboard
    receipt."""
    descriptor = open_folder(path)
    try:
        found = read_regular(name, descriptor, 1 << 20)
    finally:
        os.close(descriptor)
    if found is None:
        return None, {}
    text = found[0].decode("utf-8", errors="replace")
    match = re.search(r"^Name:\s*(.+?)(?:\s*\([^()]*\))?\s*$", text, re.MULTILINE)
    originals = dict((stored.strip(), original.strip()) for original, stored in re.findall(
        r"Original filename:\s*(.+?)\s*\n\s*Filename:\s*(.+?)\s*$", text, re.MULTILINE))
    return (match.group(1) if match else None), originals


def _blackboard(assignment: GradedAssignment, path: str, staging: Optional[str]
                ) -> List[Student]:
    """``ASSIGNMENT_USER_attempt_DATE[_FILE]``: each student's latest attempt."""
    # {user: {date: [(file, or None for the receipt; the export's name)]}}
    attempts: Dict[str, Dict[str, List[Tuple[Optional[str], str]]]] = OrderedDict()
    rows: List[Student] = []
    for name in _entries(path):
        match = BLACKBOARD.match(name)
        if match is None or _is_folder(os.path.join(path, name)):
            rows.append(_loose(path, name, "not named as Blackboard names an attempt's "
                               "file (assignment_user_attempt_date_file)"))
            continue
        attempts.setdefault(match.group("user"), {}).setdefault(
            match.group("date"), []).append((match.group("file"), name))
    for user, by_date in attempts.items():
        date = max(by_date)
        receipt = [name for file, name in by_date[date] if file is None]
        student: Optional[str] = None
        originals: Dict[str, str] = {}
        for name in receipt:
            student, originals = _receipt(path, name)
        files = {originals.get(name, file): (path, name)
                 for file, name in by_date[date] if file is not None}
        older = sorted(by_date)[:-1]
        source = ", ".join(name for _, name in by_date[date]) + (
            f" (older attempts set aside: {', '.join(older)})" if older else "")
        label = os.path.join(path, student or user)
        if not files:
            rows.append(Student(label, None, "the attempt holds no file",
                                source, (f"user {user}",)))
            continue
        rows.append(_staged_row(label, staging, user, files, source,
                                (f"user {user}", f"attempt {date}")))
    return rows


def _moodle(assignment: GradedAssignment, path: str, staging: Optional[str]
            ) -> List[Student]:
    """``Full Name_ID_assignsubmission_KIND_/`` folders: the ``file`` one is graded."""
    students: Dict[Tuple[str, str], Dict[str, str]] = OrderedDict()
    rows: List[Student] = []
    for name in _entries(path):
        match = MOODLE.match(name)
        if match is None or not _is_folder(os.path.join(path, name)):
            rows.append(_loose(path, name, "not named as Moodle names a submission "
                               "(Full Name_id_assignsubmission_file_)"))
            continue
        students.setdefault((match.group("name"), match.group("id")), {})[
            match.group("kind")] = name
    for (student, number), kinds in students.items():
        label = os.path.join(path, student)
        source = ", ".join(kinds[kind] for kind in sorted(kinds))
        if "file" in kinds:
            folder = os.path.join(path, kinds["file"])
            rows.append(Student(label, folder, None, source, (f"id {number}",)))
        else:
            rows.append(Student(label, None, "no file submission (only "
                                + ", ".join(sorted(kinds)) + ")", source, (f"id {number}",)))
    return rows


def gradescope_metadata(text: str) -> Dict[str, List[Tuple[str, str, str]]]:
    """{submission folder: [(name, sid, email)]} from a ``submission_metadata.yml``:
    the few keys Gradescope writes, read line by line (the kit has no YAML parser)."""
    found: Dict[str, List[Dict[str, str]]] = OrderedDict()
    current: Optional[str] = None
    person: Optional[Dict[str, str]] = None
    for line in text.splitlines():
        top = re.match(r"^(\S.*?):\s*$", line)
        if top:
            current = top.group(1).strip("'\"")
            found[current] = []
            person = None
            continue
        field = re.match(r"^\s*(-\s+)?:(name|sid|email):\s*(.*?)\s*$", line)
        if field and current is not None:
            value = field.group(3).strip("'\"")
            if field.group(1) or person is None:
                person = {"name": "", "sid": "", "email": ""}
                found[current].append(person)
            person[field.group(2)] = value
    return OrderedDict((key, [(p["name"], p["sid"], p["email"]) for p in people])
                       for key, people in found.items())


def _gradescope(assignment: GradedAssignment, path: str, staging: Optional[str]
                ) -> List[Student]:
    """``submission_ID/`` folders named by ``submission_metadata.yml``."""
    descriptor = open_folder(path)
    try:
        found = read_regular("submission_metadata.yml", descriptor, 16 << 20)
    finally:
        os.close(descriptor)
    metadata = gradescope_metadata(found[0].decode("utf-8", errors="replace")) \
        if found else {}
    rows = []
    for name in _entries(path):
        if name == "submission_metadata.yml":
            continue
        full = os.path.join(path, name)
        if not _is_folder(full):
            rows.append(_loose(path, name, "a loose file beside the submission_ID/ folders"))
            continue
        people = metadata.get(name)
        if not people:
            rows.append(Student(full, full, None, name, ("not in submission_metadata.yml",)))
            continue
        label = os.path.join(path, ", ".join(person[0] or person[2] or person[1]
                                             for person in people))
        ids = tuple(f"{person[0]} <{person[2]}> sid {person[1]}".strip() for person in people)
        rows.append(Student(label, full, None, name, ids))
    return rows


def _classroom(assignment: GradedAssignment, path: str, staging: Optional[str]
               ) -> List[Student]:
    """``ASSIGNMENT-username/`` clones, labelled by the username."""
    names = _entries(path)
    folders = [name for name in names if _is_folder(os.path.join(path, name))]
    prefix = _classroom_prefix(folders) or ""
    rows = []
    for name in names:
        full = os.path.join(path, name)
        if not _is_folder(full):
            rows.append(_loose(path, name, "a loose file beside the students' clones"))
        elif not name.startswith(prefix) or name == prefix:
            rows.append(Student(full, full, None, name))
        else:
            rows.append(Student(os.path.join(path, name[len(prefix):]), full, None, name,
                                (f"GitHub {name[len(prefix):]}",)))
    return rows


# How a layout reads a path: reader(assignment, path, staging) -> rows.
Reader = Callable[[GradedAssignment, str, Optional[str]], List[Student]]
READERS: Dict[str, Reader] = {
    "single": _single, "folders": _folders, "canvas": _canvas, "blackboard": _blackboard,
    "moodle": _moodle, "gradescope": _gradescope, "classroom": _classroom}


def students_summary(students: Iterable["Student"]) -> List[str]:
    """One stderr line per row that is not graded (what and why)."""
    return [f"{student.label}: {student.reason}" for student in students
            if student.folder is None]
