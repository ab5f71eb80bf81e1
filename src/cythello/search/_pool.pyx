# cython: language_level=3
"""Node pool implementation: allocation by capacity doubling up to a cap, and compaction
of one subtree to the front of the arena (tree reuse between moves)."""
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport uint32_t

cdef uint32_t INITIAL_CAPACITY = 1 << 14


cdef int pool_init(NodePool* pool, uint32_t max_nodes) noexcept nogil:
    """Allocate the first block and a zeroed root at index 0.  0 on success, -1 without memory."""
    cdef uint32_t cap = INITIAL_CAPACITY if INITIAL_CAPACITY < max_nodes else max_nodes
    if cap < 1:
        cap = 1
    pool.nodes = <Node*>malloc(cap * sizeof(Node))
    if pool.nodes == NULL:
        pool.size = pool.capacity = pool.max_nodes = 0
        return -1
    pool.capacity = cap
    pool.max_nodes = max_nodes
    pool.size = 1
    memset(&pool.nodes[0], 0, sizeof(Node))
    return 0


cdef void pool_free(NodePool* pool) noexcept nogil:
    free(pool.nodes)
    pool.nodes = NULL
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
        grown = <Node*>realloc(pool.nodes, <size_t>cap * sizeof(Node))
        if grown == NULL:
            pool.max_nodes = pool.capacity      # out of memory: behave as if capped here
            return 0
        pool.nodes = grown
        pool.capacity = cap
    memset(&pool.nodes[first], 0, n * sizeof(Node))
    pool.size = first + n
    return first


cdef int pool_keep_subtree(NodePool* pool, uint32_t new_root) noexcept nogil:
    """Make the subtree under ``new_root`` the whole tree, rooted at index 0, keeping every
    statistic; the rest returns to the pool.  Breadth-first copy, so each sibling block stays
    consecutive.  0 on success, -1 without memory (the pool is then unchanged)."""
    cdef Node* old = pool.nodes
    cdef Node* fresh = <Node*>malloc(pool.capacity * sizeof(Node))
    cdef uint32_t* origin = <uint32_t*>malloc(pool.capacity * sizeof(uint32_t))
    cdef uint32_t head = 0, size = 1, k, j, src
    if fresh == NULL or origin == NULL:
        free(fresh)
        free(origin)
        return -1
    fresh[0] = old[new_root]
    origin[0] = new_root
    while head < size:
        src = origin[head]
        if old[src].flags & FLAG_EXPANDED:
            k = old[src].num_children
            fresh[head].first_child = size
            for j in range(k):
                fresh[size + j] = old[old[src].first_child + j]
                origin[size + j] = old[src].first_child + j
            size += k
        head += 1
    free(origin)
    free(old)
    pool.nodes = fresh
    pool.size = size
    return 0
