"""grade similar against compare50 and copydetect, on the same class in one run.

Each tool runs as a whole process on the same class folder (one folder per student); its
CPU seconds (user + system of the process and every child it waited for) and its peak
memory (the largest single process) come from ``wait4``, its report's size from the
files it wrote. From each tool's ranking, the planted copies are scored: how many of
them are among the top P pairs (P = the number planted: recall there equals precision
there), and how many rank above every pair that was not planted.

The class is generated (tests/similarity_helpers.py: independent tic-tac-toe programs
in varied styles, and copies hidden by renaming, reordering, comments, flipped
comparisons and dead code) unless ``--class DIR`` names one, with ``--planted FILE``
({copy: original} as JSON) naming its planted pairs.

compare50 and copydetect are PyPI packages this project does not depend on: install
them in a separate virtual environment and name its bin folder (``--tools-bin``, or
SIMILARITY_TOOLS_BIN); without them the bench measures grade similar alone and says so.

Usage: python3 bench/bench_similarity.py [--students 300] [--lines 400] [--copies 10]
           [--class DIR --planted FILE] [--tools-bin DIR] [--jobs 1] [--keep DIR]
"""

import argparse
import html
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from similarity_helpers import disguise, program  # noqa: E402


def make_class(folder, students, lines, copies, seed=7000):
    """Write ``students`` independent programs and ``copies`` disguised copies into
    ``folder``; {copy: original}."""
    texts = {f"s{index:03d}": program(seed + index, lines) for index in range(students)}
    planted = {}
    names = sorted(texts)
    for index in range(copies):
        original = names[(index * 7) % len(names)]
        planted[f"copy{index:02d}"] = original
        texts[f"copy{index:02d}"] = disguise(texts[original], seed + 500 + index)
    for name, text in texts.items():
        os.makedirs(os.path.join(folder, name))
        with open(os.path.join(folder, name, "tictactoe.py"), "w") as handle:
            handle.write(text)
    return planted


def measured(argv, log, env=None, cwd=None):
    """Run ``argv`` (its output to the file ``log``): (cpu s, wall s, peak MB, exit)."""
    started = time.perf_counter()
    with open(log, "wb") as out:
        process = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=out,
                                   stderr=subprocess.STDOUT, env=env, cwd=cwd)
        _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    return (usage.ru_utime + usage.ru_stime, wall, usage.ru_maxrss / 1024,
            os.waitstatus_to_exitcode(status))


def size_of(path):
    if os.path.isfile(path):
        return os.path.getsize(path)
    return sum(os.path.getsize(os.path.join(top, name))
               for top, _, names in os.walk(path) for name in names)


def student_of(path, klass):
    """The student folder a path of a tool's report names."""
    relative = os.path.relpath(os.path.join(klass, path) if not os.path.isabs(path)
                               else path, klass)
    return relative.split(os.sep)[0]


def ours_ranking(report, klass):
    with open(report) as handle:
        document = json.load(handle)
    return [(student_of(pair["a"], klass), student_of(pair["b"], klass), pair["score"])
            for pair in document["pairs"]]


def compare50_ranking(folder, klass):
    with open(os.path.join(folder, "index.html")) as handle:
        text = handle.read()
    graph = json.loads(re.search(r"var GRAPH = (\{.*?\});\s*\n", text, re.S).group(1))
    links = sorted(graph["links"], key=lambda link: -link["value"])
    return [(student_of(link["source"], klass), student_of(link["target"], klass),
             link["value"] / 10) for link in links]


COPYDETECT_PAIR = re.compile(r"Test file: <i>(.*?)</i> \(<b>([\d.]+)%</b>\)<br>\s*"
                             r"Reference file: <i>(.*?)</i> \(<b>([\d.]+)%</b>\)")


def copydetect_ranking(report, klass):
    with open(report) as handle:
        text = handle.read()
    seen, ranking = set(), []
    for test, one, reference, other in COPYDETECT_PAIR.findall(text):
        a, b = student_of(html.unescape(test), klass), student_of(html.unescape(reference),
                                                                 klass)
        if a != b and frozenset((a, b)) not in seen:
            seen.add(frozenset((a, b)))
            ranking.append((a, b, (float(one) + float(other)) / 200))
    return sorted(ranking, key=lambda pair: -pair[2])


def scored(ranking, planted):
    """(planted pairs among the top P, planted pairs above every other pair)."""
    wanted = {frozenset((copy, original)) for copy, original in planted.items()}
    found = [frozenset((a, b)) in wanted for a, b, _ in ranking]
    top = sum(found[:len(wanted)])
    above = 0
    for hit in found:
        if not hit:
            break
        above += 1
    return top, above


def tool_runs(klass, work, tools_bin, jobs):
    """[(name, argv, env, report path, ranking reader)] of the tools that are here."""
    ours = os.path.join(work, "ours.json")
    runs = [(f"grade similar (--jobs {jobs})",
             [sys.executable, "-m", "engine", "grade", "similar", "tictactoe", klass,
              "--top", "50", "--json", ours, "--html", os.path.join(work, "ours.html"),
              "--jobs", str(jobs), "--quiet"],
             dict(os.environ, PYTHONPATH=ROOT), [ours, os.path.join(work, "ours.html")],
             lambda: ours_ranking(ours, klass))]
    path = os.pathsep.join(filter(None, [tools_bin, os.environ.get("PATH", "")]))
    env = dict(os.environ, PATH=path)
    compare50 = shutil.which("compare50", path=path)
    if compare50:
        out = os.path.join(work, "compare50")
        students = sorted(os.path.join(klass, name) for name in os.listdir(klass))
        runs.append(("compare50", [compare50, *students, "-o", out, "-n", "50"], env,
                     [out], lambda out=out: compare50_ranking(out, klass)))
    copydetect = shutil.which("copydetect", path=path)
    if copydetect:
        out = os.path.join(work, "copydetect.html")
        runs.append(("copydetect", [copydetect, "-t", klass, "-e", "py", "-a", "-O", out],
                     env, [out], lambda out=out: copydetect_ranking(out, klass)))
    missing = [name for name, found in (("compare50", compare50),
                                        ("copydetect", copydetect)) if not found]
    return runs, missing


def main(argv=None):
    options = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    options.add_argument("--students", type=int, default=300)
    options.add_argument("--lines", type=int, default=400)
    options.add_argument("--copies", type=int, default=10)
    options.add_argument("--class", dest="klass", help="an existing class folder")
    options.add_argument("--planted", help="its planted pairs: {copy: original} (JSON)")
    options.add_argument("--tools-bin", default=os.environ.get("SIMILARITY_TOOLS_BIN"),
                         help="bin folder holding compare50 and copydetect")
    options.add_argument("--jobs", type=int, default=1)
    options.add_argument("--keep", help="keep the reports in this folder")
    args = options.parse_args(argv)
    work = args.keep or tempfile.mkdtemp(prefix="bench-similar-")
    os.makedirs(work, exist_ok=True)
    try:
        if args.klass:
            klass = os.path.abspath(args.klass)
            planted = {}
            if args.planted:
                with open(args.planted) as handle:
                    planted = json.load(handle)
        else:
            klass = os.path.join(work, "class")
            planted = make_class(klass, args.students, args.lines, args.copies)
        report(klass, planted, work, args)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    return 0


def report(klass, planted, work, args):
    entries = sorted(os.listdir(klass))
    lines = sum(sum(1 for _ in open(os.path.join(top, name), errors="replace"))
                for top, _, names in os.walk(klass) for name in names)
    print(f"class: {len(entries)} submissions, {lines:,} lines, {len(planted)} planted "
          f"copies")
    runs, missing = tool_runs(klass, work, args.tools_bin, args.jobs)
    if missing:
        print(f"not installed here (pip install {' '.join(missing)} in a separate venv, "
              f"then --tools-bin VENV/bin): {', '.join(missing)}")
    print(f"{'tool':<26}{'CPU s':>8}{'wall s':>8}{'peak MB':>9}{'report MB':>11}"
          f"{'top-P':>7}{'above all':>11}")
    for name, argv, env, outputs, ranking in runs:
        cpu, wall, peak, code = measured(argv, os.path.join(work, f"{name[:8]}.log"),
                                         env=env, cwd=ROOT)
        if code != 0:
            print(f"{name:<26} failed (exit {code}; see its log in {work})")
            continue
        size = sum(size_of(path) for path in outputs if os.path.exists(path))
        top, above = scored(ranking(), planted) if planted else ("-", "-")
        print(f"{name:<26}{cpu:>8.1f}{wall:>8.1f}{peak:>9.0f}{size / 1e6:>11.1f}"
              f"{top:>4}/{len(planted):<2}{above:>8}/{len(planted):<2}", flush=True)


if __name__ == "__main__":
    sys.exit(main())
