# cython: language_level=3
"""Monte Carlo Tree Search in typed C: selection (UCB1), expansion, evaluation or playout,
and backpropagation, with MCTS-Solver proofs, over the node pool and the rules core.

The search state is a C struct (``Search``) and the search is plain C functions over it,
so that several C threads can search one tree: with ``threads`` > 1 they share the tree
(tree parallelism), each taking a virtual loss on the nodes of its path so that the others
spread out, updating statistics atomically and claiming each expansion with an atomic flag.
The arena is then reserved whole before the search, so it never moves under a thread.
With one thread nothing is atomic and the arena grows as needed.  ``run`` releases the GIL
for the whole search; several trees can also search at once on Python threads (root
parallelism).

Options: with transpositions (``_transpositions.pxd``) a node whose position was already
expanded elsewhere takes that node's children, so the tree becomes a DAG (statistics stay
on the edges into a position, the children below it are shared); with RAVE the pool keeps
all-moves-as-first statistics beside the nodes.

Perspective: every node credits results to the player whose move led into it (a flag in
the node), never by depth parity, so passes need no special case.  Rewards are 1 for a win,
0.5 for a draw and 0 for a loss, optionally blended with the final disc difference.
"""
from libc.math cimport expf, logf, powf, sqrtf
from libc.stdlib cimport calloc, free
from libc.string cimport memset
from libc.stdint cimport int16_t, int64_t, uint8_t, uint16_t, uint32_t, uint64_t

from cythello.core._rules cimport (
    Position, play, legal_moves, count, first_square, final_disc_difference, PASS_MOVE,
    corner_danger, next_position,
)
from cythello.core._rng cimport Rng, rng_seed, rng_next, rng_below
from cythello.core._platform cimport (
    cy_load_flag, cy_store_flag, cy_monotonic, cy_atomic_add32, cy_atomic_add64,
    cy_atomic_or8, cy_atomic_and8, cy_atomic_load8, cy_atomic_add_double, cy_thread,
    cy_thread_create, cy_thread_join,
)
from cythello.search.uct._rollout cimport playout
from cythello.search._batch cimport Batch, Pending, pending_find, pending_take
from cythello.search.uct._transpositions cimport (
    NodeTable, table_init, table_free, table_clear,
    table_probe, table_store,
)
from cythello.search.uct._pool cimport (
    Node, NodePool, Amaf, pool_init, pool_free, pool_alloc, pool_alloc_shared, pool_reserve,
    pool_keep_subtree, pool_compact, pool_recycle_threshold, FLAG_WHITE_MOVED, FLAG_EXPANDED,
    FLAG_TERMINAL, FLAG_EXPANDING, UNPROVEN, PROVEN_WIN, PROVEN_LOSS, PROVEN_DRAW,
)
from cythello.core._board cimport Board
from cythello.eval._layout cimport EVAL_SCALE, SEARCH_INF, eval_fn, search_fn
from cythello.eval._patterns cimport PatternWeights, evaluator_function, searcher_function
from cythello.errors import PlayerBusyError
from cythello.search.uct._pool import AMAF_BYTES_PER_NODE, NODE_BYTES
from cythello.search.uct._rollout import ROLLOUT_POLICIES, random_seed
from cythello.search.uct._transpositions import TABLE_BYTES_PER_NODE
from cythello.search.uct.node_stats import ChildStats, NodeSums
from cythello.search.settings import check_int, check_number
from cythello.search.uct.settings import SearchSettings
from cythello.search.states import Proof, StopReason


cdef enum:
    MAX_PATH = 160           # 60 placements + passes, with room to spare
    CLOCK_EVERY = 128        # iterations between clock reads (~0.5 ms at full speed)
    BUDGET_CHUNK = 16        # iterations a shared-search thread takes from the budget at once
    ALLOC_CHUNK = 1024       # nodes a shared-search thread takes from the arena at once
    FLUSH_EVERY = 64         # iterations between a shared-search thread's batched updates
    HOT_PER_THREAD = 128     # visits per thread from which a node is hot (updates batched)
    SQRT_TABLE = 4096        # visit counts whose UCB square roots come from tables
    VALUE_LIMIT = 64 * EVAL_SCALE        # node values are clamped to a whole board
    WIN_SHIFT = 3                        # the win-probability table has one entry per 8 units
    WIN_TABLE = (2 * VALUE_LIMIT >> WIN_SHIFT) + 1

# A node counts its visits in 32 bits: a search stops (reason "iterations") before its root
# would overflow, some 4 billion iterations in (hours of pondering or analysis); the margin
# covers the visits other threads hold in their batches.
cdef uint32_t MAX_ROOT_VISITS = 0xFFFFFFFF - (1 << 24)
cdef uint32_t root_visit_limit = MAX_ROOT_VISITS


def _limit_root_visits(limit=None):
    """For tests: stop searches at ``limit`` root visits instead of near 2**32 (None: the
    real bound again)."""
    global root_visit_limit
    root_visit_limit = MAX_ROOT_VISITS if limit is None else check_int(
        "limit", limit, 1, MAX_ROOT_VISITS)


# The shared search's batching (see Batch): constants of the search, variables only so that a
# thread-scaling benchmark can sweep them on a many-core machine without a rebuild.
cdef uint32_t hot_per_thread = HOT_PER_THREAD
cdef uint32_t flush_every = FLUSH_EVERY
cdef bint see_own = False


def _shared_tuning(hot=None, flush=None, own=None):
    """For benchmarks: the visits per thread from which a shared search batches a node's
    updates, the iterations between a thread's flushes, and whether selection sees the
    thread's own batched updates (None: the defaults again).  Returns the values now in
    force."""
    global hot_per_thread, flush_every, see_own
    hot_per_thread = HOT_PER_THREAD if hot is None else check_int("hot", hot, 1, 1 << 20)
    flush_every = FLUSH_EVERY if flush is None else check_int("flush", flush, 1, 1 << 20)
    see_own = False if own is None else bool(own)
    return hot_per_thread, flush_every, bool(see_own)


# The share of a full pool that recycling keeps (the most visited nodes' children).
cdef double RECYCLE_KEEP = 0.5

# Why a search stopped.
cdef enum:
    STOP_ITERATIONS = 0
    STOP_TIME = 1
    STOP_NODES = 2
    STOP_SIGNAL = 3
    STOP_SOLVED = 4
    STOP_DECIDED = 5
    STOP_NONE = 6            # a shared search's "no thread has stopped it yet"

# The C codes above (and _pool.pxd's proofs) as the Python states, by code.
STOP_REASONS = (StopReason.ITERATIONS, StopReason.TIME, StopReason.NODES, StopReason.STOPPED,
                StopReason.SOLVED, StopReason.DECIDED)
PROOF_NAMES = (None, Proof.WIN, Proof.LOSS, Proof.DRAW)

# UCB1's square roots for small visit counts, which most selections see (the logarithm
# alone was a tenth of an evaluated search's time); the same values as computed.
cdef float INV_SQRT[SQRT_TABLE]
cdef float SQRT_LOG[SQRT_TABLE]
SQRT_LOG[0] = 0.0
for _n in range(1, SQRT_TABLE):
    INV_SQRT[_n] = 1.0 / sqrtf(<float>_n)
    SQRT_LOG[_n] = sqrtf(logf(<float>_n))


cdef inline float inv_sqrt(uint32_t n) noexcept nogil:
    return INV_SQRT[n] if n < SQRT_TABLE else 1.0 / sqrtf(<float>n)


cdef inline float sqrt_log(uint32_t n) noexcept nogil:
    """sqrt(log(n)), 0 for n = 0."""
    return SQRT_LOG[n] if n < SQRT_TABLE else sqrtf(logf(<float>n))


# Progressive bias without an evaluation: a prior in [0, 1] for each move, from Othello
# square knowledge -- corners best, edges good, X- and C-squares next to an empty corner
# bad.  Its weight fades as 1 / (n + 1) with the child's visits.
cdef float PRIOR[65]


cdef void _init_priors() noexcept:
    cdef int sq, r, c
    for sq in range(64):
        r = sq // 8
        c = sq % 8
        if (r == 0 or r == 7) and (c == 0 or c == 7):
            PRIOR[sq] = 1.0
        elif r == 0 or r == 7 or c == 0 or c == 7:
            PRIOR[sq] = 0.4
        elif 2 <= r <= 5 and 2 <= c <= 5:
            PRIOR[sq] = 0.3
        else:
            PRIOR[sq] = 0.2
    PRIOR[PASS_MOVE] = 0.3

_init_priors()


cdef inline float prior(int sq, uint64_t danger) noexcept nogil:
    """The move's prior; 0 on ``danger`` (X- and C-squares of empty corners, see
    :func:`corner_danger`, computed once per node by the caller)."""
    if sq < 64 and (danger >> sq) & 1:
        return 0.0
    return PRIOR[sq]


cdef inline int16_t _clamp(int value) noexcept nogil:
    return <int16_t>(VALUE_LIMIT if value > VALUE_LIMIT else
                     -VALUE_LIMIT if value < -VALUE_LIMIT else value)


# -- the search state ---------------------------------------------------------------------------

cdef struct Local:
    # A thread's own part of a search: what its iterations did to the tree (counted
    # without atomics) and, in a shared search, the block of the arena it allocates from
    # (one atomic step per ALLOC_CHUNK nodes instead of one per expansion).
    uint64_t expansions       # blocks of children created
    uint64_t links            # nodes given the children of their transposition instead
    uint32_t chunk_next       # the thread's free nodes: chunk_next .. chunk_end - 1
    uint32_t chunk_end


cdef struct Search:
    NodePool pool
    Position root_pos
    float exploration
    float root_exploration  # 0: UCB1's term at the root too
    int policy
    double disc_weight
    float bias                # progressive-bias weight (0: plain UCB1)
    uint32_t expand_after
    # The evaluation (NULL: none): children are valued at expansion and the values backed
    # up by minimax (implicit minimax backups, Lanctot et al. 2014).
    const int16_t* eval_weights
    eval_fn evaluate
    search_fn search          # for eval_depth >= 2
    float minimax_weight      # alpha: weight of the minimax value in a child's Q
    float leaf_eval           # lambda: weight of the evaluation in a leaf's value
    int eval_depth            # a child's value: the evaluation 1 ply after the move, or
                              # a search eval_depth plies from the parent (MCTS-minimax)
    bint early_stop           # stop once the best root move is decided
    float widening            # progressive widening: consider 1 + w * n**0.4 children
    bint transpositions       # positions reached by several move orders share children
    float rave                # RAVE's equivalence parameter k (0: off): a child's mean is
                              # blended with its AMAF mean by beta = sqrt(k / (3 n + k))
    bint recycle              # a full pool drops its least visited subtrees (see _recycle)
    uint64_t recycled         # times it did
    NodeTable table
    Local local               # of the single-thread runs; the shared ones add theirs
    float win_prob[WIN_TABLE] # node value -> win probability, logistic in discs
    int stop_flag
    bint shared               # several threads search the tree now: atomics, virtual loss
    uint32_t hot_visits       # from these visits on, a node's updates are batched (see Batch)
    int halt                  # set once any thread meets a stop condition
    int halt_reason
    double started
    # A shared search's counters, each on a cache line of its own: the settings above are
    # read by every iteration of every thread and must not bounce with their updates.
    char _pad0[64]
    int64_t budget            # iterations still to hand out, taken BUDGET_CHUNK at a time
    char _pad1[64]
    uint32_t shared_size      # the pool's size while threads share it
    char _pad2[64]


# A shared-search thread's Batch (_batch.pxd) holds its updates of the hot nodes
# (``Search.hot_visits`` or more) not yet added to the tree.  The threads'
# paths run through the same nodes at the top of the tree, and atomic updates there on
# every iteration make the cores pass those nodes' cache lines back and forth (the
# CHANGELOG has the measurements).  Batched, each thread writes them once every
# FLUSH_EVERY iterations.  Its own pending updates and the others' are then unseen by
# selection, like visits in flight; so only nodes visited often (HOT_PER_THREAD) are
# batched: the less visited keep their immediate virtual loss, or the threads pile into
# the same subtrees (a low threshold lost strength at equal iterations in matches).
# Selection can count the thread's own batch (``see_own``), which removes that loss
# for lower thresholds; at 2 threads its more spread-out paths cost 6-12 % of the
# iterations (the lookups 1-2 %), and at 16 threads it bought nothing measurable: off
# (docs/results/benchmarks.md, the 16-core runs).


cdef inline double _reward(Search* s, int mover_diff) noexcept nogil:
    cdef double r = 1.0 if mover_diff > 0 else 0.0 if mover_diff < 0 else 0.5
    if s.disc_weight != 0.0:
        r = (1.0 - s.disc_weight) * r + s.disc_weight * (0.5 + mover_diff / 128.0)
    return r


cdef inline float _win(Search* s, int value) noexcept nogil:
    """The win probability of a node value (for the player whose move led there)."""
    return s.win_prob[(value + VALUE_LIMIT) >> WIN_SHIFT]


cdef inline uint8_t _flags(Search* s, Node* n) noexcept nogil:
    return cy_atomic_load8(&n.flags) if s.shared else n.flags


cdef inline void _set_flag(Search* s, Node* n, uint8_t flag) noexcept nogil:
    if s.shared:
        cy_atomic_or8(&n.flags, flag)
    else:
        n.flags |= flag


cdef uint32_t _select(Search* s, uint32_t parent, uint64_t danger, Batch* batch,
                      Pending* own) noexcept nogil:
    """UCB1 (plus progressive bias) over the children of an expanded node; unvisited
    children first, in the order set at expansion; children proven lost for the chooser
    never.  With an evaluation, a child's mean reward is blended with the win probability
    of its minimax value, and the bias term uses that probability as the prior.  In a
    shared search, the virtual losses of other threads count as visits lost, and (with
    ``see_own``) a thread's own batched updates of hot nodes as if they were in the tree:
    else it would choose the same child of a hot node until its next flush.  ``own`` is
    the parent's entry in the thread's ``batch`` (NULL: none), which says which of its
    children have entries too."""
    cdef Node* nodes = s.pool.nodes
    cdef uint32_t first = nodes[parent].first_child, i, best = first, n
    cdef uint32_t visits = nodes[parent].visits
    cdef double reward
    cdef uint64_t mine = 0           # the children with pending updates of this thread
    cdef Pending* pending
    cdef float explore
    cdef float score, best_score = -1e30, q, p
    cdef bint evaluated = s.evaluate != NULL
    cdef uint32_t width = nodes[parent].num_children
    cdef Node* c
    cdef Amaf* amaf
    if own != NULL and see_own:
        # Only the children the thread took since its flush have entries: one lookup each.
        visits += own.visits
        mine = own.children
    # The exploration term's factor of 1 / sqrt(n), from the visits counted above.
    if parent == 0 and s.root_exploration != 0:
        explore = s.root_exploration * sqrtf(sqrtf(<float>visits))
    else:
        explore = s.exploration * sqrt_log(visits)
    if s.widening != 0:
        # Progressive widening: only the best-ordered children, more as visits grow.
        width = min(width, 1 + <uint32_t>(s.widening * powf(<float>visits, 0.4)))
    for i in range(first, first + width):
        c = &nodes[i]
        if c.proven == PROVEN_LOSS:
            continue
        n = c.visits
        reward = c.reward
        if mine != 0 and i - first < 64 and mine >> (i - first) & 1:
            pending = pending_find(batch, i)
            if pending != NULL:
                n += pending.visits
                reward += pending.reward
        if n == 0:
            return i
        q = <float>(reward / n)
        if s.rave != 0:
            amaf = &s.pool.amaf[i]
            if amaf.visits:
                q += sqrtf(s.rave / (3.0 * n + s.rave)) * (<float>(amaf.reward / amaf.visits) - q)
        if evaluated:
            p = _win(s, c.value)
            q += s.minimax_weight * (p - q)
        else:
            p = prior(c.move, danger)
        score = q + explore * inv_sqrt(n)
        if s.bias != 0:
            score += s.bias * p / <float>(n + 1)
        if score > best_score:
            best_score = score
            best = i
    return best


cdef inline bint _before(Search* s, Node* a, Node* b, uint64_t danger) noexcept nogil:
    """Whether unvisited child ``a`` should be tried before ``b``."""
    if s.evaluate != NULL:
        return a.value > b.value
    return prior(a.move, danger) > prior(b.move, danger)


cdef uint32_t _alloc(Search* s, Local* local, uint32_t k) noexcept nogil:
    """``k`` fresh zeroed nodes (index 0: the pool is full).  A shared search's thread
    takes them from its own chunk of the arena, a new chunk when that one is spent (its
    rest stays unused), and near the cap the exact count."""
    cdef uint32_t first
    if not s.shared:
        return pool_alloc(&s.pool, k)
    if local.chunk_next + k > local.chunk_end:
        first = pool_alloc_shared(&s.pool, &s.shared_size, ALLOC_CHUNK)
        if first == 0:
            return pool_alloc_shared(&s.pool, &s.shared_size, k)
        local.chunk_next = first
        local.chunk_end = first + ALLOC_CHUNK
    first = local.chunk_next
    local.chunk_next += k
    return first


cdef uint32_t _expand(Search* s, Rng* rng, Local* local, uint32_t idx, Position pos,
                      uint64_t moves, uint64_t danger) noexcept nogil:
    """Allocate the children of ``idx`` (its placements, or one pass) in random order, then,
    with an evaluation, each valued and sorted best first (else, under progressive bias,
    sorted by the square prior), and publish them.  0 when the pool is full."""
    cdef uint32_t k = count(moves) if moves else 1
    cdef uint32_t first, j, r
    cdef Node* nodes
    cdef Node t
    cdef uint8_t mover_flag
    cdef Position child
    cdef unsigned long long visited = 0      # eval_depth's searches' count, not reported
    first = _alloc(s, local, k)
    if first == 0:
        return 0
    nodes = s.pool.nodes
    # The children's mover is the side to move here: the opposite of this node's mover.
    mover_flag = (nodes[idx].flags & FLAG_WHITE_MOVED) ^ FLAG_WHITE_MOVED
    if moves == 0:
        nodes[first].move = PASS_MOVE
    else:
        j = 0
        while moves:
            nodes[first + j].move = first_square(moves)
            moves &= moves - 1
            j += 1
        for j in range(k - 1, 0, -1):           # Fisher-Yates: unvisited-first is random
            r = rng_below(rng, j + 1)
            t.move = nodes[first + j].move
            nodes[first + j].move = nodes[first + r].move
            nodes[first + r].move = t.move
    for j in range(k):
        nodes[first + j].flags = mover_flag
        if s.evaluate != NULL:
            # The child's position has the opponent to move: its value for the mover is
            # minus the evaluation there.
            if nodes[first + j].move == PASS_MOVE:
                child.P = pos.O
                child.O = pos.P
            else:
                child = next_position(pos.P, pos.O, nodes[first + j].move)
            if s.eval_depth <= 1:
                nodes[first + j].value = _clamp(-s.evaluate(s.eval_weights, child.P, child.O))
            else:
                nodes[first + j].value = _clamp(-s.search(
                    s.eval_weights, child.P, child.O, s.eval_depth - 1,
                    -SEARCH_INF, SEARCH_INF, &visited))
    if s.evaluate != NULL or s.bias != 0:     # stable insertion sort, best first
        for j in range(1, k):
            t = nodes[first + j]
            r = j
            while r > 0 and _before(s, &t, &nodes[first + r - 1], danger):
                nodes[first + r] = nodes[first + r - 1]
                r -= 1
            nodes[first + r] = t
    nodes[idx].first_child = first
    nodes[idx].num_children = k
    _set_flag(s, &nodes[idx], FLAG_EXPANDED)  # (release: the children are written)
    return first


cdef bint _link(Search* s, uint32_t idx, Position pos) noexcept nogil:
    """Give node ``idx`` the children of the node the table holds for its position, if
    any (same position, same player to move): the transposition then shares one set of
    statistics below it.  Its proof, if any, carries over."""
    cdef uint32_t other = table_probe(&s.table, pos.P, pos.O, s.shared)
    cdef Node* nodes = s.pool.nodes
    if other == 0 or (nodes[other].flags ^ nodes[idx].flags) & FLAG_WHITE_MOVED:
        return False
    # Stored only once expanded (and published): its block is complete.
    nodes[idx].first_child = nodes[other].first_child
    nodes[idx].num_children = nodes[other].num_children
    nodes[idx].proven = nodes[other].proven
    _set_flag(s, &nodes[idx], FLAG_EXPANDED)
    return True


cdef void _back_up_values(Search* s, uint32_t* path, int last) noexcept nogil:
    """Minimax the evaluation values from node path[last] up to the root: a node is worth
    minus its best child (for the player whose move led to it)."""
    cdef Node* nodes = s.pool.nodes
    cdef Node* n
    cdef uint32_t i
    cdef int level, best, v
    for level in range(last, -1, -1):
        n = &nodes[path[level]]
        if not _flags(s, n) & FLAG_EXPANDED:
            continue
        best = -VALUE_LIMIT
        for i in range(n.first_child, n.first_child + n.num_children):
            if nodes[i].value > best:
                best = nodes[i].value
        v = -best
        if v == n.value and level != last:
            return                               # nothing above changes either
        n.value = v


cdef void _propagate_proof(Search* s, uint32_t* path, int depth) noexcept nogil:
    """After path[depth-1] was proven: prove its ancestors where their children allow."""
    cdef Node* nodes = s.pool.nodes
    cdef Node* p
    cdef uint32_t i
    cdef int level
    cdef bint all_proven, any_draw, any_win
    for level in range(depth - 2, -1, -1):
        p = &nodes[path[level]]
        all_proven, any_draw, any_win = True, False, False
        for i in range(p.first_child, p.first_child + p.num_children):
            if nodes[i].proven == PROVEN_WIN:
                any_win = True
                break
            elif nodes[i].proven == UNPROVEN:
                all_proven = False
            elif nodes[i].proven == PROVEN_DRAW:
                any_draw = True
        if any_win:
            p.proven = PROVEN_LOSS        # the side to move here has a winning reply
        elif all_proven:
            p.proven = PROVEN_DRAW if any_draw else PROVEN_WIN
        else:
            return


cdef void _update_amaf(Search* s, uint32_t* path, int depth, uint64_t black_played,
                       uint64_t white_played, double black_reward) noexcept nogil:
    """RAVE's all-moves-as-first update, from the leaf up: at each node of the path, every
    child whose square its player took anywhere below (in the tree or the playout,
    ``*_played`` for the part below the leaf) shares the simulation's result for him."""
    cdef Node* nodes = s.pool.nodes
    cdef Amaf* amaf = s.pool.amaf
    cdef Node* parent
    cdef Node* chosen
    cdef uint32_t i
    cdef uint64_t mask
    cdef int k
    cdef bint white
    cdef double r
    for k in range(depth - 2, -1, -1):
        parent = &nodes[path[k]]
        chosen = &nodes[path[k + 1]]
        white = chosen.flags & FLAG_WHITE_MOVED       # the player choosing at ``parent``
        if chosen.move != PASS_MOVE:
            if white:
                white_played |= (<uint64_t>1) << chosen.move
            else:
                black_played |= (<uint64_t>1) << chosen.move
        mask = white_played if white else black_played
        r = 1.0 - black_reward if white else black_reward
        for i in range(parent.first_child, parent.first_child + parent.num_children):
            if nodes[i].move != PASS_MOVE and mask >> nodes[i].move & 1:
                if s.shared:
                    cy_atomic_add_double(&amaf[i].reward, r)
                    cy_atomic_add32(&amaf[i].visits, 1)
                else:
                    amaf[i].reward += r
                    amaf[i].visits += 1


cdef inline Pending* _count_visit(Search* s, Batch* batch, Node* node,
                                  uint32_t idx) noexcept nogil:
    """Count a shared search's visit of a node on the way down (its virtual loss): in the
    thread's batch if the node is hot, else at once.  Returns the node's pending updates
    for the backup to add its reward to (NULL: the node is updated at once)."""
    cdef Pending* p = NULL
    if batch != NULL and node.visits >= s.hot_visits:
        p = pending_take(batch, idx)
    if p != NULL:
        p.visits += 1
    else:
        cy_atomic_add32(&node.visits, 1)
    return p


cdef int _iterate(Search* s, Rng* rng, Batch* batch, Local* local) noexcept nogil:
    """One iteration.  Returns -1 when it wanted to expand but the pool was full.  In a
    shared search with a ``batch``, the hot nodes' updates go there instead of to the
    tree."""
    cdef uint32_t path[MAX_PATH]
    cdef int depth = 1, status = 0, mover_diff, k
    cdef bint expanded = False
    cdef uint32_t idx = 0
    cdef uint64_t moves
    cdef Position pos = s.root_pos
    cdef Node* node = &s.pool.nodes[0]
    cdef Node* nodes
    cdef double mover_reward, black_reward, r
    cdef uint8_t flags
    cdef Pending* held[MAX_PATH]  # a shared search's batched updates of path[k] (or NULL)
    cdef uint64_t placed[2]       # squares played in the playout: by the side to move, other
    placed[0] = placed[1] = 0
    path[0] = 0
    if s.shared:
        # The virtual loss: a visit is counted on the way down and its reward at the
        # backup, so until then the other threads see the node as a lost visit.
        held[0] = _count_visit(s, batch, node, 0)
    while node.proven == UNPROVEN:
        flags = _flags(s, node)
        if flags & FLAG_EXPANDED:
            idx = _select(s, idx, corner_danger(~(pos.P | pos.O)) if s.bias != 0 else 0,
                          batch, held[depth - 1] if s.shared else NULL)
            node = &s.pool.nodes[idx]
            if s.shared:
                held[depth] = _count_visit(s, batch, node, idx)
                if see_own and held[depth] != NULL and held[depth - 1] != NULL:
                    k = idx - s.pool.nodes[path[depth - 1]].first_child
                    if k < 64:
                        held[depth - 1].children |= (<uint64_t>1) << k
            play(&pos, node.move)
            path[depth] = idx
            depth += 1
            continue
        moves = legal_moves(pos.P, pos.O)
        if moves == 0 and legal_moves(pos.O, pos.P) == 0:
            _set_flag(s, node, FLAG_TERMINAL)
            mover_diff = -final_disc_difference(pos.P, pos.O)
            node.proven = (PROVEN_WIN if mover_diff > 0 else
                           PROVEN_LOSS if mover_diff < 0 else PROVEN_DRAW)
            if s.evaluate != NULL:
                node.value = _clamp(mover_diff * EVAL_SCALE)
                _back_up_values(s, path, depth - 2)
            break
        if expanded or (depth > 1 and node.visits < s.expand_after + <uint32_t>s.shared):
            break
        if s.shared and cy_atomic_or8(&node.flags, FLAG_EXPANDING) & FLAG_EXPANDING:
            break                                # another thread expands it: a leaf here
        if s.transpositions and _link(s, idx, pos):
            local.links += 1
        elif _expand(s, rng, local, idx, pos, moves, corner_danger(~(pos.P | pos.O))) == 0:
            if s.shared:
                # Give the claim back: a later search, after tree reuse freed nodes, may
                # expand it (a claimed node is a leaf to every thread).
                cy_atomic_and8(&node.flags, <uint8_t>~FLAG_EXPANDING)
            status = -1
            break
        else:
            local.expansions += 1
            if s.transpositions:
                table_store(&s.table, pos.P, pos.O, idx, s.shared)
        if s.evaluate != NULL:
            _back_up_values(s, path, depth - 1)
        node = &s.pool.nodes[idx]          # the arena may have moved
        expanded = True
    if node.proven != UNPROVEN:
        # Proven here or before: on a DAG (or after a race between threads) a proof found
        # through one parent reaches the others when they next lead here.
        _propagate_proof(s, path, depth)
    # Value the leaf for the player whose move led to it: exactly when proven, else by a
    # playout, the evaluation, or a blend of the two.
    if node.proven == UNPROVEN:
        if s.leaf_eval >= 1.0:
            mover_reward = _win(s, node.value)
        else:
            mover_reward = _reward(s, -playout(pos.P, pos.O, s.policy, rng,
                                               placed if s.rave != 0 else NULL))
            if s.leaf_eval > 0.0:
                mover_reward += s.leaf_eval * (_win(s, node.value) - mover_reward)
    elif _flags(s, node) & FLAG_TERMINAL:
        mover_reward = _reward(s, -final_disc_difference(pos.P, pos.O))
    else:
        mover_reward = (1.0 if node.proven == PROVEN_WIN else
                        0.0 if node.proven == PROVEN_LOSS else 0.5)
    black_reward = 1.0 - mover_reward if node.flags & FLAG_WHITE_MOVED else mover_reward
    if s.rave != 0:
        # The side to move at the leaf is the one that did not move into it.
        if node.flags & FLAG_WHITE_MOVED:
            _update_amaf(s, path, depth, placed[0], placed[1], black_reward)
        else:
            _update_amaf(s, path, depth, placed[1], placed[0], black_reward)
    nodes = s.pool.nodes
    for k in range(depth):
        node = &nodes[path[k]]
        r = 1.0 - black_reward if node.flags & FLAG_WHITE_MOVED else black_reward
        if not s.shared:
            node.visits += 1
            node.reward += r
        elif held[k] != NULL:
            held[k].reward += r                      # its visit was counted on the way down
        else:
            cy_atomic_add_double(&node.reward, r)
    return status


cdef bint _decided(Search* s, uint64_t n, uint64_t max_iterations, double deadline,
                   double elapsed) noexcept nogil:
    """Whether the most visited root move stays the most visited whatever the rest of the
    budget does: even if every remaining iteration went to the runner-up."""
    cdef Node* nodes = s.pool.nodes
    cdef uint32_t i, first = nodes[0].first_child
    cdef double best = 0, second = 0, v, left = 1e300
    if not _flags(s, &nodes[0]) & FLAG_EXPANDED or nodes[0].num_children < 2:
        return False
    for i in range(first, first + nodes[0].num_children):
        v = nodes[i].visits
        if v > best:
            second = best
            best = v
        elif v > second:
            second = v
    if max_iterations != <uint64_t>0xFFFFFFFFFFFFFFFFULL:
        left = <double>(max_iterations - n)
    if deadline > 0 and elapsed > 0:
        v = (deadline - cy_monotonic()) * n / elapsed      # iterations the time allows
        if v < left:
            left = v
    return left < 1e300 and best - second > left


cdef int _check(Search* s, uint64_t n, uint64_t max_iterations, double deadline,
                double started, bint decide) noexcept nogil:
    """The stop condition met after ``n`` iterations of this run, or STOP_NONE.  The clock
    is read after the first iteration and then every CLOCK_EVERY: each run makes progress,
    however close its deadline.  With ``decide``, early stopping is checked then too (a
    shared search checks it itself, on the iterations of all its threads)."""
    cdef double now
    if s.pool.nodes[0].proven != UNPROVEN:
        return STOP_SOLVED
    if n >= max_iterations:
        return STOP_ITERATIONS
    if cy_load_flag(&s.stop_flag):
        return STOP_SIGNAL
    if n % CLOCK_EVERY == 1:
        # The root's counter is shared by the threads: read now and then, not every time.
        if s.pool.nodes[0].visits >= root_visit_limit:
            return STOP_ITERATIONS
        now = cy_monotonic() if deadline > 0 or decide else 0.0
        if deadline > 0 and now >= deadline:
            return STOP_TIME
        if decide and _decided(s, n, max_iterations, deadline, now - started):
            return STOP_DECIDED
    return STOP_NONE


cdef int _run(Search* s, Rng* rng, uint64_t max_iterations, double deadline,
              uint64_t* done) noexcept nogil:
    """Iterate until a limit: ``max_iterations``, the monotonic ``deadline`` (0 = none),
    the node cap, the stop flag, a solved root, or (with early stopping) a decided root."""
    cdef uint64_t n = 0
    cdef double started = cy_monotonic() if s.early_stop else 0.0
    cdef int reason
    while True:
        reason = _check(s, n, max_iterations, deadline, started, s.early_stop)
        if reason != STOP_NONE:
            done[0] = n
            return reason
        if _iterate(s, rng, NULL, &s.local) != 0:    # it still counted: it was backed up
            done[0] = n + 1
            return STOP_NODES
        n += 1


# -- the shared-tree search ---------------------------------------------------------------------

cdef struct Worker:
    Search* search
    Rng rng
    uint64_t max_iterations   # the whole run's
    double deadline
    int threads
    uint64_t done             # iterations this thread ran
    Local local
    char _pad[64]             # the threads' workers sit side by side: no shared cache line


cdef void _flush(Search* s, Batch* batch) noexcept nogil:
    """Add a thread's batched updates to the tree (between its iterations) and empty the
    batch."""
    cdef uint32_t i
    cdef Pending* p
    cdef Node* n
    for i in range(batch.used):
        p = &batch.slots[batch.order[i]]
        n = &s.pool.nodes[p.node - 1]
        cy_atomic_add_double(&n.reward, p.reward)
        cy_atomic_add32(&n.visits, p.visits)
        memset(p, 0, sizeof(Pending))
    batch.used = 0


cdef void _work(Worker* w) noexcept nogil:
    """One thread of a shared search: take iterations from the common budget until it is
    spent or any thread meets a stop condition.  The hot nodes' batched updates are added
    every FLUSH_EVERY iterations and at the end (without memory for the batch, every
    update is atomic)."""
    cdef Search* s = w.search
    cdef int reason = STOP_NONE
    cdef uint64_t total
    cdef int64_t left, granted = 0
    # Only an iteration limit needs the common budget: without one no thread touches it (at
    # many threads its cache line would go round them every few iterations).
    cdef bint limited = w.max_iterations < <uint64_t>(1 << 62)
    cdef Batch* batch = <Batch*>calloc(1, sizeof(Batch))
    while not cy_load_flag(&s.halt):
        if limited and granted == 0:
            left = cy_atomic_add64(&s.budget, -BUDGET_CHUNK)
            if left <= 0:
                reason = STOP_ITERATIONS
                break
            granted = left if left < BUDGET_CHUNK else BUDGET_CHUNK
        reason = _check(s, w.done + 1, 0xFFFFFFFFFFFFFFFFULL, w.deadline, s.started, False)
        if reason == STOP_NONE and s.early_stop and (w.done + 1) % CLOCK_EVERY == 1:
            # Early stopping looks at the whole search: all threads' iterations.
            left = s.budget                      # handed out: at most BUDGET_CHUNK early
            total = (w.max_iterations - <uint64_t>(left if left > 0 else 0)
                     if limited else w.done * w.threads)
            reason = (STOP_DECIDED if _decided(s, total, w.max_iterations, w.deadline,
                                               cy_monotonic() - s.started) else STOP_NONE)
        if reason != STOP_NONE:
            break
        w.done += 1
        granted -= 1
        if _iterate(s, &w.rng, batch, &w.local) != 0:
            reason = STOP_NODES
            break
        if batch != NULL and w.done % flush_every == 0:
            _flush(s, batch)
    if batch != NULL:
        _flush(s, batch)
        free(batch)
    # An empty budget stops no one else: the others finish the iterations they were given,
    # so the total is exact.
    if reason != STOP_NONE and reason != STOP_ITERATIONS and not cy_load_flag(&s.halt):
        s.halt_reason = reason
        cy_store_flag(&s.halt, 1)


cdef void _work_entry(void* arg) noexcept nogil:
    _work(<Worker*>arg)


cdef int _run_shared(Search* s, Rng* rng, int threads, uint64_t max_iterations,
                     double deadline, uint64_t* done) noexcept nogil:
    """``threads`` threads search the tree at once (this one too); the arena must be
    reserved.  Iterations are handed out from one budget, so the total is exact.  Without
    memory for the threads' records, this thread searches alone."""
    cdef Worker* workers = <Worker*>calloc(threads, sizeof(Worker))
    cdef cy_thread* pool = <cy_thread*>calloc(threads, sizeof(cy_thread))
    cdef int i, started = 0, n = threads
    cdef uint64_t first = 0
    if workers == NULL or pool == NULL:
        free(workers)
        free(pool)
        return _run(s, rng, max_iterations, deadline, done)
    if (max_iterations > 0 and s.pool.nodes[0].proven == UNPROVEN
            and not s.pool.nodes[0].flags & FLAG_EXPANDED):
        # One thread expands the root first: while it does, every other thread's iteration
        # would end at the root as a leaf.
        first = 1
        if _iterate(s, rng, NULL, &s.local) != 0:
            done[0] = 1
            free(workers)
            free(pool)
            return STOP_NODES
        max_iterations -= 1
    s.budget = <int64_t>max_iterations if max_iterations < <uint64_t>(1 << 62) else (1 << 62)
    s.halt = 0
    s.halt_reason = STOP_ITERATIONS
    s.started = cy_monotonic()
    s.shared_size = s.pool.size
    s.hot_visits = hot_per_thread * n
    s.shared = True
    for i in range(n):
        workers[i].search = s
        rng_seed(&workers[i].rng, rng_next(rng))
        workers[i].max_iterations = max_iterations
        workers[i].deadline = deadline
        workers[i].threads = n
        workers[i].done = 0
        memset(&workers[i].local, 0, sizeof(Local))
    for i in range(1, n):
        if cy_thread_create(&pool[started], _work_entry, &workers[i]) == 0:
            started += 1
    _work(&workers[0])
    for i in range(started):
        cy_thread_join(pool[i])
    s.shared = False
    s.pool.size = s.shared_size
    done[0] = first
    for i in range(n):
        done[0] += workers[i].done
        s.local.expansions += workers[i].local.expansions
        s.local.links += workers[i].local.links
    free(workers)
    free(pool)
    return s.halt_reason


cdef int _recycle(Search* s) noexcept nogil:
    """Make room in a full pool: keep the children of the most visited nodes only, as many
    as fill at most RECYCLE_KEEP of the pool, and make the rest leaves again (their own
    visits, rewards and backed-up values stay; they are expanded anew when the search
    returns to them).  Between runs, never while threads search.  0 on success, -1 when
    nothing could be freed (or without memory for the compaction)."""
    cdef uint32_t before = s.pool.size
    cdef uint32_t target = <uint32_t>(s.pool.max_nodes * RECYCLE_KEEP)
    cdef uint32_t threshold = pool_recycle_threshold(&s.pool, target)
    if threshold == 0 or pool_compact(&s.pool, 0, threshold) != 0:
        return -1
    s.recycled += 1
    if s.transpositions and _table_rebuild(s) != 0:
        return -1
    # The search goes on if there is room for a block of children at least (a shared
    # search's threads take the exact count when no whole chunk is left).
    return 0 if before - s.pool.size >= 64 else -1


cdef int _table_rebuild(Search* s) noexcept nogil:
    """Record every expanded node of the tree in a cleared table (after tree reuse moved
    the nodes).  0 on success, -1 without memory (the table is then left empty)."""
    cdef uint64_t* seen = <uint64_t*>calloc((s.pool.size + 63) >> 6, sizeof(uint64_t))
    table_clear(&s.table)
    if seen == NULL:
        return -1
    _table_add(s, 0, s.root_pos, seen)
    free(seen)
    return 0


cdef void _table_add(Search* s, uint32_t idx, Position pos, uint64_t* seen) noexcept nogil:
    """Record node ``idx`` at ``pos`` and the expanded nodes below it, each node once
    (``seen``: a DAG reaches a node by several paths).  Recursive: at most a game deep."""
    cdef Node* n = &s.pool.nodes[idx]
    cdef Position child
    cdef uint32_t c
    if seen[idx >> 6] >> (idx & 63) & 1 or not n.flags & FLAG_EXPANDED:
        return
    seen[idx >> 6] |= (<uint64_t>1) << (idx & 63)
    table_store(&s.table, pos.P, pos.O, idx, False)
    for c in range(n.first_child, n.first_child + n.num_children):
        child = pos
        play(&child, s.pool.nodes[c].move)
        _table_add(s, c, child, seen)


# -- the Python interface -----------------------------------------------------------------------

cdef class SearchTree:
    """One MCTS tree over a position.  One Python thread searches it at a time (with
    ``threads`` > 1, that search runs on several C threads sharing the tree); any thread
    may call :meth:`stop`."""

    cdef Search s
    cdef Rng rng
    cdef int threads
    cdef object _weights_ref       # keeps the weights alive
    cdef readonly object settings  # the SearchSettings it searches with
    cdef bint running              # a run() is in progress (set and read under the GIL)
    cdef readonly uint64_t total_iterations

    def __cinit__(self, Board board not None, settings=None, **options):
        """A tree rooted at ``board``, searching with ``settings``
        (:class:`~cythello.search.settings.SearchSettings`, checked there), changed by any
        ``options`` given by name.  Its node cap is ``settings.nodes_per_tree``, its
        threads ``settings.tree_threads``; without a seed it draws one."""
        if settings is None:
            settings = SearchSettings(**options)
        elif not isinstance(settings, SearchSettings):
            raise TypeError(f"settings must be SearchSettings, not {type(settings).__name__}")
        elif options:
            settings = settings.replace(**options)
        self.settings = settings
        self.s.policy = ROLLOUT_POLICIES[settings.rollout]
        self.s.exploration = settings.exploration
        self.s.root_exploration = settings.root_exploration
        self.s.disc_weight = settings.disc_weight
        self.s.expand_after = settings.expand_after
        self.s.bias = settings.progressive_bias
        self.s.early_stop = settings.early_stop
        self.s.widening = settings.widening
        self.s.transpositions = settings.transpositions
        self.s.rave = settings.rave
        self.s.recycle = settings.recycle
        self.threads = settings.tree_threads
        max_nodes = settings.nodes_per_tree
        seed = random_seed() if settings.seed is None else settings.seed
        weights = settings.weights()
        self.s.eval_weights = NULL
        self.s.evaluate = NULL
        self.s.search = NULL
        if weights is not None:
            self._weights_ref = weights
            self.s.eval_weights = (<PatternWeights>weights).table
            self.s.evaluate = evaluator_function()
            self.s.search = searcher_function()
        self.s.minimax_weight = settings.minimax_weight if weights is not None else 0.0
        self.s.leaf_eval = settings.leaf_eval if weights is not None else 0.0
        self.s.eval_depth = settings.eval_depth
        eval_scale = settings.eval_scale
        self.s.stop_flag = 0
        self.s.shared = False
        cdef int i
        cdef float scale = eval_scale
        for i in range(WIN_TABLE):
            self.s.win_prob[i] = 1.0 / (1.0 + expf(-((i << WIN_SHIFT) - VALUE_LIMIT)
                                                   / (EVAL_SCALE * scale)))
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))
        if pool_init(&self.s.pool, <uint32_t>max_nodes, self.s.rave != 0) != 0:
            raise MemoryError("cannot allocate the node pool")
        self.s.table.entries = NULL
        if self.s.transpositions and table_init(&self.s.table, <uint32_t>max_nodes) != 0:
            raise MemoryError("cannot allocate the transposition table")
        self._set_root(board)

    def __dealloc__(self):
        pool_free(&self.s.pool)
        table_free(&self.s.table)

    cdef _set_root(self, Board board):
        own, opp = board.position()
        self.s.root_pos.P = own
        self.s.root_pos.O = opp
        self.s.pool.size = 1
        cdef Node* root = &self.s.pool.nodes[0]
        root.reward = 0
        root.visits = root.first_child = 0
        root.value = 0
        root.move = PASS_MOVE
        root.num_children = root.proven = 0
        root.flags = 0 if board.turn else FLAG_WHITE_MOVED
        self.total_iterations = 0
        memset(&self.s.local, 0, sizeof(Local))
        self.s.recycled = 0
        if self.s.transpositions:
            table_clear(&self.s.table)

    def run(self, iterations=None, deadline=0.0):
        """Search until ``iterations`` more iterations (None: no limit) or the monotonic
        ``deadline`` (``time.monotonic()`` seconds; 0: none).  Returns ``(iterations done,
        stop reason)``.  The GIL is released throughout."""
        cdef uint64_t limit = 0xFFFFFFFFFFFFFFFF if iterations is None else check_int(
            "iterations", iterations, 0, 2**64 - 2)
        cdef double until = check_number("deadline", deadline, 0, float("inf"))
        cdef uint64_t done = 0
        cdef int reason
        self._check_idle()
        if self.threads > 1 and pool_reserve(&self.s.pool) != 0:
            raise MemoryError(f"cannot reserve {self.s.pool.max_nodes:,} nodes for a shared "
                              f"search; lower max_nodes")
        self.running = True
        try:
            with nogil:
                reason = self._run_recycling(limit, until, &done)
        finally:
            self.running = False
        self.total_iterations += done
        return done, STOP_REASONS[reason]

    cdef int _run_recycling(self, uint64_t limit, double until, uint64_t* done) noexcept nogil:
        """Runs until a limit; when the pool is full and recycling is on, recycle it and
        go on (the pool stops the search only when nothing can be freed)."""
        cdef uint64_t ran
        cdef int reason
        done[0] = 0
        while True:
            ran = 0
            if self.threads > 1:
                reason = _run_shared(&self.s, &self.rng, self.threads, limit - done[0],
                                     until, &ran)
            else:
                reason = _run(&self.s, &self.rng, limit - done[0], until, &ran)
            done[0] += ran
            if reason == STOP_NODES and done[0] >= limit:
                # The pool filled on the budget's last iteration (one thread of a shared
                # search may, while the others finish theirs): the budget ended the run.
                return STOP_ITERATIONS
            if (reason != STOP_NODES or not self.s.recycle
                    or _recycle(&self.s) != 0):
                return reason

    cdef _check_idle(self):
        # One thread searches a tree at a time, and nobody reads it meanwhile: the arena
        # may move under a reader when it grows.
        if self.running:
            raise PlayerBusyError("this SearchTree is searching in another thread")

    def stop(self):
        """Ask a running search to return as soon as possible (safe from any thread).  The
        request stands, and ends later runs at once, until :meth:`clear_stop`."""
        cy_store_flag(&self.s.stop_flag, 1)

    def clear_stop(self):
        cy_store_flag(&self.s.stop_flag, 0)

    @property
    def threads(self):
        """Threads sharing each run of this tree."""
        return self.threads

    @property
    def transpositions(self):
        """Whether transposed positions share their children (the tree is a DAG)."""
        return bool(self.s.transpositions)

    @property
    def rave(self):
        """RAVE's equivalence parameter (0: off)."""
        return self.s.rave

    @property
    def expansions(self):
        """Blocks of children created since the root was set."""
        return self.s.local.expansions

    @property
    def recycled(self):
        """Times a full pool was recycled (its least visited subtrees dropped) since the
        root was set."""
        return self.s.recycled

    @property
    def links(self):
        """Nodes that found their position already expanded (through another move
        order) and took its children, since the root was set; 0 without transpositions."""
        return self.s.local.links

    @property
    def nodes(self):
        """Nodes in use (allocated children included)."""
        return self.s.pool.size

    @property
    def capacity(self):
        """Nodes allocated (the arena grows by doubling up to ``max_nodes``)."""
        return self.s.pool.capacity

    @property
    def max_nodes(self):
        """The node cap."""
        return self.s.pool.max_nodes

    @property
    def root_visits(self):
        """Visits of the root: the iterations behind its statistics."""
        self._check_idle()
        return self.s.pool.nodes[0].visits

    @property
    def root_proof(self):
        """None, or "win"/"loss"/"draw" for the side to move at the root."""
        self._check_idle()
        cdef int p = self.s.pool.nodes[0].proven
        # Stored for the root's mover, who is the side *not* to move at the root.
        return (None, Proof.LOSS, Proof.WIN, Proof.DRAW)[p]

    @property
    def root_win_rate(self):
        """Mean reward of the side to move at the root (0.5 before any visit)."""
        self._check_idle()
        cdef Node* r = &self.s.pool.nodes[0]
        return 1.0 - r.reward / r.visits if r.visits else 0.5

    @property
    def root_value(self):
        """The evaluation's minimax estimate of the final disc difference for the side to
        move at the root (None without an evaluation or before the first expansion)."""
        self._check_idle()
        if self.s.evaluate == NULL or not self.s.pool.nodes[0].flags & FLAG_EXPANDED:
            return None
        return -self.s.pool.nodes[0].value / <double>EVAL_SCALE

    def child_stats(self, idx=0):
        """A node's children as :class:`~cythello.search.uct.node_stats.ChildStats` records
        (move, visits, reward sum, proof, node index, value)."""
        self._check_idle()
        if isinstance(idx, bool) or not isinstance(idx, int):
            raise TypeError(f"a node index is an int, not {type(idx).__name__}")
        if not 0 <= idx < self.s.pool.size:
            raise IndexError(f"node index {idx} out of range 0-{self.s.pool.size - 1}")
        cdef Node* nodes = self.s.pool.nodes
        if not nodes[idx].flags & FLAG_EXPANDED:
            return []
        first = nodes[idx].first_child
        evaluated = self.s.evaluate != NULL
        return [ChildStats(nodes[i].move, nodes[i].visits, nodes[i].reward,
                           PROOF_NAMES[nodes[i].proven], i,
                           nodes[i].value / <double>EVAL_SCALE if evaluated else None)
                for i in range(first, first + nodes[idx].num_children)]

    def amaf_stats(self, idx=0):
        """``[(move, AMAF visits, AMAF reward sum), ...]`` of a node's children: RAVE's
        all-moves-as-first statistics (an empty list with RAVE off)."""
        children = self.child_stats(idx)
        if self.s.pool.amaf == NULL:
            return []
        cdef Amaf* amaf = self.s.pool.amaf
        return [(c.move, amaf[<uint32_t>c.node].visits, amaf[<uint32_t>c.node].reward)
                for c in children]

    def principal_variation(self, max_length=60):
        """The most-visited line from the root."""
        check_int("max_length", max_length, 0, 1000)
        pv = []
        idx = 0
        while len(pv) < max_length:
            children = [c for c in self.child_stats(idx) if c.visits > 0]
            if not children:
                break
            best = max(children, key=lambda c: (c.visits, c.reward / c.visits))
            pv.append(best.move)
            idx = best.node
        return pv

    def node_visit_sums(self):
        """For tests: a :class:`~cythello.search.uct.node_stats.NodeSums` per node."""
        self._check_idle()
        cdef Node* nodes = self.s.pool.nodes
        cdef uint32_t i, j
        out = []
        for i in range(self.s.pool.size):
            total = 0
            if nodes[i].flags & FLAG_EXPANDED:
                for j in range(nodes[i].first_child, nodes[i].first_child + nodes[i].num_children):
                    total += nodes[j].visits
            out.append(NodeSums(nodes[i].visits, total, bool(nodes[i].flags & FLAG_EXPANDED),
                                nodes[i].proven != UNPROVEN, nodes[i].reward,
                                bool(nodes[i].flags & FLAG_EXPANDING)))
        return out

    def advance(self, Board board not None, max_plies=4):
        """Re-root the tree at ``board`` if it is within ``max_plies`` moves of the current
        root, keeping that subtree's statistics and releasing the rest; otherwise start a
        fresh tree there.  Returns True when statistics were kept."""
        self._check_idle()
        check_int("max_plies", max_plies, 0, 60)
        own, opp = board.position()
        cdef uint64_t P = own, O = opp
        if P == self.s.root_pos.P and O == self.s.root_pos.O and board.turn == self._turn_at(0):
            return True
        found = self._find(0, self.s.root_pos, P, O, board.turn, max_plies)
        if found > 0 and pool_keep_subtree(&self.s.pool, found) == 0:
            self.s.root_pos.P = P
            self.s.root_pos.O = O
            if self.s.transpositions and _table_rebuild(&self.s) != 0:
                raise MemoryError("cannot rebuild the transposition table")
            return True
        self._set_root(board)
        return False

    cdef inline int _turn_at(self, uint32_t idx) noexcept:
        """The colour to move at a node: the opposite of the one whose move led there."""
        return 0 if self.s.pool.nodes[idx].flags & FLAG_WHITE_MOVED else 1

    cdef long long _find(self, uint32_t idx, Position pos, uint64_t P, uint64_t O, int turn,
                         int plies):
        """Index of the node within ``plies`` of ``idx`` whose position is ``(P, O)`` with
        ``turn`` to move, or -1."""
        cdef Node* nodes = self.s.pool.nodes
        cdef Position child
        cdef uint32_t i
        cdef long long hit
        if idx != 0 and pos.P == P and pos.O == O and self._turn_at(idx) == turn:
            return idx
        if plies == 0 or not nodes[idx].flags & FLAG_EXPANDED:
            return -1
        for i in range(nodes[idx].first_child, nodes[idx].first_child + nodes[idx].num_children):
            child = pos
            play(&child, nodes[i].move)
            hit = self._find(i, child, P, O, turn, plies - 1)
            if hit > 0:
                return hit
        return -1
