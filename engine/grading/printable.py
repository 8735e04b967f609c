"""Text a submission controls, made safe to show: control characters shown, never obeyed.

Folder names, build logs, stderr and outputs come from students. Printed as they are,
an escape sequence repaints the terminal (``3/3 cases passed`` drawn over a failure), a
carriage return hides the start of a line, a right-to-left override reorders it, and a
cell starting with ``=`` is a formula to a spreadsheet. :func:`printable` shows every
such character as a backslash escape (``\\x1b``, ``\\r``, ``\\u202e``); :func:`csv_cell`
also keeps a spreadsheet from reading a cell as a formula; :func:`escaping_usage_errors`
does it for the one-line errors of a command (they may quote a folder name).
"""

from typing import Any, Callable, List, TypeVar, Union

from ..errors import UsageError

_Value = TypeVar("_Value")


def _escape(char: str) -> str:
    code = ord(char)
    if char in "\r\n":
        return "\\r" if char == "\r" else "\\n"
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def printable(text: Any, newlines: bool = False) -> str:
    """``text`` with every character Python does not call printable escaped: controls
    (C0, DEL, C1), formatting characters (bidi overrides, zero-width), separators other
    than the space, unassigned and private code points. Tabs stay, and so do newlines
    when ``newlines`` (multi-line details); otherwise they are escaped too."""
    if text is None:
        return ""
    text = str(text)
    if text.isprintable():
        return text          # the common case, fast
    kept = "\t\n" if newlines else "\t"
    return "".join(char if char in kept or char.isprintable() else _escape(char)
                   for char in text)


# A spreadsheet reads a cell that starts with one of these as a formula.
_FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: _Value) -> Union[_Value, str]:
    """``value`` for a CSV cell: numbers as they are; text :func:`printable` (one line),
    with a leading apostrophe when a spreadsheet would take it for a formula."""
    if not isinstance(value, str):
        return value
    text = printable(value)
    if text.startswith(_FORMULA_STARTS):
        return "'" + text
    return text


def escaping_usage_errors(body: Callable[[List[str]], int]) -> Callable[[List[str]], int]:
    """``body`` (a command's ``argv -> exit code``) whose :class:`UsageError` messages
    are :func:`printable`: they may quote a student's or an entrant's folder name."""
    def escaped(argv: List[str]) -> int:
        try:
            return body(argv)
        except UsageError as error:
            raise UsageError(printable(str(error))) from None
    return escaped
