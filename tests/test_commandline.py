"""The helpers every command shares, each written once (engine/commandline.py): the text
reader and the argument parser, with one error contract: a UsageError whose one line
says what is wrong."""

import pytest

from engine.commandline import argument_parser, read_text_file
from engine.errors import UsageError


def test_the_text_reader_says_why_in_one_line(tmp_path):
    missing = tmp_path / "missing.txt"
    with pytest.raises(UsageError, match=r"^cannot read .*missing.txt: No such file"):
        read_text_file(missing)
    latin = tmp_path / "latin.txt"
    latin.write_bytes(b"caf\xe9\n")
    with pytest.raises(UsageError, match=r"latin.txt: not UTF-8 text$"):
        read_text_file(latin)
    assert read_text_file(latin, errors="replace") == "caf\ufffd\n"
    big = tmp_path / "big.txt"
    big.write_bytes(b"x" * (2 << 20))
    with pytest.raises(UsageError, match=r"big.txt: it is larger than 1 MB$"):
        read_text_file(big, cap=1 << 20)
    assert len(read_text_file(big, cap=2 << 20)) == 2 << 20
    with pytest.raises(UsageError, match=r"^cannot read .*: Is a directory$"):
        read_text_file(tmp_path)


def test_the_parser_reports_errors_as_usage_errors_with_or_without_its_name():
    plain = argument_parser(prog="python3 -m engine grade")
    plain.add_argument("--count", type=int)
    with pytest.raises(UsageError, match=r"^argument --count: invalid int value"):
        plain.parse_args(["--count", "many"])
    named = argument_parser(prefix_errors=True, prog="nqueens")
    commands = named.add_subparsers(dest="command")
    table = commands.add_parser("table", prog="nqueens table")
    table.add_argument("--sizes", type=int)
    with pytest.raises(UsageError, match=r"^table: argument --sizes: invalid int value"):
        named.parse_args(["table", "--sizes", "x"])
