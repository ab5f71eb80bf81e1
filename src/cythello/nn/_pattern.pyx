# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The shipped pattern evaluation behind the evaluator contract (:mod:`cythello.nn`), in C:
a reference network for the PUCT search that needs no training.  The PUCT search calls
:func:`answer_position` directly (``_pattern.pxd``), with the same answers as a call
through Python but none of its cost.

With ``search_depth`` k > 0 it answers from shallow alpha-beta searches instead of the
static evaluation (an MCTS-minimax hybrid, Baier & Winands 2015): each move's prior from
the depth-(k-1) score of the position it reaches, and the value from the best of them
(the depth-k score), so that a tactic within k plies shows in both.  With a shallower
``prior_depth`` p < k - 1 the priors come from depth-p searches and the value from its own
alpha-beta search, the moves tried best prior first: a depth-k value for far fewer
evaluations than exact depth-(k-1) scores of every move cost.  Such answers are
remembered (``_answer_cache.pxd``): a position met again by another move order is
answered from memory, with the same answer."""
from libc.math cimport tanh, INFINITY
from libc.stdint cimport int16_t, uint64_t
from libc.stdlib cimport calloc, free

import numpy as np

from cythello.core._planes cimport read_planes
from cythello.core._rules cimport (
    Position, legal_moves, next_position, first_square, count,
)
from cythello.eval._layout cimport EVAL_SCALE
from cythello.nn._answer_cache cimport (
    SLOT_WORDS, CACHED_MOVES, find_answer, keep_answer,
)
from cythello.eval._patterns cimport evaluator_function, searcher_function, SEARCH_INF
from cythello.errors import SettingsError
from cythello._checks import check_int, check_number
from cythello.eval.weights import load_eval_weights

cdef enum:
    MAX_SEARCH_DEPTH = 4        # deeper costs more than a PUCT visit is worth
    INF = SEARCH_INF

# Remembered answers by default: 2**18 slots of 64 bytes (16 MiB, taken from the system as
# they are first written): room for the answers of a search of a second or so (up to
# ~200,000 on the 2-core machine); a longer search replaces old ones with new.
DEFAULT_CACHE_ENTRIES = 1 << 18
MAX_CACHE_ENTRIES = 1 << 30


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
    position, as the shipped weights' self-play used.

    ``prior_depth`` (0 to ``search_depth`` - 1, that by default): the depth of each move's
    search for its prior; below ``search_depth`` - 1 the value is searched on its own,
    best prior first (see the module).

    ``cache_entries``: how many answers (of ``search_depth`` 2 or more) it remembers, 64
    bytes each, so that a position met again is answered without a search; 0: none.  A
    remembered answer is the one a new search would give, so this changes speed alone."""

    def __init__(self, weights="default", value_scale=8.0, prior_scale=4.0, search_depth=1,
                 cache_entries=DEFAULT_CACHE_ENTRIES, prior_depth=None):
        loaded = load_eval_weights(weights)
        if loaded is None:
            raise SettingsError("PatternEvaluator needs evaluation weights, not None")
        value_scale = check_number("value_scale", value_scale, 0, 1000, low_open=True)
        prior_scale = check_number("prior_scale", prior_scale, 0, 1000, low_open=True)
        search_depth = check_int("search_depth", search_depth, 0, MAX_SEARCH_DEPTH)
        deepest_prior = search_depth - 1 if search_depth else 0
        prior_depth = (deepest_prior if prior_depth is None
                       else check_int("prior_depth", prior_depth, 0, deepest_prior))
        cache_entries = check_int("cache_entries", cache_entries, 0, MAX_CACHE_ENTRIES)
        cdef uint64_t* cache = NULL
        # Only searches of 2 plies or more are remembered: a depth-1 answer (one evaluation
        # a move) costs about what a lookup in a large memory does (bench_engine.py).
        if cache_entries and search_depth >= 2:
            cache = <uint64_t*>calloc(cache_entries, SLOT_WORDS * sizeof(uint64_t))
            if cache == NULL:
                raise MemoryError(f"no memory for {cache_entries} remembered answers")
        free(self._cache)
        self._cache = cache
        self._weights = loaded
        self._evaluate = evaluator_function()
        self._search = searcher_function()
        self.value_scale = value_scale
        self.prior_scale = prior_scale
        self.search_depth = search_depth
        self.prior_depth = prior_depth
        self.cache_entries = cache_entries

    def __dealloc__(self):
        free(self._cache)

    @property
    def weights(self):
        """The pattern evaluation it reads (:class:`~cythello.eval.PatternWeights`)."""
        return self._weights

    def __repr__(self):
        return (f"PatternEvaluator(value_scale={self.value_scale:g}, "
                f"prior_scale={self.prior_scale:g}, search_depth={self.search_depth}, "
                f"prior_depth={self.prior_depth})")

    def __reduce__(self):
        return (PatternEvaluator, (self._weights, self.value_scale, self.prior_scale,
                                   self.search_depth, self.cache_entries, self.prior_depth))

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
        e.search = self._search
        e.value_unit = 2.0 * self.value_scale * EVAL_SCALE
        e.prior_unit = self.prior_scale * EVAL_SCALE
        e.depth = self.search_depth
        e.prior_depth = self.prior_depth
        e.cache = self._cache
        e.cache_slots = self.cache_entries if self._cache != NULL else 0
        return e

    cdef void evaluate_position(self, uint64_t P, uint64_t O, float* logits,
                                float* value) noexcept nogil:
        cdef PatternAnswer e = self.answer()
        answer_position(&e, P, O, logits, value)


cdef void answer_position(const PatternAnswer* e, uint64_t P, uint64_t O, float* logits,
                          float* value) noexcept nogil:
    cdef uint64_t moves = legal_moves(P, O)
    cdef Position child
    cdef int sq, i, score, best = -INF
    cdef int n = count(moves)
    # A value searched on its own (prior_depth below search_depth - 1) is remembered
    # after the moves' scores.
    cdef bint own_value = e.depth >= 2 and e.prior_depth < e.depth - 1
    cdef int kept_n = n + 1 if own_value else n
    cdef int16_t kept[CACHED_MOVES]
    cdef int squares[64]
    cdef int scores[64]
    cdef bint remember, known
    cdef unsigned long long visited = 0      # the searches' count, not reported
    for sq in range(65):
        logits[sq] = -INFINITY
    if moves == 0:
        logits[64] = 0.0
        if e.depth == 0:
            best = e.evaluate(e.table, P, O)
        else:
            best = e.search(e.table, P, O, e.depth, -INF, INF, &visited)
        value[0] = <float>tanh(best / e.value_unit)
        return
    remember = e.cache != NULL and kept_n <= CACHED_MOVES
    known = remember and find_answer(e.cache, e.cache_slots, P, O, kept_n, kept)
    i = 0
    while moves:
        sq = first_square(moves)
        moves &= moves - 1
        if known:
            score = kept[i]
        else:
            child = next_position(P, O, sq)
            if e.depth == 0:
                score = -e.evaluate(e.table, child.P, child.O)
            else:
                # Each move's score exactly (a full window), so that priors rank them all.
                score = -e.search(e.table, child.P, child.O, e.prior_depth, -INF, INF,
                                      &visited)
            if remember:
                if -32768 <= score <= 32767:
                    kept[i] = <int16_t>score
                else:           # beyond 16 bits (never seen): not remembered
                    remember = False
        squares[i] = sq
        scores[i] = score
        i += 1
        logits[sq] = <float>(score / e.prior_unit)
        if score > best:
            best = score
    if own_value:
        if known:
            best = kept[n]
        else:
            best = _searched_value(e, P, O, n, squares, scores)
            if remember:
                if -32768 <= best <= 32767:
                    kept[n] = <int16_t>best
                else:
                    remember = False
    if remember and not known:
        keep_answer(e.cache, e.cache_slots, P, O, kept_n, kept)
    if e.depth == 0:
        best = e.evaluate(e.table, P, O)
    value[0] = <float>tanh(best / e.value_unit)


cdef int _searched_value(const PatternAnswer* e, uint64_t P, uint64_t O, int n,
                         const int* squares, const int* scores) noexcept nogil:
    """The depth-``e.depth`` score of the position from its ``n`` moves (``squares``) and
    their shallower ``scores``: an alpha-beta search at the root that tries the moves
    best score first, so that the later ones are mostly refuted by a reply or two."""
    cdef int i, j, k, v, best = -INF
    cdef int order[64]
    cdef unsigned long long visited = 0
    cdef Position child
    for i in range(n):                       # insertion sort, best score first
        k = i
        while k > 0 and scores[order[k - 1]] < scores[i]:
            order[k] = order[k - 1]
            k -= 1
        order[k] = i
    for j in range(n):
        child = next_position(P, O, squares[order[j]])
        # Fail-soft: a move no better than the best so far returns a bound, never above it.
        v = -e.search(e.table, child.P, child.O, e.depth - 1, -INF, -best, &visited)
        if v > best:
            best = v
    return best
