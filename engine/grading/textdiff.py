"""Why two texts differ, in the words a student needs: the diagnoses of plain bytes.

:func:`compare_text` sorts a difference between the expected bytes and a submission's
bytes into the cosmetic kinds a person fixes in a minute (CRLF line endings, trailing
blanks, a missing final newline) and a difference of content; :func:`content_difference`
names the content kind (garbage bytes, extra bytes after the expected output, output that
stops early, or the first differing line with the lines around it).

``--lenient`` (see :data:`LENIENT_KINDS`) forgives trailing blanks, a missing final
newline and extra blank lines at the end, and nothing else: CRLF endings are a real
difference to a byte-comparing grader.
"""

from typing import List, NamedTuple, Optional, Tuple

CRLF = "CRLF line endings"
TRAILING = "trailing blanks"
MISSING_TRAILING = "missing trailing blanks"
FINAL_NEWLINE = "missing final newline"
EXTRA_BLANK_LINES = "extra blank lines at the end"
# The kinds --lenient forgives (the first words of the notes below).
LENIENT_KINDS = (TRAILING, MISSING_TRAILING, FINAL_NEWLINE, EXTRA_BLANK_LINES)

CONTEXT_LINES = 2


class TextComparison(NamedTuple):
    """The result of :func:`compare_text`.

    ``notes``: the cosmetic differences found, e.g. ``["CRLF line endings",
    "trailing blanks on 3 lines"]``; ``expected`` / ``actual``: both texts with those
    differences normalised away (CRLF -> LF, trailing blanks stripped when they differ,
    final newline added when it is all that is missing); ``same_content``: whether the
    normalised texts are equal.
    """
    notes: List[str]
    expected: bytes
    actual: bytes
    same_content: bool

    @property
    def identical(self) -> bool:
        return self.same_content and not self.notes

    def lenient_pass(self) -> bool:
        """True when only differences that --lenient forgives remain."""
        return self.same_content and all(note.startswith(LENIENT_KINDS) for note in self.notes)


def _strip_line_ends(text: bytes) -> bytes:
    return b"\n".join(line.rstrip(b" \t") for line in text.split(b"\n"))


def compare_text(expected: bytes, actual: bytes) -> TextComparison:
    """Compare ``actual`` with ``expected`` (bytes): see :class:`TextComparison`."""
    notes: List[str] = []
    if actual == expected:
        return TextComparison(notes, expected, actual, True)
    if b"\r\n" in actual and b"\r\n" not in expected:
        notes.append(CRLF)
        actual = actual.replace(b"\r\n", b"\n")
    expected_lines, actual_lines = expected.split(b"\n"), actual.split(b"\n")
    if actual != expected:
        stripped_e, stripped_a = _strip_line_ends(expected), _strip_line_ends(actual)
        extra = missing = 0
        for want, got in zip(expected_lines, actual_lines):
            if want != got and want.rstrip(b" \t") == got.rstrip(b" \t"):
                if len(got) > len(want):
                    extra += 1
                else:
                    missing += 1
        if extra or missing:
            if extra:
                notes.append(f"{TRAILING} on {_lines(extra)}")
            if missing:
                notes.append(f"{MISSING_TRAILING} on {_lines(missing)}")
            expected, actual = stripped_e, stripped_a
    if actual != expected and expected.endswith(b"\n") and actual + b"\n" == expected:
        notes.append(FINAL_NEWLINE)
        actual = expected
    elif (actual != expected and expected.endswith(b"\n") and not actual.endswith(b"\n")
          and actual and not expected.startswith(actual + b"\n")):
        # Content differs too, but say it: the student will meet it next.
        notes.append(FINAL_NEWLINE)
        actual += b"\n"
    if (actual != expected and expected.endswith(b"\n") and actual.startswith(expected)
            and not actual[len(expected):].strip(b"\n")):
        notes.append(f"{EXTRA_BLANK_LINES} ({len(actual) - len(expected)})")
        actual = expected
    return TextComparison(notes, expected, actual, actual == expected)


def _lines(count: int) -> str:
    return f"{count} line" + ("" if count == 1 else "s")


def is_text(data: bytes) -> bool:
    """True when ``data`` holds only printable ASCII, tabs and newlines."""
    return not data.translate(None, _TEXT_BYTES)


_TEXT_BYTES = bytes(range(0x20, 0x7f)) + b"\t\n"


def garbage(data: bytes) -> Optional[Tuple[int, bytes]]:
    """(offset, byte) of the first byte of ``data`` that is not printable text, or None."""
    for offset, byte in enumerate(data):
        if not (0x20 <= byte < 0x7f or byte in (9, 10)):
            return offset, bytes([byte])
    return None


def content_difference(expected: bytes, actual: bytes, what: str = "output"
                       ) -> Tuple[str, str]:
    """(reason, detail) for texts that differ in content (after :func:`compare_text`).

    Reasons: "garbage/non-text bytes", "extra bytes after the expected output",
    "output stops early", or "first difference at line N" with the expected and actual
    lines and the lines before them in ``detail``.
    """
    bad = garbage(actual) if is_text(expected) else None
    if bad is not None:
        offset, byte = bad
        line = actual[:offset].count(b"\n") + 1
        return ("garbage/non-text bytes",
                f"{what}: byte {offset} (line {line}) is {byte!r}, which is not text; "
                + first_line_difference(expected, actual, what)[1])
    newline = b"\n"
    if actual.startswith(expected):
        extra = actual[len(expected):]
        return ("extra bytes after the expected output",
                f"{what}: the expected {_lines(expected.count(newline))} are all there, "
                f"then {len(extra)} more bytes follow: {_show(extra[:200])}")
    if expected.startswith(actual):
        following = expected[len(actual):].split(newline)[0]
        return ("output stops early",
                f"{what}: only {_lines(actual.count(newline))} of the expected "
                f"{expected.count(newline)} ({len(actual)} of {len(expected)} bytes); the "
                f"next expected line is {_show(following)}")
    return first_line_difference(expected, actual, what)


def first_line_difference(expected: bytes, actual: bytes, what: str = "output"
                          ) -> Tuple[str, str]:
    """("first difference at line N", detail with context) for two differing texts."""
    want_lines, got_lines = expected.split(b"\n"), actual.split(b"\n")
    index = next((index for index, (want, got) in enumerate(zip(want_lines, got_lines))
                  if want != got), min(len(want_lines), len(got_lines)))
    number = index + 1
    context = want_lines[max(0, index - CONTEXT_LINES):index]
    lines = [f"{what}: first difference at line {number}"]
    for offset, line in enumerate(context):
        lines.append(f"  {number - len(context) + offset:>6}   {_show(line)}")
    end = "(end of output)"
    lines.append("  expected " + (_show(want_lines[index]) if index < len(want_lines) else end))
    lines.append("  got      " + (_show(got_lines[index]) if index < len(got_lines) else end))
    return f"first difference at line {number}", "\n".join(lines)


def _show(line: bytes) -> str:
    """A line as a person reads it: text as is (quoted), other bytes escaped."""
    text = repr(line)[1:]
    return text if len(text) < 240 else text[:237] + "...'"
