"""What every SVG picture shares: numbers written short, text and attributes escaped."""

from xml.sax.saxutils import escape


def number(value: float) -> str:
    """``value`` with at most one decimal and no trailing zero (``12``, ``12.5``)."""
    return f"{value:.1f}".rstrip("0").rstrip(".")


def text(value: str) -> str:
    """``value`` escaped for XML character data."""
    return escape(value)


def attribute(value: str) -> str:
    """``value`` escaped for a double-quoted XML attribute."""
    return escape(value, {'"': "&quot;"})
