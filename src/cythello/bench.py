"""``cythello bench``: the rules and search figures as a table (the fuller, reference-
comparing versions live in the repository's ``benchmarks/``)."""
from __future__ import annotations

import os
import time
from typing import Callable, Iterator

from ._checks import check_number
from .core._board import Board
from .core._perft import perft
from .search.uct import MCTSPlayer, SearchSettings
from .search.uct._rollout import random_playouts
from .search.uct._tree import NODE_BYTES, SearchTree

MIDGAME = "f5d6c3d3c4f4f6f3e6e7"
MAX_BENCH_SECONDS = 3600.0


def _rate(fn: Callable[[], int], seconds: float) -> float:
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        n += fn()
    return n / (time.perf_counter() - start)


def run_bench(seconds: float = 1.0) -> Iterator[str]:
    """The table's lines, each measured as it is yielded (``seconds`` a figure: more than
    0 and at most an hour)."""
    seconds = check_number("seconds", seconds, 0, MAX_BENCH_SECONDS, low_open=True,
                           range_text="more than 0 and at most 3600 seconds")
    start_board, mid = Board(), Board.from_transcript(MIDGAME)
    yield f"{'figure':<42}{'value':>14}"
    def batch() -> int:
        random_playouts(start_board, 2000, seed=1)
        return 2000

    rate = _rate(batch, seconds)
    yield f"{'random playouts/s':<42}{rate:>14,.0f}"
    t = time.perf_counter()
    perft(start_board, 10)
    yield f"{'perft(10) seconds':<42}{time.perf_counter() - t:>14.3f}"
    for name, board, rollout in (("start", start_board, "random"), ("midgame", mid, "random"),
                                 ("start", start_board, "heuristic")):
        tree = SearchTree(board, SearchSettings.preset("classic", seed=1, rollout=rollout,
                                                       max_nodes=50_000_000))
        t = time.perf_counter()
        done, _ = tree.run(None, time.monotonic() + seconds)
        yield f"{f'MCTS iterations/s, {name} ({rollout})':<42}{done / (time.perf_counter() - t):>14,.0f}"
    yield f"{'bytes per node':<42}{NODE_BYTES:>14}"
    one = MCTSPlayer.preset("classic", time_limit=seconds, threads=1, rollout="random",
                            seed=1).search(mid)
    slow = False
    for parallel in ("tree", "root"):
        two = MCTSPlayer.preset("classic", time_limit=seconds, threads=2, rollout="random",
                                seed=1, parallel=parallel).search(mid)
        ratio = two.iterations_per_second / one.iterations_per_second
        slow = slow or ratio < 1.3
        yield f"{f'2-thread speed-up ({parallel} parallel)':<42}{ratio:>13.2f}x"
    if slow:
        yield _busy_note()


def _busy_note() -> str:
    """Why two threads may fall short of 1.3x here: fewer than two cores for this process,
    or other programs on them (two threads reach 1.7-2.0x on two quiet cores)."""
    from ._cores import available_cores
    cores = available_cores()
    if cores < 2:
        return (f"note: this process may run on {cores} core, so two threads share it; "
                "the speed-up needs two")
    load = ""
    if hasattr(os, "getloadavg"):
        load = f" (load average {os.getloadavg()[0]:.1f} on {cores} cores)"
    return ("note: two threads reach 1.7-2.0x on two quiet cores; a lower figure means "
            f"other programs were using them{load}: measure again on a quiet machine")
