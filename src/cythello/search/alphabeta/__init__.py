"""Alpha-beta: the classic engine, iterative-deepening PVS on the learned evaluation with a
transposition table and Multi-ProbCut, in C (``_midgame.pyx``; the public functions are
:mod:`cythello.search.midgame`), with :class:`AlphaBetaSearch` as the backend of the engine
shell and :class:`AlphaBetaPlayer` the player (``search.py``), set by
:class:`AlphaBetaSettings` (``settings.py``)."""
from .search import (
    AlphaBetaPlayer,
    AlphaBetaSearch,
    _player,  # noqa: F401  (pickled players name it here)
)
from .settings import MAX_ALPHABETA_DEPTH, MAX_ENDGAME_EMPTIES, MAX_PROBCUT, AlphaBetaSettings

__all__ = ["AlphaBetaPlayer", "AlphaBetaSearch", "AlphaBetaSettings", "MAX_ALPHABETA_DEPTH",
           "MAX_PROBCUT", "MAX_ENDGAME_EMPTIES"]
