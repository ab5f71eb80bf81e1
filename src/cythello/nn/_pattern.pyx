# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The shipped pattern evaluation behind the evaluator contract (:mod:`cythello.nn`), in C:
a reference network for the PUCT search that needs no training.  The PUCT search calls
:func:`answer_position` directly (``_pattern.pxd``), with the same answers as a call
through Python but none of its cost."""
from libc.math cimport tanh, INFINITY
from libc.stdint cimport int16_t, uint64_t

import numpy as np

from cythello.core._planes cimport read_planes
from cythello.core._rules cimport Position, legal_moves, next_position, first_square
from cythello.eval._layout cimport EVAL_SCALE
from cythello.eval._patterns cimport evaluator_function
from cythello.errors import SettingsError
from cythello.search.settings import check_number, load_eval_weights


cdef class PatternEvaluator:
    """``f(planes, legal) -> (logits, values)`` from the pattern evaluation ``weights``
    ('default': the shipped ones).

    The value is ``tanh(d / (2 * value_scale))`` for the evaluation's disc difference
    ``d``, so ``(v + 1) / 2`` is the win rate ``1 / (1 + exp(-d / value_scale))`` (the UCT
    search's with ``eval_scale=value_scale``; the UCT's is 4, but 4 lost to 8 here,
    -49 +- 48 Elo at 0.25 s a move); a move's logit is the evaluation after it, for the mover,
    in units of ``prior_scale`` discs (a move ``prior_scale`` discs better has e times the
    prior)."""

    def __init__(self, weights="default", value_scale=8.0, prior_scale=4.0):
        loaded = load_eval_weights(weights)
        if loaded is None:
            raise SettingsError("PatternEvaluator needs evaluation weights, not None")
        self._weights = loaded
        self._evaluate = evaluator_function()
        self.value_scale = check_number("value_scale", value_scale, 0, 1000, low_open=True)
        self.prior_scale = check_number("prior_scale", prior_scale, 0, 1000, low_open=True)

    def __repr__(self):
        return (f"PatternEvaluator(value_scale={self.value_scale:g}, "
                f"prior_scale={self.prior_scale:g})")

    def __reduce__(self):
        return (PatternEvaluator, (self._weights, self.value_scale, self.prior_scale))

    def __call__(self, planes, legal=None):
        cdef const float[:, :, :, ::1] x = np.ascontiguousarray(planes, dtype=np.float32)
        if x.shape[1] != 2 or x.shape[2] != 8 or x.shape[3] != 8:
            raise ValueError(f"planes must have shape (n, 2, 8, 8), not {np.shape(planes)}")
        cdef Py_ssize_t n = x.shape[0], i
        logits = np.empty((n, 65), dtype=np.float32)
        values = np.empty(n, dtype=np.float32)
        cdef float[:, ::1] lg = logits
        cdef float[::1] v = values
        cdef uint64_t P, O
        with nogil:
            for i in range(n):
                read_planes(&x[i, 0, 0, 0], &P, &O)
                self.evaluate_position(P, O, &lg[i, 0], &v[i])
        return logits, values

    cdef PatternAnswer answer(self) noexcept nogil:
        cdef PatternAnswer e
        e.table = self._weights.table
        e.evaluate = self._evaluate
        e.value_unit = 2.0 * self.value_scale * EVAL_SCALE
        e.prior_unit = self.prior_scale * EVAL_SCALE
        return e

    cdef void evaluate_position(self, uint64_t P, uint64_t O, float* logits,
                                float* value) noexcept nogil:
        cdef PatternAnswer e = self.answer()
        answer_position(&e, P, O, logits, value)


cdef void answer_position(const PatternAnswer* e, uint64_t P, uint64_t O, float* logits,
                          float* value) noexcept nogil:
    cdef uint64_t moves = legal_moves(P, O)
    cdef Position child
    cdef int sq
    for sq in range(65):
        logits[sq] = -INFINITY
    value[0] = <float>tanh(e.evaluate(e.table, P, O) / e.value_unit)
    if moves == 0:
        logits[64] = 0.0
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        child = next_position(P, O, sq)
        logits[sq] = <float>(-e.evaluate(e.table, child.P, child.O) / e.prior_unit)
