"""Similarity reports across a class: ``python3 -m engine grade similar`` (docs/similarity.md).

    python_tokens.py  Python source -> normalised tokens (the standard ``tokenize``)
    clike_tokens.py   C, C++ and Java -> normalised tokens (a small lexer of our own)
    make_tokens.py    Makefiles -> normalised tokens
    languages.py      which lexer reads which file; the one call that lexes a file
    fingerprints.py   token codes, k-gram hashes and winnowing (Schleimer, Wilkerson and
                      Aiken 2003)
    sources.py        a submission's source files, read link-safely and boundedly; every
                      entry a row or a reason
    corpus.py         every entry fingerprinted (on J processes), the handout's
                      fingerprints removed, the class's common ones ignored
    pairs.py          shared fingerprints per pair, in both directions, the ranking and
                      the matched regions as line ranges
    clusters.py       the connected groups of pairs above a threshold
    behaviour.py      evidence from a ``grade run --json`` results file: the same wrong
                      bytes on the same failing cases
    report.py         the report document (JSON) and its CSV
    report_html.py    the self-contained HTML page (assets/report.html and report.css)
    command.py        the command line's options and its run

The package reads what students handed in and never runs it. It imports the kit's class
layouts (engine.grading.layouts) and its link-safe file functions; nothing of the kit
imports it but the kit's command line. Standard library only.
"""
