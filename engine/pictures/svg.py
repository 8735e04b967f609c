"""What every SVG picture shares: numbers written short (the markup is engine.markup's)."""


def number(value: float) -> str:
    """``value`` with at most one decimal and no trailing zero (``12``, ``12.5``)."""
    return f"{value:.1f}".rstrip("0").rstrip(".")
