# cython: language_level=3
"""The pattern evaluation's C interface, for the search modules.

A set of weights is a block of int16 tables, one per stage, each TABLE_SIZE long (every
pattern's 3**n configurations unpacked, then the parity weights), in 1/EVAL_SCALE disc.
``evaluate`` returns the expected final disc difference for the side owning ``P``, in those
units.  The function pointers come from :func:`evaluator_function` and
:func:`searcher_function` because the module is built twice (portable and x86-64-v3) and
the faster build is chosen at import.
"""
from libc.stdint cimport uint64_t, int16_t

from cythello.eval._layout cimport (
    EVAL_SCALE, N_STAGES, TABLE_SIZE, SEARCH_INF, eval_fn, search_fn, children_fn,
)

cdef eval_fn evaluator_function() noexcept
# ``search(weights, P, O, depth, alpha, beta, nodes)``: the depth-``depth`` alpha-beta
# score of the evaluation for the side owning ``P``, in its units (a pass uses no depth,
# even at depth 0: a side that must pass is valued from its opponent's turn; a finished
# game scores its disc difference exactly; fail-soft, so with the full window
# (-SEARCH_INF, SEARCH_INF) it is the exact minimax score); each position it visits adds
# one to ``*nodes``.  The 1-3 plies of the searching evaluators (PUCT's leaf values, the
# UCT search's eval_depth) and the last two of the midgame search (search/alphabeta/_midgame.pyx,
# the deep, ordered search with a table).
cdef search_fn searcher_function() noexcept
# ``children(weights, P, O, n, squares, flipped, depth, alpha, beta, values, nodes)``:
# ``values[i]`` gets ``search`` of the position after the move ``squares[i]`` (which turns
# ``flipped[i]``), for the side to move there, each of the ``n`` children counted in
# ``*nodes`` as ``search`` counts it.  The same values as ``n`` calls of ``search``, for
# less: the pattern indices are read once, at the parent, and followed to each child (the
# endgame solver's move ordering).
cdef children_fn children_function() noexcept

cdef class PatternWeights:
    cdef object _table            # the numpy array that owns the memory
    cdef const int16_t* table     # N_STAGES x TABLE_SIZE
    cdef readonly dict info       # provenance and training metadata
