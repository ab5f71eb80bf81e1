# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The shipped pattern evaluation behind the evaluator contract (:mod:`cythello.nn`), in C:
a reference network for the PUCT search that needs no training.  The PUCT search calls
:func:`answer_position` directly (``_pattern.pxd``), with the same answers as a call
through Python but none of its cost.

With ``search_depth`` k > 0 it answers from shallow alpha-beta searches instead of the
static evaluation (an MCTS-minimax hybrid, Baier & Winands 2015): each move's prior from
the depth-(k-1) score of the position it reaches, and the value from the best of them
(the depth-k score), so that a tactic within k plies shows in both."""
from libc.math cimport tanh, INFINITY
from libc.stdint cimport int16_t, uint64_t

import numpy as np

from cythello.core._planes cimport read_planes
from cythello.core._rules cimport (
    Position, legal_moves, next_position, first_square,
)
from cythello.eval._layout cimport EVAL_SCALE
from cythello.eval._shallow cimport SHALLOW_INF, shallow_score
from cythello.eval._patterns cimport evaluator_function
from cythello.errors import SettingsError
from cythello._checks import check_int, check_number
from cythello.eval.weights import load_eval_weights

cdef enum:
    MAX_SEARCH_DEPTH = 4        # deeper costs more than a PUCT visit is worth
    INF = SHALLOW_INF


cdef class PatternEvaluator:
    """``f(planes, legal) -> (logits, values)`` from the pattern evaluation ``weights``
    ('default': the shipped ones).

    The value is ``tanh(d / (2 * value_scale))`` for the evaluation's disc difference
    ``d``, so ``(v + 1) / 2`` is the win rate ``1 / (1 + exp(-d / value_scale))`` (the UCT
    search's with ``eval_scale=value_scale``; 8 here, 4 in the UCT search, each chosen by
    matches: docs, "How the engine works"); a move's logit is the evaluation after it, for the mover,
    in units of ``prior_scale`` discs (a move ``prior_scale`` discs better has e times the
    prior).  ``search_depth`` (0-4): the value is the depth-``search_depth`` score (the
    best of the moves' values) and each move's prior a search one ply shallower after it
    (see the module).  1, the default, evaluates exactly the positions 0 does (each
    move's) but takes the value from them instead of from the position itself, and won
    its matches (docs: the strength results); 0 is the static evaluation of the
    position, as the shipped weights' self-play used."""

    def __init__(self, weights="default", value_scale=8.0, prior_scale=4.0, search_depth=1):
        loaded = load_eval_weights(weights)
        if loaded is None:
            raise SettingsError("PatternEvaluator needs evaluation weights, not None")
        self._weights = loaded
        self._evaluate = evaluator_function()
        self.value_scale = check_number("value_scale", value_scale, 0, 1000, low_open=True)
        self.prior_scale = check_number("prior_scale", prior_scale, 0, 1000, low_open=True)
        self.search_depth = check_int("search_depth", search_depth, 0, MAX_SEARCH_DEPTH)

    @property
    def weights(self):
        """The pattern evaluation it reads (:class:`~cythello.eval.PatternWeights`)."""
        return self._weights

    def __repr__(self):
        return (f"PatternEvaluator(value_scale={self.value_scale:g}, "
                f"prior_scale={self.prior_scale:g}, search_depth={self.search_depth})")

    def __reduce__(self):
        return (PatternEvaluator, (self._weights, self.value_scale, self.prior_scale,
                                   self.search_depth))

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
        e.depth = self.search_depth
        return e

    cdef void evaluate_position(self, uint64_t P, uint64_t O, float* logits,
                                float* value) noexcept nogil:
        cdef PatternAnswer e = self.answer()
        answer_position(&e, P, O, logits, value)


cdef void answer_position(const PatternAnswer* e, uint64_t P, uint64_t O, float* logits,
                          float* value) noexcept nogil:
    cdef uint64_t moves = legal_moves(P, O)
    cdef Position child
    cdef int sq, score, best = -INF
    for sq in range(65):
        logits[sq] = -INFINITY
    if moves == 0:
        logits[64] = 0.0
        if e.depth == 0:
            best = e.evaluate(e.table, P, O)
        else:
            best = shallow_score(e.table, e.evaluate, P, O, e.depth, -INF, INF)
        value[0] = <float>tanh(best / e.value_unit)
        return
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        child = next_position(P, O, sq)
        if e.depth == 0:
            score = -e.evaluate(e.table, child.P, child.O)
        else:
            # Each move's score exactly (a full window), so that priors rank them all.
            score = -shallow_score(e.table, e.evaluate, child.P, child.O, e.depth - 1,
                                   -INF, INF)
        logits[sq] = <float>(score / e.prior_unit)
        if score > best:
            best = score
    if e.depth == 0:
        best = e.evaluate(e.table, P, O)
    value[0] = <float>tanh(best / e.value_unit)
