"""How many threads a search takes when it is told to use the machine (``threads=0``,
``threads=auto``, the levels and the command line's default).

The count is the cores this process may run on (its CPU affinity mask, which a container's
``--cpuset-cpus``, ``taskset`` or a batch scheduler narrows; not the machine's count), at
most :data:`THREADS_CAP`; the environment variable ``CYTHELLO_THREADS`` sets it instead.
Code that runs several searches at once in processes of its own (match, self-play, book and
openings workers) gives each process its share of the cores with :func:`share_cores`, which
sets that variable in the worker, so that engine programs it starts inherit the share too:
the total stays the machine's, as joblib limits each worker's native threads.
"""
from __future__ import annotations

import os

from .errors import SettingsError

MAX_THREADS = 256              # the most threads any search or solve takes
# The most threads "the machine" means: 16 is the largest count the shared trees and the
# solver have been measured at (docs/explanation/engine.md, "Threads"); beyond it a
# search's gain per thread was not measured, while its node pools grow with its threads.
# threads=N sets any count up to MAX_THREADS.
THREADS_CAP = 16
ENVIRONMENT = "CYTHELLO_THREADS"


def available_cores() -> int:
    """The cores this process may run on: its affinity mask where the system has one,
    else the machine's count (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):        # macOS, Windows: no affinity call
        pass
    return max(1, os.cpu_count() or 1)


def default_threads() -> int:
    """The threads of a search told to use the machine: ``CYTHELLO_THREADS`` when set,
    else :func:`available_cores` at most :data:`THREADS_CAP`."""
    text = os.environ.get(ENVIRONMENT, "").strip()
    if not text:
        return min(THREADS_CAP, available_cores())
    count = int(text) if text.isascii() and text.isdigit() else 0   # digits alone
    if not 1 <= count <= MAX_THREADS:
        raise SettingsError(f"{ENVIRONMENT}={text[:40]!r}: the threads of a search, a whole "
                            f"number from 1 to {MAX_THREADS}")
    return count


def resolve_threads(threads: int) -> int:
    """A search's ``threads`` setting as a count: 0 means :func:`default_threads`."""
    return threads if threads > 0 else default_threads()


def share_cores(workers: int) -> None:
    """In one of ``workers`` processes searching at once: searches told to use the
    machine take this process's share of its cores (at least one), unless the user set
    ``CYTHELLO_THREADS`` (their count per search stands)."""
    if not os.environ.get(ENVIRONMENT, "").strip():
        share = max(1, min(THREADS_CAP, available_cores() // max(1, workers)))
        os.environ[ENVIRONMENT] = str(share)
