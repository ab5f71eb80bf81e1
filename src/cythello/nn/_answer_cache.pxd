# cython: language_level=3
"""A fixed-size memory of a searching evaluator's answers, keyed by position: how the
PUCT search's pattern evaluator (``nn/_pattern.pyx``) answers a position it has met
before without searching it again.

Othello's move orders meet, so a PUCT tree, which keeps each path apart, expands many
positions more than once (how much this saves: docs, "How the engine works").
With ``search_depth`` k >= 1 an answer costs a depth-(k-1) search after every move (about
b**k evaluations for b moves a ply), and a lookup about one memory access.  What is kept
is the raw material of an answer, each move's score in evaluation units (the value is the
best of them, or, when the priors are searched shallower than the value, a score after
them), so the answer rebuilt from it is the one a fresh search gives, bit for bit.

One slot is 8 words: a check word, the position (two words), then up to CACHED_MOVES
16-bit scores in the order of the moves' squares.  Threads share a memory without a lock
(a PUCT search on several threads): a slot is written whole, and read by copying it and
checking that the first word is the XOR of the others (Hyatt and Mann's lockless
hashing), so a slot torn by two writers reads as empty.  A new answer replaces whatever
its slot held."""
from libc.stdint cimport int16_t, uint64_t
from libc.string cimport memcpy

cdef enum:
    SLOT_WORDS = 8
    CACHED_MOVES = 20         # 5 words of 4 scores; positions with more moves are not kept


cdef inline uint64_t _check(const uint64_t* w) noexcept nogil:
    # The XOR of the slot's other words and a constant, so that a slot of zeros (never
    # written) does not verify.
    return w[1] ^ w[2] ^ w[3] ^ w[4] ^ w[5] ^ w[6] ^ w[7] ^ 0x6A09E667F3BCC908ULL


cdef inline uint64_t* answer_slot(uint64_t* cache, uint64_t slots, uint64_t P,
                                  uint64_t O) noexcept nogil:
    cdef uint64_t h = P * 0x9E3779B97F4A7C15ULL ^ O * 0xC2B2AE3D27D4EB4FULL
    h ^= h >> 31
    return cache + (h % slots) * SLOT_WORDS


cdef inline bint find_answer(uint64_t* cache, uint64_t slots, uint64_t P, uint64_t O,
                             int n, int16_t* scores) noexcept nogil:
    """Whether the answer for (P, O), side owning ``P`` to move, is remembered; if so its
    ``n`` scores (the caller's count of the moves, at most CACHED_MOVES) into
    ``scores``."""
    cdef uint64_t w[SLOT_WORDS]
    memcpy(w, answer_slot(cache, slots, P, O), sizeof(w))
    if w[1] != P or w[2] != O:
        return False
    if w[0] != _check(w):
        return False
    memcpy(scores, &w[3], n * sizeof(int16_t))
    return True


cdef inline void keep_answer(uint64_t* cache, uint64_t slots, uint64_t P, uint64_t O,
                             int n, const int16_t* scores) noexcept nogil:
    """Remember the ``n`` scores (at most CACHED_MOVES) of the answer for (P, O)."""
    cdef uint64_t w[SLOT_WORDS]
    w[3] = w[4] = w[5] = w[6] = w[7] = 0
    w[1] = P
    w[2] = O
    memcpy(&w[3], scores, n * sizeof(int16_t))
    w[0] = _check(w)
    memcpy(answer_slot(cache, slots, P, O), w, sizeof(w))
