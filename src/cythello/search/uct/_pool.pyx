# cython: language_level=3
"""Node pool implementation: allocation by capacity doubling up to a cap, and compaction
of one subtree to the front of the arena (tree reuse between moves)."""
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport uint32_t, uint64_t
from cythello.search._recycling cimport visit_bucket, lowest_fitting_bucket

from cythello.core._platform cimport cy_atomic_cas32, cy_popcount

cdef uint32_t INITIAL_CAPACITY = 1 << 14

# Memory per node, for budgets in bytes: the node, and RAVE's statistics beside it when on.
NODE_BYTES = sizeof(Node)
AMAF_BYTES_PER_NODE = sizeof(Amaf)


cdef int pool_init(NodePool* pool, uint32_t max_nodes, bint amaf) noexcept nogil:
    """Allocate the first block and a zeroed root at index 0, with AMAF statistics beside
    the nodes if ``amaf``.  0 on success, -1 without memory."""
    cdef uint32_t cap = INITIAL_CAPACITY if INITIAL_CAPACITY < max_nodes else max_nodes
    if cap < 1:
        cap = 1
    pool.nodes = <Node*>malloc(cap * sizeof(Node))
    pool.amaf = <Amaf*>calloc(cap, sizeof(Amaf)) if amaf else NULL
    if pool.nodes == NULL or amaf and pool.amaf == NULL:
        pool_free(pool)
        pool.max_nodes = 0
        return -1
    pool.capacity = cap
    pool.max_nodes = max_nodes
    pool.size = 1
    memset(&pool.nodes[0], 0, sizeof(Node))
    return 0


cdef void pool_free(NodePool* pool) noexcept nogil:
    free(pool.nodes)
    free(pool.amaf)
    pool.nodes = NULL
    pool.amaf = NULL
    pool.size = pool.capacity = 0


cdef uint32_t pool_alloc(NodePool* pool, uint32_t n) noexcept nogil:
    """Index of ``n`` fresh consecutive zeroed nodes, or 0 when the cap (or the machine's
    memory) is reached.  Growing may move the arena: re-derive pointers after a call."""
    cdef uint32_t first = pool.size, cap
    cdef Node* grown
    if n == 0 or <unsigned long long>first + n > pool.max_nodes:
        return 0
    if first + n > pool.capacity:
        cap = pool.capacity
        while cap < first + n:
            cap = cap * 2 if cap <= pool.max_nodes // 2 else pool.max_nodes
        if _grow(pool, cap) != 0:
            pool.max_nodes = pool.capacity      # out of memory: behave as if capped here
            return 0
    _zero(pool, first, n)
    pool.size = first + n
    return first


cdef int _grow(NodePool* pool, uint32_t cap) noexcept nogil:
    """Reallocate the arena (and the AMAF statistics) for ``cap`` nodes.  0 on success, -1
    without memory (what was moved stays valid)."""
    cdef Node* grown = <Node*>realloc(pool.nodes, <size_t>cap * sizeof(Node))
    cdef Amaf* amaf
    if grown == NULL:
        return -1
    pool.nodes = grown
    if pool.amaf != NULL:
        amaf = <Amaf*>realloc(pool.amaf, <size_t>cap * sizeof(Amaf))
        if amaf == NULL:
            return -1                           # (the larger node block is harmless)
        pool.amaf = amaf
    pool.capacity = cap
    return 0


cdef inline void _zero(NodePool* pool, uint32_t first, uint32_t n) noexcept nogil:
    memset(&pool.nodes[first], 0, n * sizeof(Node))
    if pool.amaf != NULL:
        memset(&pool.amaf[first], 0, n * sizeof(Amaf))


cdef int pool_reserve(NodePool* pool) noexcept nogil:
    """Grow the arena to its cap at once, so that it never moves while several threads
    search it (untouched pages cost no memory on most systems).  0 on success, -1
    without memory (the pool is then unchanged)."""
    if pool.capacity >= pool.max_nodes:
        return 0
    return _grow(pool, pool.max_nodes)


cdef uint32_t pool_alloc_shared(NodePool* pool, uint32_t* size, uint32_t n) noexcept nogil:
    """``pool_alloc`` for a search shared by threads: the arena was reserved whole (it never
    moves), and a compare-and-swap on ``size`` (the pool's size while the threads run, kept
    by the caller away from the cache line of ``pool.nodes``, which every thread reads all
    the time) hands each thread its own block.  0 when full."""
    cdef uint32_t first
    while True:
        first = size[0]
        if n == 0 or <unsigned long long>first + n > pool.capacity:
            return 0
        if cy_atomic_cas32(size, first, first + n):
            _zero(pool, first, n)
            return first


cdef int pool_keep_subtree(NodePool* pool, uint32_t new_root) noexcept nogil:
    """Make the subtree under ``new_root`` the whole tree, rooted at index 0, keeping every
    statistic; the rest returns to the pool (tree reuse).  0 on success, -1 without memory
    (the pool is then unchanged)."""
    return pool_compact(pool, new_root, 0)


cdef int pool_compact(NodePool* pool, uint32_t new_root, uint32_t min_visits) noexcept nogil:
    """Make the subtree under ``new_root`` the whole tree, rooted at index 0, keeping only
    the children of nodes with ``min_visits`` visits or more (and the new root's): the
    other nodes become leaves again, with their own statistics and backed-up value, and
    are expanded anew when the search comes back to them.  0 on success, -1 without
    memory (the pool is then unchanged).

    Compacted in place, so neither tree reuse nor recycling ever needs a second arena (a
    memory budget stays a hard bound): the kept nodes are marked, then each moves down to
    1 + its rank among the marked nodes, in index order, which never overwrites a node
    still to be moved (the old root, index 0, is never marked).  Sibling blocks stay
    consecutive and in order.  With transpositions a block of children may have several
    parents (the tree is a DAG); it is kept once, and every kept parent keeps it.  The
    extra memory is a bitmap and a rank per 64 nodes (3 bytes per 16 nodes)."""
    cdef Node* nodes = pool.nodes
    cdef uint32_t size = pool.size, words = (size + 63) >> 6, i, j, w, kept = 0
    cdef uint64_t* mark = <uint64_t*>calloc(words, sizeof(uint64_t))
    cdef uint32_t* rank = <uint32_t*>malloc(words * sizeof(uint32_t))
    cdef Node root
    if mark == NULL or rank == NULL:
        free(mark)
        free(rank)
        return -1
    _mark_below(nodes, mark, new_root, min_visits)
    for w in range(words):
        rank[w] = kept
        kept += cy_popcount(mark[w])
    root = nodes[new_root]
    for i in range(1, size):
        if mark[i >> 6] >> (i & 63) & 1:
            j = 1 + _rank(mark, rank, i)
            nodes[j] = nodes[i]
            if pool.amaf != NULL:
                pool.amaf[j] = pool.amaf[i]
            if nodes[j].flags & FLAG_EXPANDED:
                _relink(&nodes[j], mark, rank)
    nodes[0] = root
    if pool.amaf != NULL:
        memset(&pool.amaf[0], 0, sizeof(Amaf))   # the root's own are never read
    if root.flags & FLAG_EXPANDED:
        _relink(&nodes[0], mark, rank)
    pool.size = 1 + kept
    free(mark)
    free(rank)
    return 0


cdef inline void _relink(Node* node, const uint64_t* mark, const uint32_t* rank) noexcept nogil:
    """Point a moved node at its children's new place, or make it a leaf again if they
    were dropped."""
    cdef uint32_t first = node.first_child
    if mark[first >> 6] >> (first & 63) & 1:
        node.first_child = 1 + _rank(mark, rank, first)
    else:
        node.flags &= ~(FLAG_EXPANDED | FLAG_EXPANDING)
        node.first_child = 0
        node.num_children = 0


cdef void _mark_below(Node* nodes, uint64_t* mark, uint32_t idx,
                      uint32_t min_visits) noexcept nogil:
    """Mark the children of node ``idx`` and, below each with ``min_visits`` visits or
    more, its own, each block of children once.  Recursive: the depth is at most the
    game's length."""
    cdef uint32_t first = nodes[idx].first_child, c
    if not nodes[idx].flags & FLAG_EXPANDED or mark[first >> 6] >> (first & 63) & 1:
        return
    for c in range(first, first + nodes[idx].num_children):
        mark[c >> 6] |= (<uint64_t>1) << (c & 63)
    for c in range(first, first + nodes[idx].num_children):
        if nodes[c].visits >= min_visits:
            _mark_below(nodes, mark, c, min_visits)


cdef uint32_t pool_recycle_threshold(NodePool* pool, uint32_t target) noexcept nogil:
    """The least power of two ``t`` such that keeping only the children of nodes with
    ``t`` visits or more (see :func:`pool_compact`) keeps at most ``target`` nodes; 0 when
    even the highest keeps more.  One pass over the pool: the children of the nodes with
    ``v`` visits are counted in the bucket of floor(log2(v)); a child has no more visits
    than its parent, so what a threshold keeps is what the buckets from its own up hold
    (an estimate on a DAG, where a block counts once per parent)."""
    cdef uint64_t counts[33]
    cdef uint32_t i
    cdef int b
    memset(counts, 0, sizeof(counts))
    for i in range(pool.size):
        if pool.nodes[i].flags & FLAG_EXPANDED:
            counts[visit_bucket(pool.nodes[i].visits)] += pool.nodes[i].num_children
    b = lowest_fitting_bucket(counts, 1, target)      # the root is kept anyway
    return 0 if b == 32 else (<uint32_t>1) << b


cdef inline uint32_t _rank(const uint64_t* mark, const uint32_t* rank, uint32_t i) noexcept nogil:
    """How many marked nodes come before node ``i``."""
    return rank[i >> 6] + cy_popcount(mark[i >> 6] & (((<uint64_t>1) << (i & 63)) - 1))
