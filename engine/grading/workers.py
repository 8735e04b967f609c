"""Worker threads that Ctrl-C never leaves running behind the caller's back.

The kit and the tournament run their sandboxes from worker threads while the main thread
waits; on Ctrl-C (or SIGTERM turned into one) the main thread must stop the workers and
wait for them to finish their killed runs *before* it closes the sandboxes under them.

``Thread.join`` cannot be that wait: on CPython 3.11 a KeyboardInterrupt raised inside
``join(timeout)`` marks a thread that is still running as stopped (the bpo-45274 code in
``Thread._wait_for_tstate_lock`` releases the lock the running thread holds), and every
later ``join()`` or ``is_alive()`` then says it has ended. So each worker sets an Event
of its own in a ``finally`` as it ends, and the caller waits on those Events, in a loop
that a further KeyboardInterrupt does not cut short.
"""

import signal
import threading
import time
from contextlib import contextmanager
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

# How long a caller waits, after Ctrl-C, for workers it told to stop: a run that the
# kernel cannot kill at once (a process stuck in the kernel) must not make Ctrl-C
# useless. After that the caller goes on (and the process ends without those threads).
STOP_PATIENCE = 60.0

# The signals that stop a run (SIGTERM once engine.commandline.terminate_as_interrupt
# made it one): held back while the workers start, see hold_signals.
STOPPING: Tuple[int, ...] = (signal.SIGINT, signal.SIGTERM)


def run_workers(count: int, work: Callable[[int], None], stop: Callable[[], None],
                name: str = "worker", patience: Optional[float] = None) -> None:
    """Run ``work(index)`` for each index of ``range(count)`` on a thread of its own and
    return once every one has returned (an exception a work raises is the thread's:
    catch it in ``work``).

    A KeyboardInterrupt in the calling thread, at any moment of the call (the threads
    starting included), or a thread that cannot start, calls ``stop()`` (which must
    make every ``work`` return soon: abort its sandbox), waits until every worker has
    ended, and is raised again. A
    further KeyboardInterrupt during that wait calls ``stop()`` again and the wait goes
    on; ``patience`` (seconds, None: no bound) caps the wait, after which the caller goes
    on with the workers that have not ended."""
    ended: List[threading.Event] = []
    try:
        # (A signal landing between a thread's start and ``ended.append`` would leave
        # that thread unwaited for: held until all have started.)
        with hold_signals():
            for index in range(count):
                done = threading.Event()
                thread = threading.Thread(target=_worker, args=(work, index, done),
                                          daemon=True, name=f"{name}-{index}")
                thread.start()
                ended.append(done)
        for done in ended:
            while not done.wait(0.5):
                pass
    except BaseException:
        # Ctrl-C, or a thread that could not start: the others stop before we go on.
        stop()
        wait_ended(ended, stop, patience)
        raise


def _worker(work: Callable[[int], None], index: int, done: threading.Event) -> None:
    try:
        work(index)
    finally:
        done.set()


def wait_ended(ended: List[threading.Event], stop: Callable[[], None],
               patience: Optional[float] = None) -> bool:
    """Wait until every Event of ``ended`` is set (at most ``patience`` seconds when
    given); a KeyboardInterrupt meanwhile calls ``stop()`` again and does not end the
    wait. True when all are set."""
    deadline = None if patience is None else time.monotonic() + patience
    for done in ended:
        while True:
            try:
                left = 0.5 if deadline is None else min(0.5, deadline - time.monotonic())
                if done.wait(max(0.0, left)):
                    break
                if deadline is not None and time.monotonic() >= deadline:
                    return False
            except KeyboardInterrupt:
                stop()
    return True


@contextmanager
def hold_signals(noted: Optional[List[int]] = None) -> Iterator[None]:
    """While the block runs, a SIGINT or SIGTERM is noted instead of acted on, so that
    the block is never cut short (the threads starting, sandboxes closing, a results
    file being written). As the block ends, the signals noted are delivered again to the
    handlers that were in place; with ``noted`` (a list) they are appended to it instead,
    for the caller to act on. Only the main thread receives signals: elsewhere this holds
    nothing back."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    held: List[int] = []
    earlier: Dict[int, Any] = {}

    def note(number: int, frame: Any) -> None:
        held.append(number)

    try:
        for number in STOPPING:
            handler = signal.getsignal(number)
            # An ignored signal stays ignored; one whose handler is not Python's (None)
            # is left alone, as it could not be put back.
            if handler is None or handler == signal.SIG_IGN:
                continue
            earlier[number] = handler
            signal.signal(number, note)
        yield
    finally:
        for number, handler in earlier.items():
            signal.signal(number, handler)
        if noted is not None:
            noted.extend(held)
        else:
            for number in dict.fromkeys(held):
                signal.raise_signal(number)
