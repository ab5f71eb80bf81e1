# cython: language_level=3
"""A shared-tree thread's batch, for both kinds of tree (the UCT search, ``uct/_tree.pyx``,
and PUCT, ``puct/_forest.pyx``): the visits and values of nodes that one thread has not yet
added to the tree, in an open-addressing table by node index.

Threads whose paths run through the same nodes would pass those nodes' cache lines back
and forth if each of them wrote every update at once; batched, a thread adds them every
so many iterations (its ``_flush``).  Selection can count the thread's own batch: an
entry's ``children`` marks which of its node's children have entries too, so only those
are looked up."""
from libc.stdint cimport uint16_t, uint32_t, uint64_t

cdef enum:
    BATCH_BITS = 11
    BATCH_SLOTS = 1 << BATCH_BITS    # 3/4 usable, so that a free slot ends every probe
    BATCH_USABLE = BATCH_SLOTS * 3 // 4


cdef struct Pending:
    # A node's visits and rewards that one thread has not yet added to the tree.
    uint32_t node            # the node's index + 1 (0: a free slot)
    uint32_t visits
    double reward
    uint64_t children        # bit k: its child first_child + k has an entry too


cdef struct Batch:
    uint32_t used
    uint16_t order[BATCH_SLOTS]    # the used slots, in the order taken
    Pending slots[BATCH_SLOTS]


cdef inline Pending* batch_slot(Batch* batch, uint32_t idx) noexcept nogil:
    """The slot of node ``idx`` in the batch: its own, or the free one it would take
    (linear probing; the table is never full, see pending_take)."""
    cdef uint32_t h = (idx * <uint32_t>2654435761U) >> (32 - BATCH_BITS)
    while batch.slots[h].node != 0 and batch.slots[h].node != idx + 1:
        h = (h + 1) & (BATCH_SLOTS - 1)
    return &batch.slots[h]


cdef inline Pending* pending_find(Batch* batch, uint32_t idx) noexcept nogil:
    """The batch's pending updates of node ``idx``, NULL if it has none."""
    cdef Pending* p = batch_slot(batch, idx)
    return p if p.node == idx + 1 else NULL


cdef inline Pending* pending_take(Batch* batch, uint32_t idx) noexcept nogil:
    """The batch's pending updates of node ``idx``, a new entry if it had none (zero: a
    batch starts zeroed and its flush zeroes what it adds; NULL: the table is three
    quarters full)."""
    cdef Pending* p = batch_slot(batch, idx)
    if p.node == idx + 1:
        return p
    if batch.used >= BATCH_USABLE:
        return NULL
    p.node = idx + 1
    batch.order[batch.used] = <uint16_t>(p - batch.slots)
    batch.used += 1
    return p
