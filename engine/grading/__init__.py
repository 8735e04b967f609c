"""The grading kit: cases, runs of programs on them, and byte comparison.

``engine.grading.case`` is the one implementation of the case layout (a folder holding a
command line, inputs and the exact expected outputs), of running a program on a case and
of comparing what it did with what was expected. The golden tests (tests/golden.py) and
the kit's ``python3 -m engine grade`` both use it. Standard library only.
"""
