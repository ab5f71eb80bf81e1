# cython: language_level=3
"""The transposition table of the search tree (contract in ``_transpositions.pxd``):
one entry a bucket, always replaced (the newest expansion of a position is the one
most likely to be reached again)."""
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.stdint cimport uint32_t, uint64_t

from cythello.core._platform cimport cy_atomic_cas32, cy_atomic_load32, cy_atomic_store32

# The table's memory, per node of the pool it serves (for budgets in bytes).
TABLE_BYTES_PER_NODE = sizeof(TableEntry) / <double>TABLE_NODES_PER_ENTRY


cdef int table_init(NodeTable* t, uint32_t max_nodes) noexcept nogil:
    """A table sized for a pool of ``max_nodes`` (zeroed by calloc: pages never touched
    cost nothing).  0 on success, -1 without memory."""
    cdef uint64_t n = 1024
    while n * TABLE_NODES_PER_ENTRY < max_nodes:
        n <<= 1
    t.entries = <TableEntry*>calloc(n, sizeof(TableEntry))
    if t.entries == NULL:
        t.mask = 0
        return -1
    t.mask = n - 1
    t.generation = 1
    return 0


cdef void table_free(NodeTable* t) noexcept nogil:
    free(t.entries)
    t.entries = NULL


cdef void table_clear(NodeTable* t) noexcept nogil:
    """Forget every entry: a new generation (a pass over memory only when the stamp
    would reach the lock bit, once in two billion clears)."""
    t.generation += 1
    if t.generation >= TABLE_LOCKED:
        memset(t.entries, 0, (t.mask + 1) * sizeof(TableEntry))
        t.generation = 1


cdef inline uint64_t _hash(uint64_t P, uint64_t O) noexcept nogil:
    # A strong 64-bit mix of both bitboards (the splitmix64 finaliser).
    cdef uint64_t h = P * 0x9E3779B97F4A7C15ULL ^ (O + 0x632BE59BD9B4E019ULL)
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ULL
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBULL
    return h ^ (h >> 31)


cdef uint32_t table_probe(NodeTable* t, uint64_t P, uint64_t O, bint shared) noexcept nogil:
    """The node recorded for position (P, O) in this generation, or 0 (a miss: the root,
    index 0, is never anybody's transposition)."""
    cdef TableEntry* e = &t.entries[_hash(P, O) & t.mask]
    cdef uint32_t node = 0
    if not shared:
        if e.stamp == t.generation and e.P == P and e.O == O:
            return e.node
        return 0
    if not cy_atomic_cas32(&e.stamp, t.generation, t.generation | TABLE_LOCKED):
        return 0                                 # stale, empty, or held by another thread
    if e.P == P and e.O == O:
        node = e.node
    cy_atomic_store32(&e.stamp, t.generation)
    return node


cdef void table_store(NodeTable* t, uint64_t P, uint64_t O, uint32_t node,
                      bint shared) noexcept nogil:
    """Record ``node`` (expanded, its children published) for position (P, O)."""
    cdef TableEntry* e = &t.entries[_hash(P, O) & t.mask]
    cdef uint32_t stamp
    if shared:
        stamp = cy_atomic_load32(&e.stamp)
        if stamp & TABLE_LOCKED or not cy_atomic_cas32(&e.stamp, stamp,
                                                       t.generation | TABLE_LOCKED):
            return
    e.P = P
    e.O = O
    e.node = node
    if shared:
        cy_atomic_store32(&e.stamp, t.generation)
    else:
        e.stamp = t.generation
