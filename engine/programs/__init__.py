"""One module per program: argv/file parsing, output formatting and exit codes.

Every module here has ``main(argv) -> int`` and a one-line ``SUMMARY``;
``python3 -m engine`` lists them and dispatches to them (see engine.__main__).
"""
