"""Ctrl-C during a long C search.

Python runs signal handlers in the main thread only, between bytecodes: while the main
thread is inside a search or a solve that released the GIL (seconds; a solve, minutes), a
Ctrl-C waits for it to end.  So a long C call made on the main thread runs on a helper
thread while the main thread waits in short steps; the KeyboardInterrupt (or whatever a
SIGINT handler raises) arrives there at once, stops the C code through its stop flag,
which every search polls, and goes on once the helpers have returned.

The helpers are waited for through events, not ``Thread.join``: a join interrupted by an
exception marks a running thread as finished (CPython 3.11; bpo-45274's fix).
"""
from __future__ import annotations

import signal
import threading
from typing import Any, Callable, List, Optional, Sequence, TypeVar

T = TypeVar("T")

# A call expected to end sooner runs where it is: a thread costs about 0.1 ms.
LONG = 0.02
POLL = 0.2           # seconds; a signal ends the main thread's wait at once on POSIX


def signals_reach_us() -> bool:
    """Whether a Ctrl-C would run Python code here: on the main thread, with a Python
    handler for SIGINT (worker processes ignore it; their parent decides)."""
    return (threading.current_thread() is threading.main_thread()
            and callable(signal.getsignal(signal.SIGINT)))


def run_all(calls: Sequence[Callable[[], Any]], stop: Callable[[], None],
            unstop: Optional[Callable[[], None]] = None) -> List[Any]:
    """Each of ``calls`` (C calls that end soon after ``stop()``) on a thread of its own,
    their results in order.  On an exception while waiting (a Ctrl-C): ``stop()``, wait
    for them all, ``unstop()`` (a standing stop request would end the next search at
    once) and let the exception go on.  An exception of a call is raised here."""
    out: List[Any] = [None] * len(calls)
    errors: List[BaseException] = []
    finished = [threading.Event() for _ in calls]

    def run(i: int) -> None:
        try:
            out[i] = calls[i]()
        except BaseException as exc:         # raised again on the caller's thread
            errors.append(exc)
        finally:
            finished[i].set()

    for i in range(len(calls)):
        threading.Thread(target=run, args=(i,), name="cythello-search", daemon=True).start()
    try:
        for event in finished:
            while not event.wait(POLL):
                pass
    except BaseException:
        stop()
        for event in finished:
            event.wait()
        if unstop is not None:
            unstop()
        raise
    if errors:
        raise errors[0]
    return out


def call(fn: Callable[[], T], stop: Callable[[], None], seconds: Optional[float],
         unstop: Optional[Callable[[], None]] = None) -> T:
    """``fn()``, a C call that ends soon after ``stop()``, made so that a Ctrl-C stops it;
    ``seconds``: how long it may run at most (None: no bound)."""
    if seconds is not None and seconds < LONG or not signals_reach_us():
        return fn()
    return run_all([fn], stop, unstop)[0]  # type: ignore[no-any-return]
