# cython: language_level=3
"""The search tree's transposition table: from a position to the node whose children
stand for it, so that a position reached by several move orders is searched once (the
tree becomes a DAG: nodes reached by different moves share one block of children).

An entry holds the whole position (two bitboards), so a hit is never a hash collision;
the caller checks the colour to move on the node it points to.  Entries are stamped with
the table's generation: clearing the table is one increment, not a pass over memory.  In
a shared-tree search each entry is taken with a compare-and-swap on its stamp, and an
entry another thread holds is treated as a miss (for a probe) or left alone (for a store):
no thread ever waits.
"""
from libc.stdint cimport uint32_t, uint64_t

cdef enum:
    TABLE_NODES_PER_ENTRY = 8   # one entry per eight nodes of the pool: about one per
                                # expanded node, as children average more than eight
    TABLE_LOCKED = 0x80000000   # stamp bit: a thread is reading or writing the entry

cdef struct TableEntry:
    uint64_t P                  # the discs of the side to move
    uint64_t O
    uint32_t node               # the node whose children stand for the position
    uint32_t stamp              # the generation that wrote it (0: never written)

cdef struct NodeTable:
    TableEntry* entries         # NULL: no table
    uint64_t mask               # entries - 1 (a power of two)
    uint32_t generation

cdef int table_init(NodeTable* t, uint32_t max_nodes) noexcept nogil
cdef void table_free(NodeTable* t) noexcept nogil
cdef void table_clear(NodeTable* t) noexcept nogil
cdef uint32_t table_probe(NodeTable* t, uint64_t P, uint64_t O, bint shared) noexcept nogil
cdef void table_store(NodeTable* t, uint64_t P, uint64_t O, uint32_t node,
                      bint shared) noexcept nogil
