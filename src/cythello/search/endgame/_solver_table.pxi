# The solver's transposition table (part of ``_solver_impl.pxi``, which includes it):
# lock-free buckets of two entries, replaced by work and age, one cache line each (a probe
# is one memory read, and the search waits on it more than on anything else).

cdef struct Entry:
    # Lock-free for the parallel solve (Hyatt's scheme): the key words are stored XORed
    # with the data word, so an entry torn by two threads writing at once fails its check
    # and reads as a miss.
    uint64_t key_P            # P ^ data
    uint64_t key_O            # O ^ data
    uint64_t data             # lower | upper << 8 | move << 16 | work << 24 | date << 32
                              # | certainty << 48; work: the bit length of the nodes
                              # searched below it (what replacing it would cost)

cdef struct Found:            # what a probe read, a consistent copy
    int lower, upper          # the score lies in [lower, upper]
    int move                  # best move found, or PASS_MOVE
    int certainty             # how sure its bounds are: the search's Multi-ProbCut width
                              # in tenths of a sigma, EXACT_WIDTH for an exact search

cdef struct Bucket:           # 64 bytes: one cache line once the array is aligned
    Entry entry[2]
    uint64_t spare[2]

cdef struct Table:
    Bucket* buckets           # 2 ** bits buckets, in ``memory`` (2 MB aligned)
    void* memory              # what was allocated (freed by _release)
    int bits
    uint16_t date


cdef inline size_t _table_bytes(Table* t) noexcept nogil:
    return ((<size_t>1) << t.bits) * sizeof(Bucket)


cdef inline bint _allocate(Table* t, bint commit) noexcept nogil:
    """The table's zeroed buckets (on huge pages where the OS has them), committed now with
    ``commit`` (else as they are first written); False without the memory."""
    t.memory = cy_huge_alloc(_table_bytes(t), commit)
    if t.memory == NULL:
        return False
    t.buckets = <Bucket*>cy_huge_aligned(t.memory)
    return True


cdef inline void _release(Table* t) noexcept nogil:
    cy_huge_free(t.memory, _table_bytes(t))
    t.memory = NULL
    t.buckets = NULL


cdef inline Entry* _bucket(Table* t, uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t h = (P * 0x9E3779B97F4A7C15ULL) ^ (O * 0xC2B2AE3D27D4EB4FULL)
    return t.buckets[(h ^ (h >> 29)) >> (64 - t.bits)].entry


cdef inline Entry* _prefetch(Table* t, uint64_t P, uint64_t O) noexcept nogil:
    """Start reading the bucket of a position that will be probed soon; returns it, for
    ``_probe_bucket``."""
    cdef Entry* b = _bucket(t, P, O)
    cy_prefetch(b)
    return b


cdef inline bint _read(Entry* e, uint64_t P, uint64_t O, Found* out) noexcept nogil:
    cdef uint64_t d = e.data
    if (e.key_P ^ d) != P or (e.key_O ^ d) != O:
        return False
    out.lower = <int8_t>(d & 0xFF)
    out.upper = <int8_t>((d >> 8) & 0xFF)
    out.move = (d >> 16) & 0xFF
    out.certainty = (d >> 48) & 0xFF
    return True


cdef inline bint _probe_bucket(Entry* b, uint64_t P, uint64_t O, Found* out) noexcept nogil:
    """Whether bucket ``b`` knows this position (then ``out`` holds what it knows)."""
    return _read(&b[0], P, O, out) or _read(&b[1], P, O, out)


cdef inline bint _probe(Table* t, uint64_t P, uint64_t O, Found* out) noexcept nogil:
    """Whether the table knows this position (then ``out`` holds what it knows)."""
    return _probe_bucket(_bucket(t, P, O), P, O, out)


cdef inline int _age(Entry* e, int date) noexcept nogil:
    """An entry's claim to stay: entries of this root position's searches by the work
    behind them, older ones last."""
    cdef uint64_t d = e.data
    return ((d >> 24) & 0xFF) if ((d >> 32) & 0xFFFF) == <uint64_t>date else -1


cdef void _store(Table* t, uint64_t P, uint64_t O, int alpha, int beta, int score, int move,
                 int certainty, uint64_t work) noexcept nogil:
    """Record what a search with window (alpha, beta) found: an upper bound if it failed
    low, a lower bound if it failed high, else the exact score; ``certainty`` is the
    search's (EXACT_WIDTH, or a selective pass's width): bounds of another certainty are
    not merged with these, they are replaced.  ``work``: the nodes the search took (this
    thread's), which decides which entry gives way to a new one (Edax keeps a cost too:
    a subtree's size says more of what an entry saves than its empties do)."""
    cdef Entry* b = _bucket(t, P, O)
    cdef Entry* e
    cdef Found f
    if _read(&b[0], P, O, &f):
        e = &b[0]
    elif _read(&b[1], P, O, &f):
        e = &b[1]
    else:
        # Replace an entry of an older root position, else the one with less work behind it.
        e = &b[<int>(_age(&b[0], t.date) > _age(&b[1], t.date))]
        f.move = PASS_MOVE
        f.certainty = -1
    if f.certainty != certainty:  # a new entry, or bounds no search of this kind may take
        f.lower = -64
        f.upper = 64
    if score <= alpha:
        if score < f.upper:
            f.upper = score
    elif score >= beta:
        if score > f.lower:
            f.lower = score
    else:
        f.lower = f.upper = score
    if f.lower > f.upper:         # an older, inconsistent bound: the new one wins
        f.lower = f.upper = score
    if score > alpha:
        f.move = move
    cdef uint64_t d = ((<uint64_t><uint8_t>f.lower) | (<uint64_t><uint8_t>f.upper) << 8
                       | (<uint64_t>f.move) << 16
                       | (<uint64_t>(cy_msb(work) + 1 if work else 0)) << 24
                       | (<uint64_t>t.date) << 32 | (<uint64_t>certainty) << 48)
    e.key_P = P ^ d
    e.key_O = O ^ d
    e.data = d
