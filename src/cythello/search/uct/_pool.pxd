# cython: language_level=3
"""The node pool: one growable arena of plain C structs for a search tree.

Children of a node sit next to each other (``first_child`` .. ``first_child +
num_children - 1``) and are referred to by index, never by pointer, so the arena can move
when it grows.  Index 0 is always the root.  With transpositions one block of children
may have several parents (the tree is then a DAG).
"""
from libc.stdint cimport uint8_t, int16_t, uint32_t

cdef enum:
    FLAG_WHITE_MOVED = 1   # the player whose move led into this node is white
    FLAG_EXPANDED = 2      # children allocated (and, in a shared search, published)
    FLAG_TERMINAL = 4      # the game is over here
    FLAG_EXPANDING = 8     # a thread of a shared search claimed the expansion

cdef enum:
    UNPROVEN = 0
    PROVEN_WIN = 1         # results are for the player whose move led into the node
    PROVEN_LOSS = 2
    PROVEN_DRAW = 3

cdef struct Node:
    double reward          # summed rewards, for the player whose move led here
    uint32_t visits
    uint32_t first_child   # valid when FLAG_EXPANDED is set
    int16_t value          # the evaluation's estimate of the final disc difference for the
                           # player whose move led here, minimax-backed-up through the
                           # expanded tree (1/EVAL_SCALE disc; 0 without an evaluation)
    uint8_t move           # square 0-63, or 64 for a pass
    uint8_t num_children
    uint8_t proven
    uint8_t flags

cdef struct Amaf:
    # A node's all-moves-as-first statistics (RAVE): the simulations through its parent in
    # which its move was played later by the same player, and their summed rewards for him
    # (a double, as the node's own: a float stops adding halves past 2**24).
    double reward
    uint32_t visits

cdef struct NodePool:
    Node* nodes
    Amaf* amaf             # beside ``nodes``, index for index; NULL unless RAVE is on
    uint32_t size          # nodes in use
    uint32_t capacity      # nodes allocated
    uint32_t max_nodes     # the cap: the pool never grows past it

cdef int pool_init(NodePool* pool, uint32_t max_nodes, bint amaf) noexcept nogil
cdef void pool_free(NodePool* pool) noexcept nogil
cdef uint32_t pool_alloc(NodePool* pool, uint32_t n) noexcept nogil
cdef uint32_t pool_alloc_shared(NodePool* pool, uint32_t* size, uint32_t n) noexcept nogil
cdef int pool_reserve(NodePool* pool) noexcept nogil
cdef int pool_keep_subtree(NodePool* pool, uint32_t new_root) noexcept nogil
cdef int pool_compact(NodePool* pool, uint32_t new_root, uint32_t min_visits) noexcept nogil
cdef uint32_t pool_recycle_threshold(NodePool* pool, uint32_t target) noexcept nogil
