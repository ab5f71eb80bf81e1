# cython: language_level=3
"""The shipped pattern evaluation as a PUCT evaluator, in C: the contract between it and
the PUCT search, which calls it without Python (and without the GIL) when a player or a
self-play run is given a :class:`PatternEvaluator`."""
from libc.stdint cimport int16_t, uint64_t

from cythello.eval._layout cimport eval_fn, search_fn
from cythello.eval._patterns cimport PatternWeights


# What answering a position needs, as plain C: a search's threads share it without the
# GIL (its table stays valid while the PatternEvaluator that made it lives).
cdef struct PatternAnswer:
    const int16_t* table
    eval_fn evaluate
    search_fn search          # the shallow searches of depth >= 1
    double value_unit         # 2 * value_scale discs, in evaluation units
    double prior_unit         # prior_scale discs, in evaluation units
    int depth                 # search_depth: 0 answers from the static evaluation
    int prior_depth           # the depth of each move's search for its prior
    uint64_t* cache           # remembered answers (_answer_cache.pxd), or NULL
    uint64_t cache_slots


# The answer for one position (side to move owning ``P``), exactly as the Python call
# gives it for that position's planes: ``logits[0:65]`` (-inf where illegal, 0 for a
# forced pass) and ``value[0]``.
cdef void answer_position(const PatternAnswer* e, uint64_t P, uint64_t O, float* logits,
                          float* value) noexcept nogil


cdef class PatternEvaluator:
    cdef PatternWeights _weights
    cdef eval_fn _evaluate
    cdef search_fn _search
    cdef readonly double value_scale
    cdef readonly double prior_scale
    cdef readonly int search_depth
    cdef readonly int prior_depth
    cdef readonly uint64_t cache_entries
    cdef uint64_t* _cache

    cdef PatternAnswer answer(self) noexcept nogil
    # answer_position with this evaluator's answer().
    cdef void evaluate_position(self, uint64_t P, uint64_t O, float* logits,
                                float* value) noexcept nogil
