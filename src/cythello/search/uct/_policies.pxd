# cython: language_level=3
"""Playout policy codes, shared by both builds of the playouts and their callers."""

cdef enum:
    ROLLOUT_RANDOM = 0        # uniform over legal moves
    ROLLOUT_HEURISTIC = 1     # weighted: corners, edges, quiet moves; X/C squares avoided
