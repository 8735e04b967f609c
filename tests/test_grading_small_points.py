"""Small points of the kit's outputs: an empty output is drawn as (empty), not as a
line 1 missing its newline."""

from engine.grading import report_html
from engine.grading.autograder import test_output as gradescope_output


def test_an_empty_output_is_drawn_as_empty():
    pane = report_html._block("actual stdout", "", False, 1, final_newline=False)
    assert "(empty)" in pane and "no newline" not in pane and 'class="ln"' not in pane
    # A file holding one line without its newline is still drawn as that.
    pane = report_html._block("actual stdout", "x", False, 1, final_newline=False)
    assert "no newline" in pane and "(empty)" not in pane


def test_an_empty_output_in_gradescope_is_empty():
    case = {"passed": False, "reason": "wrong", "compared": [
        {"what": "stdout", "from_line": 1, "expected": "x--------\n", "actual": ""}]}
    text = gradescope_output(case)
    assert "**Actual stdout** (from line 1):\n\n(empty)" in text
