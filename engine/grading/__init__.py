"""The grading kit: cases, runs of programs on them, and byte comparison.

``engine.grading.case`` is the one implementation of the case layout (a folder holding a
command line, inputs and the exact expected outputs), of running a program on a case and
of comparing what it did with what was expected. The golden tests (tests/golden.py) and
the kit's ``python3 -m engine grade`` both use it. Standard library only.

The tournament, the ladder and ``grade similar`` use these modules of the kit, and no
other (tests/test_imports.py): ``cli`` (the options the commands share), ``detect`` (how
a folder is built and run), ``judges`` (the graded assignments), ``layouts`` (class
folders), ``printable`` (text a submission controls, made safe to show),
``report_html`` (its escaping), ``results`` (the results document) and ``workers``
(worker threads that Ctrl-C stops). What runs a submission is :mod:`engine.sandbox`.
"""
