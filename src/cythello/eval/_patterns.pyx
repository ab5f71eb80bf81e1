# cython: language_level=3
"""The pattern evaluation (see cythello.eval.patterns for the features): the C evaluator
for the searches, and the Python entry points for users and for training."""
import numpy as np

from libc.stdint cimport uint64_t, int16_t, int32_t

from cythello.core._board cimport Board

include "_patterns_impl.pxi"

from cythello.core._cpu cimport v3_function

# The functions of the x86-64-v3 build where the CPU runs it.
cdef const EvalFunctions* _fast = <const EvalFunctions*>v3_function(
    __file__, "cythello.eval._patterns_v3", EVAL_CAPSULE)
cdef eval_fn EVALUATE = _fast.evaluate if _fast != NULL else _evaluate
cdef search_fn SEARCH = _fast.search if _fast != NULL else _search
cdef children_fn CHILDREN = _fast.children if _fast != NULL else _children
EVAL_BUILD = "portable" if _fast == NULL else "x86-64-v3"


cdef inline int _value(const int16_t* table, uint64_t P, uint64_t O) noexcept nogil:
    """What the evaluation says of a position to a user: a finished game's exact score
    (empties to the winner), else the pattern evaluation.  (The searches test for the end
    of the game themselves, before they evaluate.)"""
    if legal_moves(P, O) == 0 and legal_moves(O, P) == 0:
        return final_disc_difference(P, O) * EVAL_SCALE
    return EVALUATE(table, P, O)


cdef eval_fn evaluator_function() noexcept:
    return EVALUATE


cdef search_fn searcher_function() noexcept:
    return SEARCH


cdef children_fn children_function() noexcept:
    return CHILDREN


cdef class PatternWeights:
    """A set of evaluation weights: ``table`` is an int16 array of shape (N_STAGES,
    TABLE_SIZE) in 1/EVAL_SCALE disc, every pattern configuration unpacked (see
    :func:`cythello.eval.weights.unpack`); ``info`` says where they came from."""

    def __init__(self, table, dict info=None):
        a = np.ascontiguousarray(table, dtype=np.int16)
        if a.shape != (N_STAGES, TABLE_SIZE):
            raise ValueError(f"weights must have shape ({N_STAGES}, {TABLE_SIZE}), not {a.shape}")
        a.flags.writeable = False
        cdef const int16_t[:, ::1] view = a
        self._table = a
        self.table = &view[0, 0]
        self.info = dict(info or {})

    @property
    def array(self):
        """The weights (read-only)."""
        return self._table

    def __reduce__(self):
        # By content, so that a player holding loaded weights can go to worker processes
        # (matches, self-play) whatever file they came from.
        return (PatternWeights, (self._table, self.info))

    def evaluate(self, Board board not None):
        """The expected final disc difference for the side to move, within +-64 (a finished
        game's exact one)."""
        own, opp = board.position()
        return _value(self.table, own, opp) / <double>EVAL_SCALE

    def evaluate_many(self, own, opp):
        """Evaluations (in discs) of many positions at once: ``own`` and ``opp`` are uint64
        arrays of the side to move's and the opponent's discs."""
        own, opp = position_arrays(own, opp)
        cdef const uint64_t[::1] P = own
        cdef const uint64_t[::1] O = opp
        out = np.empty(P.shape[0], dtype=np.float64)
        cdef double[::1] res = out
        cdef Py_ssize_t i, n = P.shape[0]
        with nogil:
            for i in range(n):
                res[i] = _value(self.table, P[i], O[i]) / <double>EVAL_SCALE
        return out


def _children_check(PatternWeights weights not None, Board board not None, int depth,
                    int alpha=-SEARCH_INF, int beta=SEARCH_INF):
    """For the tests: the children's values and node counts by ``children_function`` and
    by a ``searcher_function`` call for each child, as two pairs ``(values, nodes)``."""
    own, opp = board.position()
    cdef uint64_t P = own, O = opp, f
    cdef int squares[64]
    cdef uint64_t flipped[64]
    cdef int values[64]
    cdef int n = 0, i
    cdef unsigned long long nodes = 0, each_nodes = 0
    for move in board.legal_moves:
        squares[n] = move
        flipped[n] = flips(P, O, move)
        n += 1
    CHILDREN(weights.table, P, O, n, squares, flipped, depth, alpha, beta, values, &nodes)
    each = []
    for i in range(n):
        f = flipped[i]
        each.append(SEARCH(weights.table, O & ~f, P | f | ((<uint64_t>1) << squares[i]), depth,
                           alpha, beta, &each_nodes))
    return ([values[i] for i in range(n)], nodes), (each, each_nodes)


def position_arrays(own, opp):
    """Many positions (the side to move's and the opponent's discs) as two contiguous
    uint64 arrays, checked: of one length, no square in both.  The one check of the
    batched entry points (evaluation, features, alpha-beta searches)."""
    P = np.ascontiguousarray(own, dtype=np.uint64)
    O = np.ascontiguousarray(opp, dtype=np.uint64)
    if P.ndim != 1 or O.ndim != 1 or P.shape[0] != O.shape[0]:
        raise ValueError(f"own and opp must be 1-d arrays of one length, not of shapes "
                         f"{P.shape} and {O.shape}")
    if np.any(np.bitwise_and(P, O)):
        raise ValueError("a position has a square in both own and opp")
    return P, O


def feature_indices(own, opp):
    """The unpacked table index of every feature (N, 47) of many positions (uint64 arrays
    of the side to move's and the opponent's discs), as the evaluator reads them."""
    own, opp = position_arrays(own, opp)
    cdef const uint64_t[::1] P = own
    cdef const uint64_t[::1] O = opp
    out = np.empty((P.shape[0], N_INDICES), dtype=np.int32)
    cdef int32_t[:, ::1] res = out
    cdef Py_ssize_t i, n = P.shape[0]
    with nogil:
        for i in range(n):
            _indices(P[i], O[i], &res[i, 0])
    return out


def layout():
    """``(N_STAGES, TABLE_SIZE, N_INDICES, EVAL_SCALE)`` as compiled."""
    return N_STAGES, TABLE_SIZE, N_INDICES, EVAL_SCALE
