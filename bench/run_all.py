"""Run every benchmark script bench/bench_*.py in turn (``make bench``).

Each script prints its own figures; this runner only sequences them and reports failures.
Benchmarks measure CPU seconds of whole processes (user + sys of the child), which are
steadier than wall-clock time on a shared machine.
"""

import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def main(argv):
    selected = set(argv)
    failures = 0
    for script in sorted(HERE.glob("bench_*.py")):
        if selected and script.stem not in selected and script.stem[6:] not in selected:
            continue
        print(f"== {script.name}", flush=True)
        if subprocess.run([sys.executable, str(script)], cwd=HERE.parent).returncode:
            failures += 1
            print(f"!! {script.name} failed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
