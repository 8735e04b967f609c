"""Run a command beside busy processes: the suite's and the kit's load test.

    python3 tools/under_load.py [--per-core N] [--runs R] -- COMMAND [ARG ...]

Starts N processes per CPU (os.cpu_count(), default 2) that spin at the ordinary priority,
then runs COMMAND R times in a row (default 1), stopping at the first run that fails, and
stops the spinners (by their own process ids) however it ends. Prints each run's wall time
to stderr. Exit status: that of the first failing run, else 0; 2 for bad arguments.

The spinners are children of this process, each in its own session, so that a test that
signals a process group or a session of the suite cannot stop them and thereby lighten
the load without anyone noticing.
"""

import argparse
import os
import subprocess
import sys
import time

SPIN = "while True:\n    pass\n"


def start_spinners(count):
    """``count`` processes that burn CPU until killed."""
    return [subprocess.Popen([sys.executable, "-c", SPIN], start_new_session=True,
                             stdin=subprocess.DEVNULL)
            for _ in range(count)]


def stop_spinners(spinners):
    """Kill and reap every spinner; says on stderr when one had died before."""
    for spinner in spinners:
        if spinner.poll() is not None:
            print(f"under_load: spinner {spinner.pid} had ended ({spinner.returncode}):"
                  " the load was lighter than asked", file=sys.stderr)
            continue
        spinner.kill()
        spinner.wait()


def main(argv=None):
    parser = argparse.ArgumentParser(prog="under_load", description=__doc__.splitlines()[0])
    parser.add_argument("--per-core", type=int, default=2, metavar="N",
                        help="spinning processes per CPU (default 2)")
    parser.add_argument("--runs", type=int, default=1, metavar="R",
                        help="runs of the command in a row (default 1)")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args(argv)
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command or args.per_core < 0 or args.runs < 1:
        parser.print_usage(sys.stderr)
        print("under_load: give a command after --, --per-core >= 0, --runs >= 1",
              file=sys.stderr)
        return 2
    count = args.per_core * (os.cpu_count() or 1)
    spinners = start_spinners(count)
    try:
        for run in range(1, args.runs + 1):
            start = time.monotonic()
            status = subprocess.call(command)
            print(f"under_load: run {run} of {args.runs} beside {count} spinning processes:"
                  f" exit {status}, {time.monotonic() - start:.0f} s", file=sys.stderr)
            if status != 0:
                return status
        return 0
    finally:
        stop_spinners(spinners)


if __name__ == "__main__":
    sys.exit(main())
