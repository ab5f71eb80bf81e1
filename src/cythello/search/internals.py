"""The internal API of cythello's benchmarks and studies (``benchmarks/``, ``research/``):
the compiled searches' own objects and the few knobs only measurements turn.  Not the
public API: names here may change between releases without notice; a program should use
``cythello.*``.

- the UCT tree and its node sizes: :class:`SearchTree`, :data:`NODE_BYTES`,
  :data:`AMAF_BYTES_PER_NODE`, :data:`TABLE_BYTES_PER_NODE`;
- the exact solver and its build: :class:`Solver`, :data:`SOLVER_BUILD`;
- the evaluation's build: :data:`EVAL_BUILD`; the stable discs of a position
  (:func:`stable_squares`, a feature the evaluation studies try);
- the midgame search's functions: :func:`midgame_search` (one depth), :func:`deepen`
  (by time), :func:`reference_search` (the plain alpha-beta yardstick), and
  :class:`MidgameSearch` (one iteration at a time, any table size);
- :func:`shared_tree_tuning`: how a shared UCT tree batches its threads' updates.
"""
from __future__ import annotations

from typing import Optional, Tuple

from ..core._stability import stable_squares
from ..eval._patterns import EVAL_BUILD
from .alphabeta._midgame import MidgameSearch, deepen, reference_search
from .alphabeta._midgame import search as midgame_search
from .endgame._solver import SOLVER_BUILD, Solver
from .uct._tree import (
    AMAF_BYTES_PER_NODE,
    NODE_BYTES,
    TABLE_BYTES_PER_NODE,
    SearchTree,
    _shared_tuning,
)

__all__ = ["SearchTree", "NODE_BYTES", "AMAF_BYTES_PER_NODE", "TABLE_BYTES_PER_NODE",
           "Solver", "SOLVER_BUILD", "EVAL_BUILD", "midgame_search", "deepen",
           "reference_search", "MidgameSearch", "shared_tree_tuning", "stable_squares"]


def shared_tree_tuning(hot: Optional[int] = None, flush: Optional[int] = None,
                       own: Optional[bool] = None) -> Tuple[int, int, bool]:
    """Set, for this process, how a UCT tree shared by several threads batches their
    updates: ``hot``, the visits per thread from which a node's updates are batched;
    ``flush``, the iterations between a thread's flushes of its batch; ``own``, whether
    selection counts the thread's own batched updates.  None restores a default.  Returns
    the values now in force.  The defaults were chosen by the thread-scaling benchmark
    (``benchmarks/bench_threads.py --sweep``); this is its knob, not a user setting."""
    hot_now, flush_now, own_now = _shared_tuning(hot, flush, own)
    return int(hot_now), int(flush_now), bool(own_now)
