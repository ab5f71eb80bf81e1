# cython: language_level=3
"""The compiled sizes of the pattern evaluation (they must agree with
cythello.eval.patterns; the evaluator checks at import)."""
from libc.stdint cimport uint64_t, int16_t

cdef enum:
    EVAL_SCALE = 128          # weight units per disc
    N_STAGES = 15
    TABLE_SIZE = 167331       # unpacked weights per stage (patterns, parity, 2 x 32 mobility)
    SEARCH_INF = 1 << 20      # beyond any score: a search's full window is
                              # (-SEARCH_INF, SEARCH_INF)

ctypedef int (*eval_fn)(const int16_t* weights, uint64_t P, uint64_t O) noexcept nogil
# A depth-limited alpha-beta search of the evaluation (see _patterns.pxd).
ctypedef int (*search_fn)(const int16_t* weights, uint64_t P, uint64_t O, int depth,
                          int alpha, int beta, unsigned long long* nodes) noexcept nogil

# The same search from each child of a position (see _patterns.pxd).
ctypedef void (*children_fn)(const int16_t* weights, uint64_t P, uint64_t O, int n,
                             const int* squares, const uint64_t* flipped, int depth,
                             int alpha, int beta, int* values,
                             unsigned long long* nodes) noexcept nogil

cdef struct EvalFunctions:   # what a build of the evaluator exports
    eval_fn evaluate
    search_fn search
    children_fn children
