"""Markup built one way for the standard-library features: escaped unless marked safe.

Every page and picture the engine writes without the ladder (the stepper, the tree
pictures, the tournament report, the kit's report) is built here, from two things:

* assets: the page skeletons, styles and scripts are files in ``engine/<package>/assets/``,
  read with :func:`asset` (importlib.resources; it works from a wheel, a source tree and
  inside a zip application, on Python 3.8 and PyPy too);
* a :class:`Dialect`'s builders: :meth:`~Dialect.element` for one element,
  :meth:`~Dialect.join` for a run of them, :meth:`~Dialect.fill` for an asset's named
  slots (``{{name}}``), :meth:`~Dialect.start` and :meth:`~Dialect.end` for a document
  written a line at a time.

The rule that makes a forgotten escape impossible: a value is text unless it is
:class:`Markup`. Builders escape every str they are given (text, attribute values, slot
values) and pass Markup through untouched; what they return is Markup. Only markup we
wrote is ever marked by hand: an asset, a JSON blob made safe for a script element.

Two dialects, because the pages' bytes predate this module and stay the same:
:data:`HTML` escapes ``& < > " '`` everywhere (:func:`html.escape`), :data:`XML` escapes
``& < >`` in text and ``"`` too in attribute values (the SVG pictures and the stepper
page). HTML writes its void elements (``<meta>``, ``<input>``) without an end tag; XML
closes an element given no content at all as ``<rect/>``.
"""

import base64
import functools
import hashlib
import html
import os
import re
from typing import Callable, Dict, Iterable, List, Mapping, Optional, Union

__all__ = ["Markup", "Content", "Attribute", "Dialect", "HTML", "XML", "asset", "script_hash"]


class Markup(str):
    """Text that is already markup: builders insert it as it is, never escaped again.

    Concatenating Markup with a str gives a plain str (text again): build with the
    dialect's builders, which keep the mark."""

    __slots__ = ()


# What a builder accepts as content: Markup, text (escaped), numbers (written with str),
# None (nothing), or an iterable of these (written one after the other).
Content = Union[str, int, float, None, Iterable]
# An attribute's value: text (escaped) or Markup, a number, True (the bare name) or
# None / False (the attribute is left out).
Attribute = Union[str, int, float, bool, None]

# An escaping function: text in, the same text as markup out.
Escape = Callable[[str], str]

_SLOT = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")


# (Most values hold no character to escape: a test of each is quicker than replacing.)
def _xml_text(value: str) -> str:
    if "&" in value or "<" in value or ">" in value:
        return value.replace("&", "&amp;").replace(">", "&gt;").replace("<", "&lt;")
    return value


def _xml_attribute(value: str) -> str:
    if "&" in value or "<" in value or ">" in value or '"' in value:
        return _xml_text(value).replace('"', "&quot;")
    return value


def _html_escape(value: str) -> str:
    if "&" in value or "<" in value or ">" in value or '"' in value or "'" in value:
        return html.escape(value)                   # (quotes too: quote=True by default)
    return value


def _attribute_name(name: str) -> str:
    """The attribute a Python keyword names (see Dialect.attributes), remembered."""
    _ATTRIBUTE_NAMES[name] = written = name.rstrip("_").replace("_", "-")
    return written


_ATTRIBUTE_NAMES: Dict[str, str] = {}


class Dialect:
    """How one kind of document escapes and closes its elements (see the module docstring).

    ``text``/``attribute``: the escaping of text and of a double-quoted attribute value;
    ``void``: elements written without an end tag (HTML); ``close_empty``: an element
    given no content is written ``<tag/>`` (XML)."""

    def __init__(self, text: Escape, attribute: Escape, void: Iterable[str] = (),
                 close_empty: bool = False) -> None:
        self._text = text
        self._attribute = attribute
        self.void = frozenset(void)
        self.close_empty = close_empty

    def escape(self, value: Content) -> Markup:
        """``value`` as markup: Markup as it is, anything else written and escaped."""
        if isinstance(value, str):
            return value if isinstance(value, Markup) else Markup(self._text(value))
        out: List[str] = []
        self._write((value,), out)
        return Markup("".join(out))

    def join(self, parts: Iterable[Content], separator: str = "") -> Markup:
        """The ``parts`` one after the other (``separator``, markup, between them), each
        escaped unless it is Markup; None parts are skipped, iterables written in turn."""
        if not separator:
            out: List[str] = []
            self._write(parts, out)
            return Markup("".join(out))
        return Markup(separator.join(self.escape(part) for part in parts if part is not None))

    def _write(self, parts: Iterable[Content], out: List[str]) -> None:
        """Append each of ``parts`` to ``out`` as markup (see :meth:`join`)."""
        text = self._text
        for part in parts:
            if isinstance(part, str):
                out.append(part if isinstance(part, Markup) else text(part))
            elif part is None:
                continue
            elif isinstance(part, (int, float)):
                out.append(text(str(part)))
            else:
                self._write(part, out)

    def attributes(self, attributes: Mapping[str, Attribute]) -> str:
        """`` name="value"`` for each attribute, in order. A Python name maps to the
        attribute's: a trailing ``_`` is dropped (``class_``), other ``_`` become ``-``
        (``data_g``, ``stroke_width``)."""
        escape, names = self._attribute, _ATTRIBUTE_NAMES
        written = []
        for name, value in attributes.items():
            if value is None or value is False:
                continue
            name = names.get(name) or _attribute_name(name)
            if value is True:
                written.append(" " + name)
            elif isinstance(value, Markup):
                written.append(f' {name}="{value}"')
            else:
                written.append(f' {name}="{escape(str(value))}"')
        return "".join(written)

    def element(self, tag: str, *content: Content, **attributes: Attribute) -> Markup:
        """``<tag attributes>content</tag>``, the content escaped unless it is Markup.

        Raises ValueError for content given to a void element."""
        head = "<" + tag + self.attributes(attributes) if attributes else "<" + tag
        if tag in self.void:
            if content:
                raise ValueError(f"<{tag}> is a void element: it holds no content")
            return Markup(head + ">")
        if not content and self.close_empty:
            return Markup(head + "/>")
        if len(content) == 1 and isinstance(content[0], str):     # (the common case: fast)
            inner = content[0]
            if not isinstance(inner, Markup):
                inner = self._text(inner)
        else:
            out: List[str] = []
            self._write(content, out)
            inner = "".join(out)
        return Markup(head + ">" + inner + "</" + tag + ">")

    def start(self, tag: str, **attributes: Attribute) -> Markup:
        """``<tag attributes>`` alone, for a document written a line at a time (its
        content follows, then :meth:`end`)."""
        return Markup("<" + tag + self.attributes(attributes) + ">")

    def end(self, tag: str) -> Markup:
        """``</tag>``, closing what :meth:`start` opened."""
        return Markup("</" + tag + ">")

    def fill(self, template: str, **slots: Content) -> Markup:
        """``template`` (an asset) with each ``{{name}}`` replaced by ``slots[name]``,
        escaped unless it is Markup.

        Raises ValueError when a slot of the template is not given or a given one is
        not in the template (a page and its code must agree)."""
        named = set(_SLOT.findall(template))
        if named != set(slots):
            raise ValueError("template slots and values differ: "
                             + ", ".join(sorted(named.symmetric_difference(slots))))
        filled = {name: self.escape(value) for name, value in slots.items()}
        return Markup(_SLOT.sub(lambda match: filled[match.group(1)], template))


HTML = Dialect(_html_escape, _html_escape,
               void=("area", "base", "br", "col", "embed", "hr", "img", "input", "link",
                     "meta", "source", "track", "wbr"))
XML = Dialect(_xml_text, _xml_attribute, close_empty=True)


@functools.lru_cache(maxsize=None)
def asset(package: str, name: str) -> Markup:
    """The text (UTF-8) of ``assets/<name>`` beside ``package``'s modules, e.g.
    ``asset("engine.pictures", "stepper.js")``: markup of ours, never escaped.

    Read with importlib.resources (``files()``, Python 3.9+) or, on 3.8, pkgutil, whose
    loaders read a source tree, an installed package and a zip application alike.
    Raises OSError (FileNotFoundError) when the file is not there."""
    try:
        from importlib.resources import files
    except ImportError:                      # Python 3.8: no files(); the same bytes
        return Markup(_read_with_pkgutil(package, name))
    return Markup((files(package) / "assets" / name).read_bytes().decode("utf-8"))


def preload_assets(package: str) -> List[str]:
    """Read every file of ``package``'s assets/ into :func:`asset`'s cache now (a server
    about to lose the right to read its code's folder); the names read."""
    import importlib
    module = importlib.import_module(package)
    folder = os.path.join(os.path.dirname(os.path.abspath(module.__file__ or "")), "assets")
    names = sorted(os.listdir(folder))
    for name in names:
        asset(package, name)
    return names


def _read_with_pkgutil(package: str, name: str) -> str:
    import pkgutil
    data: Optional[bytes] = pkgutil.get_data(package, "assets/" + name)
    if data is None:
        raise FileNotFoundError(f"{package}: assets/{name}")
    return data.decode("utf-8")


def script_hash(script: str) -> str:
    """The Content-Security-Policy source that lets exactly this inline ``script`` run:
    ``'sha256-<base64 digest of its UTF-8 bytes>'``."""
    digest = hashlib.sha256(script.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"
