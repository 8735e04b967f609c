"""README.md: its first command leaves the clone clean, its layout names every folder."""

import re
import subprocess

from golden import REPO

README = (REPO / "README.md").read_text(encoding="utf-8")


def first_command():
    block = README.split("## On a fresh machine", 1)[1]
    line = next(line for line in block.split("\n") if line.startswith("    python3 "))
    return line.strip().split("#")[0].strip()


def test_the_first_command_is_a_grader_sample_whose_output_git_ignores():
    words = first_command().split()
    assert words[:2] == ["python3", "tictactoe.py"]
    written = words[3]
    ignored = subprocess.run(["git", "check-ignore", "-q", written], cwd=REPO)
    assert ignored.returncode == 0, f"{written} would be left untracked"


def test_the_layout_names_every_folder_of_the_repository_and_engine():
    layout = README.split("## Layout", 1)[1].split("\n\n", 2)[1]
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True,
                             text=True, check=True).stdout.split("\n")
    folders = {name.split("/")[0] for name in tracked if "/" in name
               and not name.startswith(".")}
    folders |= {"/".join(name.split("/")[:2]) for name in tracked
                if name.startswith("engine/") and name.count("/") >= 2}
    missing = sorted(folder for folder in folders
                     if not re.search(r"(^|\s)" + re.escape(folder) + "/", layout))
    assert missing == []
