"""The alpha-beta search's functions, for scripts and studies (the player is
:class:`~cythello.AlphaBetaPlayer`): one position's search to a depth, a batch of positions
searched without the GIL, iterative deepening with its per-depth log, and Multi-ProbCut's
model.  Scores are in discs for the side to move.

    >>> from cythello.search.midgame import search, search_many
    >>> score, move, nodes = search(board, 12, default_weights(), probcut=1.5)

The search itself is C (``alphabeta/_midgame.pyx``: PVS, iterative deepening, a transposition
table, Multi-ProbCut); ``cythello.openings.make`` and the book builder value positions
with ``search_many``.
"""
from .alphabeta._midgame import deepen, probcut_probability, probcut_sigma, search, search_many

__all__ = ["search", "search_many", "deepen", "probcut_probability", "probcut_sigma"]
