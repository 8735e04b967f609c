"""engine.markup: every value is escaped unless it is Markup; elements, joins and slots."""

import pytest

from engine.markup import HTML, XML, Markup, asset, script_hash

HOSTILE = "</td><script>alert('x')</script>&amp;\""


def test_text_is_escaped_and_markup_is_kept():
    cell = HTML.element("td", HOSTILE)
    assert cell == ("<td>&lt;/td&gt;&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;"
                    "&amp;amp;&quot;</td>")
    assert isinstance(cell, Markup)
    # What a builder returned is markup: nested, it is not escaped a second time.
    assert HTML.element("tr", cell) == "<tr>" + cell + "</tr>"
    assert HTML.escape(Markup("<b>")) == "<b>" and HTML.escape("<b>") == "&lt;b&gt;"


def test_xml_escapes_quotes_in_attributes_only():
    text = XML.element("text", "a\"b'c<&>", title="a\"b'c<&>")
    assert text == ('<text title="a&quot;b\'c&lt;&amp;&gt;">a"b\'c&lt;&amp;&gt;</text>')


def test_attribute_values_are_escaped_and_named_from_python():
    tag = HTML.element("tr", class_="n", data_title=HOSTILE, data_open=True, hidden=None,
                       checked=False, colspan=10)
    assert tag == ('<tr class="n" data-title="&lt;/td&gt;&lt;script&gt;alert(&#x27;x&#x27;)'
                   '&lt;/script&gt;&amp;amp;&quot;" data-open colspan="10"></tr>')
    assert HTML.element("a", "x", href=Markup("#a&amp;b")) == '<a href="#a&amp;b">x</a>'


def test_void_and_empty_elements():
    assert HTML.element("input", type="search") == '<input type="search">'
    assert HTML.element("td") == "<td></td>"
    assert XML.element("rect", x=1) == '<rect x="1"/>'
    assert XML.element("text", "") == "<text></text>"       # content given, even empty
    with pytest.raises(ValueError):
        HTML.element("br", "text")


def test_join_skips_none_flattens_and_escapes():
    joined = HTML.join(["a<", None, 3, (Markup("<i>"), ["b&"]), 1.5], ", ")
    assert joined == "a&lt;, 3, <i>b&amp;, 1.5"
    assert isinstance(joined, Markup)


def test_fill_escapes_each_slot_and_checks_the_names():
    page = HTML.fill("<title>{{title}}</title>{{body}}{{title}}", title="a<b",
                     body=Markup("<p>x</p>"))
    assert page == "<title>a&lt;b</title><p>x</p>a&lt;b"
    # A value holding a slot's name is text, never filled in turn.
    assert HTML.fill("{{a}}{{b}}", a="{{b}}", b="x") == "{{b}}x"
    with pytest.raises(ValueError, match="body"):
        HTML.fill("{{title}}", title="x", body="y")
    with pytest.raises(ValueError, match="title"):
        HTML.fill("{{title}}")


def test_an_asset_is_read_as_markup_and_a_missing_one_raises():
    script = asset("engine.pictures", "stepper.js")
    assert isinstance(script, Markup) and "use strict" in script
    with pytest.raises(OSError):
        asset("engine.pictures", "no-such-file.js")


def test_script_hash_is_the_csp_source_of_the_bytes():
    # sha256 of the empty string, base64: a fact of the hash, not of our code.
    assert script_hash("") == "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    assert script_hash("é") != script_hash("e")


def test_start_and_end_tags_for_a_document_written_a_line_at_a_time():
    lines = [XML.start("g", class_="a<b"), XML.element("rect", x=1), XML.end("g")]
    assert "\n".join(lines) == '<g class="a&lt;b">\n<rect x="1"/>\n</g>'
    assert all(isinstance(line, Markup) for line in lines)


@pytest.mark.parametrize("text, html, xml_text, xml_attribute", [
    ("it's", "it&#x27;s", "it's", "it's"),
    ('say "x"', "say &quot;x&quot;", 'say "x"', "say &quot;x&quot;"),
    ("a&b", "a&amp;b", "a&amp;b", "a&amp;b"),
    ("plain 12.5", "plain 12.5", "plain 12.5", "plain 12.5"),
])
def test_each_escape_replaces_exactly_its_characters(text, html, xml_text, xml_attribute):
    assert HTML.escape(text) == html
    assert XML.escape(text) == xml_text
    assert XML.element("t", title=text) == f'<t title="{xml_attribute}"/>'
