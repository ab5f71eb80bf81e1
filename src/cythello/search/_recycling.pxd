# cython: language_level=3
"""What the recyclings of the two kinds of tree share (the UCT node pool, ``uct/_pool.pyx``,
and the PUCT trees, ``puct/_forest.pyx``): choosing, from one pass's histogram, the least power
of two of visits whose nodes keep their children within a target number of nodes."""
from libc.stdint cimport uint32_t, uint64_t


cdef inline int visit_bucket(uint32_t visits) noexcept nogil:
    """floor(log2(visits)), 0 for 0 or 1 visit: where a node's children are counted."""
    cdef int b = 0
    while visits > 1:
        visits >>= 1
        b += 1
    return b


cdef inline int lowest_fitting_bucket(const uint64_t* children, uint64_t kept,
                                      uint64_t target) noexcept nogil:
    """The lowest bucket b such that ``kept`` nodes (kept anyway) and the children counted
    in ``children[b:33]`` number ``target`` at most: keeping the children of the nodes with
    2**b visits or more fits (a child has no more visits than its parent, so those are
    what a threshold keeps).  32 when not even bucket 31's children fit."""
    cdef int b = 32
    while b > 0 and kept + children[b - 1] <= target:
        b -= 1
        kept += children[b]
    return b
