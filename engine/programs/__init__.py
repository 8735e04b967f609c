"""The programs: one module, or one package for a program of several modules; argv and
file parsing, output formatting, exit codes, and the players that choose moves.

engine.registry lists them (with their scripts and summaries); ``python3 -m engine``
dispatches to each one's ``main(argv) -> int``.
"""
