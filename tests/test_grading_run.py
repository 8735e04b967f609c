"""Detection, builds and the runner of the grading kit (engine.grading.detect/runner)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

import interrupts
from golden import REPO, program_cases
from grading_helpers import grade, only_case, our_copy, stake_raid_case, submission

from engine.sandbox import _seccomp as seccomp
from engine.grading.case import snapshot
from engine.grading.report_html import render
from engine.grading.detect import command_plan, detect
from engine.grading.results import Results, load, merge
from engine.grading.runner import (Runner, expected_cost, find_submissions, load_cases, shard,
                                   usable_cores)
from engine.sandbox import Limits, syscall_filter_name, syscall_filters
from engine.sandbox.workspace import new_workspace, remove_stale_workspaces
from engine.grading.judges import load as load_assignment

TICTACTOE = REPO / "fixtures" / "tictactoe"


def tictactoe_cases(*names):
    return [case for case in load_cases(TICTACTOE)
            if not names or case.name in names]


# --- detection ----------------------------------------------------------------------------

@pytest.mark.parametrize("program, files, kind, run", [
    ("tictactoe", {"tictactoe.py": ""}, "python", ("python3", "tictactoe.py")),
    ("tictactoe", {"Makefile": "tictactoe:\n\ttrue\n", "tictactoe.py": ""}, "make",
     ("./tictactoe.bin",)),
    ("tictactoe", {"tictactoe.java": ""}, "java", ("java", "tictactoe")),
    ("tmmorris", {"tmmorris.py": ""}, "python", ("python3", "tmmorris.py")),
    ("take_stones", {"TakeStones.java": "", "Helper.java": ""}, "java",
     ("java", "TakeStones")),
    ("take_stones", {"TakeStones": ""}, "python", ("python3", "TakeStones")),
    ("stake_raid", {"homework.py": ""}, "python", ("python3", "homework.py")),
    ("stake_raid", {"homework.java": ""}, "java", ("java", "homework")),
    ("stake_raid", {"homework.cpp": ""}, "c++", ("./homework",)),
    ("stake_raid", {"homework.c": ""}, "c", ("./homework",)),
])
def test_detection_from_the_files_present(tmp_path, program, files, kind, run):
    plan = detect(load_assignment(program), submission(tmp_path / "s", files))
    assert plan.kind == kind
    assert plan.run == run


@pytest.mark.parametrize("program, script", [
    ("tictactoe", "tictactoe.py"), ("tmmorris", "tmmorris.py"),
    ("take_stones", "TakeStones"), ("stake_raid", "homework.py")])
def test_our_repository_is_recognised(program, script):
    plan = detect(load_assignment(program), REPO)
    assert plan.kind == "our repository"
    assert plan.run == ("python3", script)
    assert plan.keep == (script, "engine")


def test_command_template_with_and_without_args():
    assert command_plan("python3 x.py {args} --fast").argv(["a b", "c"]) == [
        "/bin/sh", "-c", "python3 x.py 'a b' c --fast"]
    assert command_plan("./run").argv(["1", "2"]) == ["/bin/sh", "-c", "./run 1 2"]


def test_a_folder_without_an_entry_point_is_a_verdict(tmp_path):
    folder = submission(tmp_path / "empty", {"notes.txt": "hello"})
    case = only_case(grade("stake_raid", [folder], [stake_raid_case()]))
    assert not case["passed"]
    assert case["reason"].startswith("no homework.py")


def test_class_folder_stands_for_its_submissions(tmp_path):
    for name in ("bob", "alice"):
        submission(tmp_path / "class" / name, {"homework.py": ""})
    (tmp_path / "class" / "README").write_text("not a submission")
    found = find_submissions(load_assignment("stake_raid"), [str(tmp_path / "class")])
    assert found == [str(tmp_path / "class" / "alice"), str(tmp_path / "class" / "bob")]


def test_shards_cover_every_submission_once():
    names = [f"s{index:02d}" for index in range(11)]
    slices = [shard(names, index, 4) for index in range(1, 5)]
    assert sorted(sum(slices, [])) == sorted(names)
    assert {len(part) for part in slices} <= {2, 3}


def test_slots_are_pinned_only_when_they_take_every_core():
    # Two single-slot kits on one node (two tasks of a cluster array) must not both take
    # core 0: a kit with fewer slots than cores pins nothing.
    cores = sorted(os.sched_getaffinity(0))
    if len(cores) < 2:
        pytest.skip("one core: every kit takes all of it")
    for jobs in (1, len(cores)):
        runner = Runner(load_assignment("stake_raid"), [stake_raid_case()], Results("stake_raid"),
                        Limits(timeout=5), jobs=jobs, isolation="rlimits")
        try:
            pinned = [sandbox.cpu for sandbox in runner.sandboxes]
        finally:
            runner.close()
        assert pinned == (cores if jobs == usable_cores() else [None])


def test_shards_balance_the_expected_cost_not_the_count(tmp_path):
    # Three Java submissions (a JVM per case) and nine Python ones, in two slices: by
    # count the Java ones could share a slice; by cost each slice gets a fair load.
    names = [f"j{index}" for index in range(3)] + [f"p{index}" for index in range(9)]
    cost = {name: (1.5 + 50 * 0.5 if name[0] == "j" else 0.2 + 50 * 0.1) for name in names}
    slices = [shard(names, index, 2, cost=cost.get) for index in (1, 2)]
    assert sorted(sum(slices, [])) == sorted(names)
    loads = [sum(cost[name] for name in part) for part in slices]
    assert max(loads) <= min(loads) + max(cost.values())
    assert slices == [shard(list(reversed(names)), index, 2, cost=cost.get)
                      for index in (1, 2)]
    java = submission(tmp_path / "j", {"homework.java": "class homework {}\n"})
    python = submission(tmp_path / "p", {"homework.py": "pass\n"})
    stake_raid = load_assignment("stake_raid")
    assert expected_cost(stake_raid, java, 50) > 3 * expected_cost(stake_raid, python, 50)


# --- builds -------------------------------------------------------------------------------

def test_python_submission_runs_and_its_folder_is_never_written(tmp_path):
    folder = submission(tmp_path / "s", {
        "homework.py": "open('output.txt', 'w').write(open('input.txt').read().upper())\n",
        "output.txt": "stale output of an earlier run\n"})
    before = snapshot(folder)
    case = only_case(grade("stake_raid", [folder], [stake_raid_case(output=b"ANYTHING\n")]))
    assert case["passed"], case
    assert snapshot(folder) == before


@pytest.mark.parametrize("isolation", ["auto", "rlimits"])
def test_each_case_names_its_seccomp_filter(tmp_path, isolation):
    # A python run gets the allowlist, a shell script the denylist, under bwrap or
    # Landlock as under rlimits; results.json and the report say which.
    python = submission(tmp_path / "python", {
        "homework.py": "open('output.txt', 'w').write('ok\\n')\n"})
    shell = submission(tmp_path / "shell", {"run.sh": "echo ok > output.txt\n"})
    document = grade("stake_raid", [python], [stake_raid_case()], isolation=isolation)
    document["submissions"] += grade("stake_raid", [shell], [stake_raid_case()],
                                     isolation=isolation, command="sh run.sh")["submissions"]
    filters = {entry["submission"].split("/")[-1]: [(case["passed"], case["seccomp"])
                                                    for case in entry["cases"]]
               for entry in document["submissions"]}
    if not seccomp.supported():
        assert filters == {"python": [(True, "none")], "shell": [(True, "none")]}
    else:
        assert filters == {"python": [(True, "allowlist" if seccomp.allowlist_supported()
                                       else "denylist")], "shell": [(True, "denylist")]}
    page = render(document)
    if seccomp.allowlist_supported():
        assert "system calls: seccomp allowlist (1 run), seccomp denylist (1 run)" in page


def test_the_filters_are_named_in_one_phrase():
    assert syscall_filters(["allowlist", "denylist", "allowlist", None]) == \
        "seccomp allowlist (2 runs), seccomp denylist (1 run)"
    assert syscall_filters(["none", "none"]) == "no seccomp filter (2 runs)"
    assert syscall_filters([]) == ""
    assert [syscall_filter_name(name) for name in ("allowlist", "denylist", None)] == \
        ["allowlist", "denylist", "none"]


def test_make_build_runs_the_binary(tmp_path):
    if shutil.which("make") is None:
        pytest.skip("make not installed")
    makefile = ("tictactoe: tictactoe.bin\n"
                "tictactoe.bin: source.sh\n"
                "\tcp source.sh tictactoe.bin && chmod +x tictactoe.bin\n")
    folder = submission(tmp_path / "s", {"Makefile": makefile,
                                         "source.sh": "#!/bin/sh\necho \"$1\"\n"})
    cases = [case._replace(stdout=case.args[0].encode() + b"\n", expected={})
             for case in tictactoe_cases("case001")]
    case = only_case(grade("tictactoe", [folder], cases))
    assert case["passed"], case


@pytest.mark.parametrize("source, tool", [("homework.cpp", "g++"), ("homework.c", "gcc")])
def test_c_and_cpp_build_and_failures(tmp_path, source, tool):
    if shutil.which(tool) is None:
        pytest.skip(f"{tool} not installed")
    good = ("#include <stdio.h>\nint main(void){FILE*f=fopen(\"output.txt\",\"w\");"
            "fputs(\"ok\\n\",f);fclose(f);return 0;}\n")
    folder = submission(tmp_path / "good", {source: good})
    assert only_case(grade("stake_raid", [folder], [stake_raid_case()]))["passed"]
    broken = submission(tmp_path / "broken", {source: "int main( { return 0; }\n"})
    case = only_case(grade("stake_raid", [broken], [stake_raid_case()]))
    assert not case["passed"]
    assert case["reason"].startswith("build failed")
    assert "error" in case["detail"]


def test_java_build(tmp_path):
    if shutil.which("javac") is None:
        pytest.skip("javac not installed")
    source = ("import java.io.*;\npublic class homework { public static void main(String[] a)"
              " throws Exception { try (PrintWriter w = new PrintWriter(\"output.txt\")) "
              "{ w.print(\"ok\\n\"); } } }\n")
    folder = submission(tmp_path / "java", {"homework.java": source})
    case = only_case(grade("stake_raid", [folder], [stake_raid_case()], timeout=30,
                           memory_mb=2048))
    assert case["passed"], case


def test_command_overrides_detection(tmp_path):
    folder = submission(tmp_path / "s", {"prog.py": "import sys\nprint(' '.join(sys.argv[1:]))\n"})
    cases = [case._replace(stdout=(" ".join(case.args) + "\n").encode(), expected={})
             for case in tictactoe_cases("case001", "case002")]
    document = grade("tictactoe", [folder], cases, command="python3 prog.py {args}")
    assert [case["passed"] for case in document["submissions"][0]["cases"]] == [True, True]


# --- our programs as the submission ---------------------------------------------------------

def test_our_tictactoe_scores_full_marks_on_the_official_samples(tmp_path):
    document = grade("tictactoe", [REPO], tictactoe_cases())
    [entry] = document["submissions"]
    assert entry["score"] == entry["max_score"] == len(tictactoe_cases())
    assert entry["kind"] == "our repository"


@pytest.mark.parametrize("program, folder, names", [
    ("take_stones", "take_stones", 4), ("stake_raid", "stake_raid", 4)])
def test_our_other_programs_pass_their_fixtures(program, folder, names):
    cases = [case for case in program_cases(folder)
             if not case.name.startswith("bad")][:names]
    [entry] = grade(program, [REPO], cases)["submissions"]
    assert entry["score"] == entry["max_score"] == len(cases), entry


def test_a_broken_copy_fails(tmp_path):
    # CRLF line endings in the visited file: every case with a visited file fails.
    broken = our_copy(tmp_path / "crlf", "tictactoe.py")
    script = broken / "tictactoe.py"
    script.write_text(script.read_text().replace(
        "sys.exit(main(sys.argv[1:]))",
        "code = main(sys.argv[1:])\n"
        "import os\n"
        "path = sys.argv[2] if len(sys.argv) > 2 else ''\n"
        "if path and os.path.exists(path):\n"
        "    data = open(path, 'rb').read().replace(b'\\n', b'\\r\\n')\n"
        "    open(path, 'wb').write(data)\n"
        "sys.exit(code)"))
    cases = tictactoe_cases("case001", "case002")
    [entry] = grade("tictactoe", [broken], cases)["submissions"]
    assert entry["score"] == 0
    for case in entry["cases"]:
        assert any(item["what"] == "visited.txt" and "\r\n" in item["actual"]
                   for item in case["compared"])


# --- results files ------------------------------------------------------------------------

def test_resume_skips_cases_already_in_the_json(tmp_path):
    path = tmp_path / "results.json"
    cases = tictactoe_cases("case001", "case002", "case003")
    grade("tictactoe", [REPO], cases, json_path=str(path))
    document = load(path)
    records = document["submissions"][0]["cases"]
    records[0]["marker"] = "kept"
    dropped = records.pop()["case"]
    path.write_text(json.dumps(document))
    resumed = grade("tictactoe", [REPO], cases, json_path=str(path), previous=load(path))
    names = [case["case"] for case in resumed["submissions"][0]["cases"]]
    assert sorted(names) == ["case001", "case002", "case003"]
    assert dropped in names
    assert resumed["submissions"][0]["cases"][0].get("marker") == "kept"
    assert load(path)["submissions"][0]["score"] == 3


def test_a_stake_raid_run_killed_before_writing_output_zeroes_the_points(tmp_path):
    """The assignment gives 0 points when output.txt is missing in any case, also when the
    run was killed before writing it, and --resume must not forget that."""
    folder = submission(tmp_path / "sub", {"homework.py": (
        "if open('input.txt').read().startswith('loop'):\n"
        "    while True:\n"
        "        pass\n"
        "open('output.txt', 'w').write('ok\\n')\n")})
    cases = [stake_raid_case("c1"),
             stake_raid_case("c2")._replace(files={"input.txt": b"loop\n"})]
    path = tmp_path / "results.json"
    [entry] = grade("stake_raid", [folder], cases, json_path=str(path),
                    timeout=1.0)["submissions"]
    assert (entry["score"], entry["max_score"], entry["points"]) == (1, 2, 0), entry
    document = load(path)
    document["submissions"][0]["cases"] = [case for case in document["submissions"][0]["cases"]
                                           if case["case"] == "c2"]
    path.write_text(json.dumps(document))
    [resumed] = grade("stake_raid", [folder], cases, json_path=str(path), timeout=1.0,
                      previous=load(path))["submissions"]
    assert (resumed["score"], resumed["points"]) == (1, 0), resumed


def test_merge_joins_shards_and_refuses_mixtures():
    first = {"program": "tictactoe", "submissions": [{"submission": "a", "cases": []}]}
    second = {"program": "tictactoe", "submissions": [{"submission": "b", "cases": []}]}
    merged = merge([second, first])
    assert [entry["submission"] for entry in merged["submissions"]] == ["a", "b"]
    with pytest.raises(ValueError, match="both"):
        merge([first, first])
    with pytest.raises(ValueError, match="different programs"):
        merge([first, dict(second, program="stake_raid")])


@pytest.mark.parametrize("number, again", [
    (signal.SIGINT, None), pytest.param(signal.SIGTERM, None, marks=pytest.mark.slow),
    # A second signal as the sandboxes close: the long variant (tournament's daily
    # interrupt test sends a second signal through the same closing steps).
    pytest.param(signal.SIGINT, signal.SIGINT, marks=pytest.mark.slow)])
def test_ctrl_c_kills_the_running_case_and_keeps_finished_ones(tmp_path, number, again):
    """Ctrl-C (or SIGTERM) while a case runs: exit 130, the finished case kept in the
    results file, and no traceback of the main thread nor of a slot's on stderr; a
    second Ctrl-C as the sandboxes close does not cut that short."""
    folder = submission(tmp_path / "s", {"homework.py": (
        "import time\n"
        "if open('input.txt').read() == 'loop\\n':\n    time.sleep(1000)\n"
        "open('output.txt', 'w').write('ok\\n')\n")})
    cases = tmp_path / "cases"
    from engine.grading.case import write_case
    write_case(stake_raid_case("a1"), cases / "a1")
    write_case(stake_raid_case("b2")._replace(files={"input.txt": b"loop\n"}), cases / "b2")
    results = tmp_path / "r.json"
    process = interrupts.start(
        ["grade", "run", "stake_raid", str(folder), "--cases", str(cases), "--jobs", "1",
         "--timeout", "60", "--json", str(results)], cwd=str(REPO),
        slow_close=again is not None)
    seen = interrupts.read_until(process, "1/2 cases")  # the progress after the first
    # Interrupt once the second case's program runs (below the kit, in the sandbox).
    interrupts.wait_for_program(process, b"homework.py")
    stderr = interrupts.stop(process, number, seen, again)
    assert "grade: interrupted" in stderr
    cases_done = load(results)["submissions"][0]["cases"]
    assert [case["case"] for case in cases_done] == ["a1"]
    assert cases_done[0]["passed"]


def test_a_grading_run_interrupted_as_its_sandboxes_are_set_up_closes_them(tmp_path):
    """Ctrl-C just as the sandboxes are set up (before any case): exit 130, the
    sandboxes closed, the results file written with the submission and no case."""
    folder = submission(tmp_path / "s", {"homework.py": "print('never run')\n"})
    cases = tmp_path / "cases"
    from engine.grading.case import write_case
    write_case(stake_raid_case("a1"), cases / "a1")
    results = tmp_path / "r.json"
    process = interrupts.start(
        ["grade", "run", "stake_raid", str(folder), "--cases", str(cases), "--jobs", "1",
         "--json", str(results)], cwd=str(REPO), slow_setup=True)
    seen = interrupts.read_until(process, interrupts.SET_UP)
    interrupts.stop(process, signal.SIGINT, seen)
    [entry] = load(results)["submissions"]
    assert entry["cases"] == [] and entry["submission"] == str(folder)


def test_only_cases_run_through_the_graders_script_are_graded():
    from engine.grading.runner import gradable
    cases = program_cases("tmmorris")
    kept, skipped = gradable(load_assignment("tmmorris"), cases)
    assert kept and all(case.program == "tmmorris.py" and not case.stdin for case in kept)
    assert all(case.program != "tmmorris.py" or case.stdin for case in skipped)
    assert len(kept) + len(skipped) == len(cases)
    assert gradable(load_assignment("stake_raid"), cases)[0] == []


def test_workspaces_of_dead_grading_runs_are_removed_and_live_ones_kept(tmp_path):
    """A kit killed outright (SIGKILL) cannot clean up; a later run removes what it left
    once it has been left unchanged for an hour."""
    # A pid above pid_max: no process can hold it. (The pid of a process that just
    # ended can be taken again within seconds when a fork bomb elsewhere on the machine
    # runs through all 32,768 of them: this test then saw a live kit.)
    gone = int(Path("/proc/sys/kernel/pid_max").read_text()) + 1
    dead = tmp_path / f"grade-{gone}-abc"
    (dead / "case-x").mkdir(parents=True)
    (dead / "case-x" / "output.txt").write_text("left behind\n")
    # What a hostile run may leave: a tree deeper than Python's recursion limit, a
    # folder nobody may enter, a link out of the workspace.
    deep = os.open(dead / "case-x", os.O_RDONLY)
    for _ in range(3000):
        os.mkdir("d", dir_fd=deep)
        inner = os.open("d", os.O_RDONLY, dir_fd=deep)
        os.close(deep)
        deep = inner
    os.close(deep)
    (dead / "locked").mkdir()
    (dead / "locked" / "inside").write_text("x")
    (dead / "locked").chmod(0)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    (dead / "link").symlink_to(outside)
    live = tmp_path / f"grade-{os.getpid()}-def"
    live.mkdir()
    # Killed but not reaped yet: a zombie holds its pid.
    zombie_process = subprocess.Popen([sys.executable, "-c", ""])
    stat = Path(f"/proc/{zombie_process.pid}/stat")
    deadline = time.monotonic() + 300
    while stat.read_text().rsplit(")", 1)[1].split()[0] != "Z":
        assert time.monotonic() < deadline, "the child did not exit"
        time.sleep(0.01)
    zombie = tmp_path / f"grade-{zombie_process.pid}-ghi"
    zombie.mkdir()
    others = {tmp_path / "grade-notapid", tmp_path / "other-1"}
    for folder in others:
        folder.mkdir()
    try:
        # Recently changed: perhaps a live run in another PID namespace; kept.
        assert remove_stale_workspaces(str(tmp_path)) == []
        for folder in tmp_path.iterdir():
            os.utime(folder, (time.time() - 7200, time.time() - 7200))
        assert sorted(remove_stale_workspaces(str(tmp_path))) == sorted([str(dead), str(zombie)])
    finally:
        zombie_process.wait()
    assert not dead.exists() and not zombie.exists()
    assert (outside / "keep.txt").read_text() == "keep"
    assert live.is_dir() and all(folder.is_dir() for folder in others | {outside})
    fresh = Path(new_workspace(str(tmp_path)))
    assert fresh.name.startswith(f"grade-{os.getpid()}-")
    # Others pass through to their run folder but cannot list the workspace.
    assert fresh.stat().st_mode & 0o777 == 0o711
    assert live.is_dir()
