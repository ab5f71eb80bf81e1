# cython: language_level=3
"""The shipped pattern evaluation as a PUCT evaluator, in C: the contract between it and
the PUCT search, which calls it without Python (and without the GIL) when a player or a
self-play run is given a :class:`PatternEvaluator`."""
from libc.stdint cimport uint64_t

from cythello.eval._layout cimport eval_fn
from cythello.eval._patterns cimport PatternWeights


cdef class PatternEvaluator:
    cdef PatternWeights _weights
    cdef eval_fn _evaluate
    cdef readonly double value_scale
    cdef readonly double prior_scale

    # The answer for one position (side to move owning ``P``), exactly as the Python call
    # gives it for that position's planes: ``logits[0:65]`` (-inf where illegal, 0 for a
    # forced pass) and ``value[0]``.
    cdef void evaluate_position(self, uint64_t P, uint64_t O, float* logits,
                                float* value) noexcept nogil
