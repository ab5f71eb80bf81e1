# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""PUCT tree search guided by a policy/value evaluator (AlphaZero's selection), for one
game or many games at once, in typed C.

A :class:`PuctForest` holds one tree per game.  A search step is two calls around one
evaluator call: :meth:`PuctForest.gather` descends each tree (the GIL released) to up to
``want[i]`` new leaves, writing their planes and legal masks into one contiguous batch, and
:meth:`PuctForest.submit` expands those leaves with the evaluator's policy and backs up its
values.  A leaf waiting for its evaluation carries a virtual loss on its path (a visit and,
with ``virtual_loss``, a loss for each mover), so the next descent of the same tree goes
elsewhere; a descent that meets a waiting leaf is a collision and is dropped.  Finished
games met by a descent are scored at once, without the evaluator.  With the shipped
pattern evaluation, :meth:`PuctForest.run_native` does whole steps in C (gather, evaluate,
submit), with the answers a call through Python would give, and
:meth:`PuctForest.run_shared` searches one tree on several threads at once (see "several
threads in one tree" below).

A tree at its node cap stops growing but not searching: an evaluated leaf then answers
with its value again, until :meth:`PuctForest.recycle` drops the children of the least
visited nodes; it and :meth:`PuctForest.advance` (tree reuse) compact the tree in place.

Perspective: a node's ``value`` sums results in [-1, 1] for the player whose move led into
it, so a parent chooses among its children by their own means; passes are moves, so the
perspective flips at every ply.  An unvisited child's value (first-play urgency) is its
parent's mean for the side to move minus ``fpu_reduction`` (``FPU_PARENT``), a draw or a
loss.
"""
from libc.math cimport sqrt, exp, log, lrint, tanh, isfinite, INFINITY
from libc.stdlib cimport calloc, malloc, realloc, free
from libc.string cimport memset
from libc.stdint cimport int8_t, int64_t, uint8_t, uint32_t, uint64_t

import numpy as np

from cythello.core._rules cimport (
    Position, play, legal_moves, count, first_square, final_disc_difference, PASS_MOVE,
)
from cythello.core._planes cimport write_planes, write_legal
from cythello.core._platform cimport (
    cy_load_flag, cy_store_flag, cy_monotonic, cy_atomic_add32, cy_atomic_add64,
    cy_atomic_add_double, cy_atomic_cas32, cy_atomic_load8, cy_atomic_load32,
    cy_atomic_or8, cy_atomic_and8, cy_thread, cy_thread_create, cy_thread_join,
)
from cythello.nn._pattern cimport PatternEvaluator, PatternAnswer, answer_position
from cythello.search._batch cimport Batch, Pending, pending_find, pending_take
from cythello.search._recycling cimport visit_bucket, lowest_fitting_bucket
from cythello.errors import SettingsError

cdef enum:
    EXPANDED = 1          # children allocated and given priors
    TERMINAL = 2          # the game is over here (``minimax`` holds its result)
    PENDING = 4           # a leaf waiting for its evaluation (in the current batch)
    EXTRA_VISITS = 8      # visits its children do not account for: a leaf revisited in a
                          # full tree, or a node whose children a recycling took
    VALUED = 16           # ``minimax`` holds a value (see "implicit minimax" below)

cdef enum:
    UNIT = 127            # ``minimax`` counts in 127ths: a result of +1 is 127

cdef enum:
    MAX_PATH = 128        # 60 placements and their passes: a path is never longer
    INITIAL_NODES = 256
    SHARED_ROOM = 1 << 16 # nodes a shared search makes room for at least, per call

cdef uint32_t NO_NODE = 0xFFFFFFFF

cdef enum:
    FPU_PARENT = 0
    FPU_DRAW = 1
    FPU_LOSS = 2

cdef enum:
    LEAF = 0              # a new leaf, waiting in the batch
    RESOLVED = 1          # a finished game, scored at once
    COLLIDED = 2          # met a leaf that is already waiting

FPU_MODES = {"parent": FPU_PARENT, "draw": FPU_DRAW, "loss": FPU_LOSS}
NODE_BYTES = sizeof(PNode)


cdef struct PNode:
    double value          # summed results for the player whose move led here
    float prior           # the parent's policy for this move
    uint32_t visits       # finished and waiting visits
    uint32_t first_child  # valid when EXPANDED
    uint8_t move          # 0-63 or PASS_MOVE
    uint8_t num_children
    uint8_t flags
    int8_t minimax        # for the player whose move led here, in UNITs: TERMINAL: the
                          # result (+UNIT, 0, -UNIT); else VALUED: the evaluations' negamax
                          # below here (a byte keeps the node at 24 bytes; a UNIT is 1/127
                          # of a result, finer than the evaluation's noise)


cdef struct PTree:
    PNode* nodes
    uint32_t size
    uint32_t capacity
    uint64_t P            # the root position, side to move first
    uint64_t O
    uint64_t sims         # simulations finished since the root was set
    bint full             # a leaf could not be expanded: the node cap is reached, and
                          # evaluated leaves are no longer expanded


cdef struct Params:       # the search settings the tree work reads
    uint32_t max_nodes
    double c_puct
    double c_puct_base    # > 0: the prior's weight grows with the visits (AlphaZero's)
    double fpu_reduction
    double virtual_loss
    double minimax_weight # > 0: a child's mean is blended with its minimax value
    int fpu


cdef struct Shared:       # one tree searched by several threads (run_shared)
    # Read by every thread, written by none while they run (the tree's own fields are
    # not written either: its size and fullness live below, each written field on a
    # cache line of its own, so that reading the others costs nothing).
    const PTree* tree
    const Params* params
    PatternAnswer answer
    int64_t budget        # descents to start at most (collisions use them up too)
    double seconds        # the time limit (0: none), from ``started``
    double started
    double value_per_logit
    bint stop_when_full
    char _line1[64]
    int64_t claimed       # descents claimed, CLAIM at a time
    char _line2[64]
    uint32_t size         # the tree's nodes (a new block is taken by compare-and-swap)
    uint32_t limit        # the nodes there is room for (the cap, or less: then a call
    char _line3[64]       # that runs out of room ends, and the next one makes more)
    int full              # a leaf found no room: the tree's cap is reached
    int done              # set by the first thread to stop: the others follow
    char _line4[64]
    int64_t leaves        # added by each thread as it ends
    int64_t resolved


cdef enum:
    # A shared search's threads keep their updates of the tree (visits, values, virtual
    # losses) in a batch of their own (_batch.pxd) and add them to the tree every
    # FLUSH_EVERY simulations: every thread passes through the same nodes near the
    # principal variation, and a node written at every simulation sends its memory back
    # and forth between the cores (measured: updates batched only near the root, to depth
    # 3 or 8, gained little).  A thread's own selection counts its batch (else it would
    # take the same child until its next flush).
    FLUSH_EVERY = 32
    CLAIM = 16            # descents a thread claims from the budget at a time
    # ... except for the last VISIBLE_LOSS nodes of a path: their virtual loss must be
    # seen by the other threads at once, or they descend to the same waiting leaf.
    VISIBLE_LOSS = 2


cdef struct Leaf:
    uint64_t P            # the leaf's position, side to move first
    uint64_t O
    uint32_t tree
    uint32_t depth        # nodes on the path, root and leaf included
    uint32_t path[MAX_PATH]


cdef uint32_t _alloc(PTree* t, uint32_t n, uint32_t max_nodes) noexcept nogil:
    """``n`` fresh nodes at the end of the arena: the first one's index, or NO_NODE when
    the cap is reached or memory ran out."""
    cdef uint32_t cap
    cdef PNode* grown
    if <uint64_t>t.size + n > max_nodes:
        return NO_NODE
    if t.size + n > t.capacity:
        cap = t.capacity * 2 if t.capacity else INITIAL_NODES
        while cap < t.size + n:
            cap *= 2
        if cap > max_nodes:
            cap = max_nodes
        grown = <PNode*>realloc(t.nodes, cap * sizeof(PNode))
        if grown == NULL:
            return NO_NODE
        t.nodes = grown
        t.capacity = cap
    cdef uint32_t first = t.size
    t.size += n
    return first


cdef void _clear_node(PNode* node, uint8_t move, float prior) noexcept nogil:
    node.value = 0.0
    node.prior = prior
    node.visits = 0
    node.first_child = 0
    node.move = move
    node.num_children = 0
    node.flags = 0
    node.minimax = 0


cdef class PuctForest:
    """``n`` PUCT trees and the batch buffers between them and an evaluator.

    ``planes`` (``max_batch x 2 x 8 x 8`` float32) and ``legal`` (``max_batch x 65``
    bool) hold the leaves of the last :meth:`gather`.
    Settings are checked by the caller (:class:`cythello.search.puct.PUCTSettings`)."""

    cdef PTree* trees
    cdef Leaf* leaves
    cdef readonly int n
    cdef readonly int max_batch
    cdef readonly int pending          # leaves of the last gather not yet submitted
    cdef Params params
    cdef readonly object planes
    cdef readonly object legal
    cdef float[:, :, :, ::1] _planes  # keep the buffers' views alive ...
    cdef uint8_t[:, ::1] _legal
    cdef float* _planes_at             # ... for these pointers into them (no checks in C)
    cdef uint8_t* _legal_at
    cdef float* _logits                # max_batch x 65, the answers of run_native's steps
    cdef float* _values                # max_batch

    def __cinit__(self, int n, int max_batch, uint32_t max_nodes, double c_puct,
                  str fpu, double fpu_reduction, double virtual_loss,
                  double c_puct_base=0.0, double minimax_weight=0.0):
        if n < 1 or max_batch < 1 or max_nodes < 2:
            raise SettingsError("a forest needs a tree, a batch and two nodes")
        self.trees = <PTree*>malloc(n * sizeof(PTree))
        self.leaves = <Leaf*>malloc(max_batch * sizeof(Leaf))
        self._logits = <float*>malloc(max_batch * 65 * sizeof(float))
        self._values = <float*>malloc(max_batch * sizeof(float))
        if self.trees == NULL or self.leaves == NULL or self._logits == NULL \
                or self._values == NULL:
            raise MemoryError()
        cdef int i
        for i in range(n):
            self.trees[i].nodes = NULL
            self.trees[i].size = 0
            self.trees[i].capacity = 0
        self.n = n
        self.max_batch = max_batch
        self.params.max_nodes = max_nodes
        self.params.c_puct = c_puct
        self.params.c_puct_base = c_puct_base
        self.params.fpu = FPU_MODES[fpu]
        self.params.fpu_reduction = fpu_reduction
        self.params.virtual_loss = virtual_loss
        self.params.minimax_weight = minimax_weight
        self.planes = np.zeros((max_batch, 2, 8, 8), dtype=np.float32)
        self.legal = np.zeros((max_batch, 65), dtype=np.bool_)
        self._planes = self.planes
        self._legal = self.legal.view(np.uint8)
        self._planes_at = &self._planes[0, 0, 0, 0]
        self._legal_at = &self._legal[0, 0]

    def __dealloc__(self):
        cdef int i
        if self.trees != NULL:
            for i in range(self.n):
                free(self.trees[i].nodes)
            free(self.trees)
        free(self.leaves)
        free(self._logits)
        free(self._values)

    # -- roots ------------------------------------------------------------------------

    def set_root(self, int i, uint64_t P, uint64_t O):
        """Tree ``i`` starts afresh from the position ``P`` (side to move) / ``O``."""
        self._check_index(i)
        self._check_idle()
        cdef PTree* t = &self.trees[i]
        t.size = 0
        t.full = False
        if _alloc(t, 1, self.params.max_nodes) == NO_NODE:
            raise MemoryError()
        _clear_node(&t.nodes[0], PASS_MOVE, 1.0)
        t.P = P
        t.O = O
        t.sims = 0

    def advance(self, int i, int move):
        """Tree ``i`` moves its root to the child ``move``, keeping that subtree (or starts
        afresh after it when the child was never expanded), in place; returns the visits
        kept."""
        self._check_tree(i)
        self._check_idle()
        cdef PTree* t = &self.trees[i]
        cdef Position pos
        pos.P = t.P
        pos.O = t.O
        play(&pos, move)
        cdef uint32_t child = self._child(t, 0, move)
        if child == 0 or not t.nodes[child].flags & EXPANDED:
            self.set_root(i, pos.P, pos.O)
            return 0
        if not _compact(t, child, 0):
            raise MemoryError()
        t.P = pos.P
        t.O = pos.O
        t.sims = 0
        t.full = False
        return t.nodes[0].visits

    cdef uint32_t _child(self, PTree* t, uint32_t n, int move) noexcept nogil:
        cdef PNode* node = &t.nodes[n]
        cdef uint32_t c
        if not node.flags & EXPANDED:
            return 0
        for c in range(node.first_child, node.first_child + node.num_children):
            if t.nodes[c].move == move:
                return c
        return 0

    def recycle(self, int i, double keep=0.5):
        """Make room in tree ``i`` (at its node cap, say): keep the children of the most
        visited nodes, as many as fill ``keep`` of the cap at most, and make every other
        expanded node a leaf again (its visits and value stay: what it learned about
        itself is not lost; its subtree grows again if the search comes back).  The tree
        is compacted in place (a bitmap of the nodes kept is the only other memory, one
        bit a node).  Returns the nodes kept."""
        self._check_tree(i)
        self._check_idle()
        if not 0.0 < keep <= 1.0:
            raise ValueError(f"keep must be in (0, 1], not {keep}")
        cdef PTree* t = &self.trees[i]
        cdef uint64_t target = <uint64_t>(keep * self.params.max_nodes)
        cdef bint done
        with nogil:
            done = _compact(t, 0, _recycle_threshold(t, target))
        if not done:
            raise MemoryError()
        return t.size

    def mix_root_noise(self, int i, noise, double fraction):
        """Blend ``noise`` (one number per root child, in child order) into tree ``i``'s
        root priors: ``(1 - fraction) * prior + fraction * noise`` (AlphaZero's Dirichlet
        exploration).  The root must be expanded."""
        self._check_tree(i)
        cdef PTree* t = &self.trees[i]
        cdef PNode* root = &t.nodes[0]
        if not root.flags & EXPANDED:
            raise ValueError("the root is not expanded yet")
        cdef double[::1] x = np.ascontiguousarray(noise, dtype=np.float64)
        if x.shape[0] != root.num_children:
            raise ValueError(f"noise must have {root.num_children} entries, not {x.shape[0]}")
        cdef uint32_t c
        cdef PNode* node
        for c in range(root.num_children):
            node = &t.nodes[root.first_child + c]
            node.prior = <float>((1.0 - fraction) * node.prior + fraction * x[c])

    # -- one search step: gather, evaluate (the caller), submit -----------------------

    def gather(self, want):
        """Descend each tree ``i`` up to ``want[i]`` times; returns ``(leaves, resolved)``:
        the leaves now waiting in the batch (``planes[:leaves]`` ...) and the descents that
        ended in finished games, scored at once.  Collisions count against ``want``."""
        self._check_idle()
        cdef uint32_t[::1] w = self._want(want)
        cdef int leaves, resolved
        with nogil:
            leaves = self._gather(&w[0], True, &resolved)
        self.pending = leaves
        return leaves, resolved

    def run_native(self, PatternEvaluator evaluator, want, int steps=1):
        """``steps`` search steps with the pattern ``evaluator`` called in C: each gathers
        up to ``want[i]`` leaves in tree ``i`` as :meth:`gather` does, evaluates them as
        a call of ``evaluator`` would and submits its answers, all without the GIL (the
        trees end exactly as with :meth:`gather`, the call and :meth:`submit`).  Returns
        ``(leaves, resolved)`` summed over the steps."""
        self._check_idle()
        if steps < 1:
            raise ValueError(f"steps must be at least 1, not {steps}")
        cdef uint32_t[::1] w = self._want(want)
        cdef int step, k, leaves, resolved, total_leaves = 0, total_resolved = 0
        cdef PatternAnswer answer = evaluator.answer()
        with nogil:
            for step in range(steps):
                leaves = self._gather(&w[0], False, &resolved)
                for k in range(leaves):
                    answer_position(&answer, self.leaves[k].P, self.leaves[k].O,
                                    &self._logits[k * 65], &self._values[k])
                self.pending = leaves
                self._submit(self._logits, self._values, answer.prior_unit / answer.value_unit)
                total_leaves += leaves
                total_resolved += resolved
        return total_leaves, total_resolved

    def run_shared(self, PatternEvaluator evaluator, int i, int threads,
                   uint64_t simulations, double seconds, bint stop_when_full=True):
        """Search tree ``i`` on ``threads`` threads at once (the calling one and
        ``threads - 1`` helpers), the pattern ``evaluator`` called in C, for at most
        ``simulations`` more descents (a collision with another thread's waiting leaf
        uses one up), ``seconds`` (0: no limit) or, with ``stop_when_full``, until the
        tree reached its node cap.  The threads share the tree without a lock (see
        ``_descend_shared``); a waiting leaf's virtual loss sends the others elsewhere.
        Nodes cannot move while the threads run, so the tree's memory is grown first,
        to room for twice its nodes (within the cap), and a call that fills that room
        ends early.  Returns ``(leaves, resolved)``."""
        self._check_tree(i)
        self._check_idle()
        if threads < 1:
            raise ValueError(f"threads must be at least 1, not {threads}")
        cdef PTree* t = &self.trees[i]
        # Room for the tree to double (or to grow by SHARED_ROOM nodes).
        cdef uint64_t room = max(<uint64_t>t.size * 2, <uint64_t>t.size + SHARED_ROOM)
        cdef uint32_t limit = <uint32_t>min(room, <uint64_t>self.params.max_nodes)
        cdef PNode* grown
        if t.capacity < limit:
            grown = <PNode*>realloc(t.nodes, limit * sizeof(PNode))
            if grown == NULL:
                raise MemoryError()
            t.nodes = grown
            t.capacity = limit
        cdef Shared sh
        sh.tree = t
        sh.params = &self.params
        sh.answer = evaluator.answer()
        sh.value_per_logit = sh.answer.prior_unit / sh.answer.value_unit
        sh.budget = <int64_t>min(simulations, <uint64_t>0x7FFFFFFFFFFFFFFF)
        sh.claimed = 0
        sh.seconds = seconds if seconds > 0 else 0.0
        sh.stop_when_full = stop_when_full
        sh.size = t.size
        sh.limit = t.capacity
        sh.full = t.full
        sh.done = 0
        sh.leaves = 0
        sh.resolved = 0
        cdef cy_thread* helpers = NULL
        cdef int started = 0, k
        with nogil:
            sh.started = cy_monotonic()
            if threads > 1:
                helpers = <cy_thread*>calloc(threads - 1, sizeof(cy_thread))
            if helpers != NULL:            # without memory for them: alone
                for k in range(threads - 1):
                    if cy_thread_create(&helpers[started], _shared_worker, &sh) == 0:
                        started += 1
            _shared_worker(&sh)
            for k in range(started):
                cy_thread_join(helpers[k])
            free(helpers)
        t.size = sh.size
        t.full = sh.full
        t.sims += sh.leaves + sh.resolved
        return sh.leaves, sh.resolved

    cdef uint32_t[::1] _want(self, want):
        cdef uint32_t[::1] w = np.ascontiguousarray(want, dtype=np.uint32)
        if w.shape[0] != self.n:
            raise ValueError(f"want must have {self.n} entries, not {w.shape[0]}")
        cdef uint64_t total = 0
        cdef int i
        for i in range(self.n):
            total += w[i]
        if total > <uint64_t>self.max_batch:
            raise ValueError(f"want asks for {total} leaves, more than the batch of "
                             f"{self.max_batch}")
        return w

    cdef int _gather(self, const uint32_t* want, bint write, int* resolved) noexcept nogil:
        """The descents of one step into ``self.leaves``: the leaves found (their planes
        and legal masks written into the batch buffers when ``write``)."""
        cdef int i, k = 0, outcome
        cdef uint32_t attempt
        resolved[0] = 0
        for i in range(self.n):
            if self.trees[i].nodes == NULL:
                continue
            for attempt in range(want[i]):
                outcome = _descend(&self.trees[i], &self.params, &self.leaves[k])
                if outcome == LEAF:
                    self.leaves[k].tree = i
                    if write:
                        write_planes(self.leaves[k].P, self.leaves[k].O,
                                     &self._planes_at[k * 128])
                        write_legal(self.leaves[k].P, self.leaves[k].O, &self._legal_at[k * 65])
                    k += 1
                elif outcome == RESOLVED:
                    resolved[0] += 1
        return k

    def submit(self, logits, values):
        """Expand the waiting leaves with ``logits`` (``pending x 65``: a softmax over each
        leaf's legal moves) and back up ``values`` (``pending``, for the side to move at
        the leaf).  The caller checked them (finite where legal, values in [-1, 1])."""
        cdef const float[:, ::1] lg = np.ascontiguousarray(logits, dtype=np.float32)
        cdef const float[::1] v = np.ascontiguousarray(values, dtype=np.float32)
        if lg.shape[0] != self.pending or lg.shape[1] != 65 or v.shape[0] != self.pending:
            raise ValueError(f"submit expects {self.pending} x 65 logits and {self.pending} "
                             "values")
        with nogil:
            self._submit(&lg[0, 0] if self.pending else NULL, &v[0] if self.pending else NULL,
                         0.0)

    cdef void _submit(self, const float* logits, const float* values,
                      double value_per_logit) noexcept nogil:
        """Expand the waiting leaves with their rows of ``logits`` (65 a leaf) and back up
        ``values``; ``value_per_logit`` > 0: the logits are the moves' values in these
        units (the shipped pattern evaluator's), which implicit minimax takes."""
        cdef int k
        cdef Leaf* leaf
        for k in range(self.pending):
            leaf = &self.leaves[k]
            _expand(&self.trees[leaf.tree], &self.params, leaf, &logits[k * 65],
                    values[k], value_per_logit)
            _backup(&self.trees[leaf.tree], leaf.path, leaf.depth, -values[k],
                    self.params.virtual_loss, False)
            if self.params.minimax_weight > 0:
                _minimax_up(&self.trees[leaf.tree], leaf.path, leaf.depth, _units(-values[k]))
            self.trees[leaf.tree].sims += 1
        self.pending = 0

    def cancel(self):
        """Drop the waiting leaves: their virtual losses are taken back, as if the last
        gather had not happened (after an evaluator failed)."""
        cdef int k
        cdef uint32_t d
        cdef PTree* t
        for k in range(self.pending):
            t = &self.trees[self.leaves[k].tree]
            t.nodes[self.leaves[k].path[self.leaves[k].depth - 1]].flags &= ~PENDING
            for d in range(self.leaves[k].depth):
                t.nodes[self.leaves[k].path[d]].visits -= 1
                t.nodes[self.leaves[k].path[d]].value += self.params.virtual_loss
        self.pending = 0

    # -- what the trees hold -----------------------------------------------------------

    def simulations(self, int i):
        """Simulations finished in tree ``i`` since its root was set."""
        self._check_tree(i)
        return self.trees[i].sims

    def is_full(self, int i):
        """Whether tree ``i`` reached its node cap."""
        self._check_tree(i)
        return bool(self.trees[i].full)

    def root_expanded(self, int i):
        self._check_tree(i)
        return bool(self.trees[i].nodes[0].flags & EXPANDED)

    def root_visits(self, int i):
        self._check_tree(i)
        return self.trees[i].nodes[0].visits

    def nodes(self, int i):
        self._check_tree(i)
        return self.trees[i].size

    def root_children(self, int i):
        """Tree ``i``'s root children as arrays ``(moves, visits, values, priors)``:
        ``values`` are mean results in [-1, 1] for the side to move at the root (0 for an
        unvisited child)."""
        self._check_tree(i)
        return self._children(&self.trees[i], 0)

    cdef tuple _children(self, PTree* t, uint32_t n):
        cdef PNode* node = &t.nodes[n]
        cdef int k = node.num_children if node.flags & EXPANDED else 0
        moves = np.zeros(k, dtype=np.int64)
        visits = np.zeros(k, dtype=np.int64)
        values = np.zeros(k, dtype=np.float64)
        priors = np.zeros(k, dtype=np.float64)
        cdef int j
        cdef PNode* child
        for j in range(k):
            child = &t.nodes[node.first_child + j]
            moves[j] = child.move
            visits[j] = child.visits
            values[j] = child.value / child.visits if child.visits else 0.0
            priors[j] = child.prior
        return moves, visits, values, priors

    def root_minimax(self, i):
        """Tree ``i``'s root children's implicit minimax values (for the side to move at
        the root, in child order; NaN where a child has none), with ``minimax_weight``."""
        self._check_tree(i)
        cdef PNode* root = &self.trees[i].nodes[0]
        cdef int k = root.num_children if root.flags & EXPANDED else 0, j
        out = np.full(k, np.nan)
        cdef PNode* child
        for j in range(k):
            child = &self.trees[i].nodes[root.first_child + j]
            if child.flags & VALUED:
                out[j] = child.minimax / <double>UNIT
        return out

    def principal_variation(self, int i, int limit=60):
        """The most visited line from tree ``i``'s root (moves)."""
        self._check_tree(i)
        cdef PTree* t = &self.trees[i]
        cdef uint32_t n = 0, c, best
        line = []
        while t.nodes[n].flags & EXPANDED and len(line) < limit:
            best = t.nodes[n].first_child
            for c in range(t.nodes[n].first_child,
                           t.nodes[n].first_child + t.nodes[n].num_children):
                if t.nodes[c].visits > t.nodes[best].visits:
                    best = c
            if t.nodes[best].visits == 0:
                break
            line.append(t.nodes[best].move)
            n = best
        return line

    def check_tree(self, int i, bint minimax=True):
        """Walk tree ``i`` and return its invariants' breaches (for tests): every expanded
        node has 1 + its children's visits (no leaf waiting; more when it was
        revisited as a leaf of a full tree or a recycling took its children), priors sum to 1, means lie in
        [-1, 1]; with implicit minimax (and ``minimax``: not after threads, whose
        unlocked writes may leave a node a backup behind), an expanded node with valued
        children holds their negamax."""
        self._check_tree(i)
        cdef PTree* t = &self.trees[i]
        problems = []
        cdef uint32_t n, c
        cdef uint64_t child_visits
        cdef double prior_sum
        cdef PNode* node
        for n in range(t.size):
            node = &t.nodes[n]
            if node.visits and not -1.0 - 1e-9 <= node.value / node.visits <= 1.0 + 1e-9:
                problems.append(f"node {n}: mean {node.value / node.visits} outside [-1, 1]")
            if not node.flags & EXPANDED:
                continue
            child_visits = 0
            prior_sum = 0.0
            for c in range(node.first_child, node.first_child + node.num_children):
                child_visits += t.nodes[c].visits
                prior_sum += t.nodes[c].prior
            if node.visits != child_visits + 1 and not (
                    node.flags & EXTRA_VISITS and node.visits > child_visits):
                problems.append(f"node {n}: {node.visits} visits, children {child_visits}")
            if abs(prior_sum - 1.0) > 1e-4:
                problems.append(f"node {n}: priors sum to {prior_sum}")
            if minimax and self.params.minimax_weight > 0 and node.flags & VALUED \
                    and node.minimax != _negamax(t, node, node.minimax):
                problems.append(f"node {n}: minimax {node.minimax}, its children's "
                                f"{_negamax(t, node, node.minimax)}")
        return problems

    cdef void _check_index(self, int i) except *:
        if not 0 <= i < self.n:
            raise IndexError(f"tree {i} out of range 0-{self.n - 1}")

    cdef void _check_tree(self, int i) except *:
        self._check_index(i)
        if self.trees[i].nodes == NULL:
            raise ValueError(f"tree {i} has no root yet")

    cdef void _check_idle(self) except *:
        if self.pending:
            raise RuntimeError("leaves are waiting: submit or cancel them first")


cdef int _descend(PTree* t, const Params* params, Leaf* leaf) noexcept nogil:
    """One descent of ``t`` from its root: a new leaf (waiting, with its virtual loss
    on the path), a finished game or a full tree's revisit (scored at once) or a
    collision with a waiting leaf."""
    cdef Position pos
    pos.P = t.P
    pos.O = t.O
    cdef uint32_t n = 0, depth = 1, d
    cdef PNode* node = &t.nodes[0]
    leaf.path[0] = 0
    while node.flags & EXPANDED:
        n = _select(t, params, n)
        node = &t.nodes[n]
        play(&pos, node.move)
        leaf.path[depth] = n
        depth += 1
    if node.flags & PENDING:
        return COLLIDED
    if not node.flags & TERMINAL:
        if t.full and node.visits:
            # The tree can grow no more: a leaf already evaluated gives its value
            # again (the mean of its identical evaluations), and the search goes on
            # refining the tree it has within its memory.
            _backup(t, leaf.path, depth, node.value / node.visits, 0.0, True)
            node.flags |= EXTRA_VISITS
            t.sims += 1
            return RESOLVED
        if legal_moves(pos.P, pos.O) == 0 and legal_moves(pos.O, pos.P) == 0:
            node.minimax = _result(pos.P, pos.O)
            node.flags |= TERMINAL
    if node.flags & TERMINAL:
        _backup(t, leaf.path, depth, node.minimax / <double>UNIT, 0.0, True)
        if params.minimax_weight > 0:
            _minimax_up(t, leaf.path, depth, node.minimax)
        t.sims += 1
        return RESOLVED
    node.flags |= PENDING
    for d in range(depth):          # the virtual loss: a visit, a loss for each mover
        t.nodes[leaf.path[d]].visits += 1
        t.nodes[leaf.path[d]].value -= params.virtual_loss
    leaf.P = pos.P
    leaf.O = pos.O
    leaf.depth = depth
    return LEAF


cdef uint32_t _select(const PTree* t, const Params* params, uint32_t n,
                      Batch* batch=NULL) noexcept nogil:
    """The child of ``n`` maximising Q + c * P * sqrt(N) / (1 + n) (the first on ties),
    N the visits of all children, c = c_puct, plus log((N + base + 1) / base) with a
    ``c_puct_base``; with a thread's ``batch``, counting the updates of ``n`` and its
    children that the thread has not added to the tree yet."""
    cdef const PNode* node = &t.nodes[n]
    cdef double visits = node.visits, value = node.value, child_visits, child_value
    cdef const Pending* e = pending_find(batch, n) if batch != NULL else NULL
    cdef uint64_t batched = 0
    if e != NULL:
        visits += e.visits
        value += e.reward
        batched = e.children
    cdef double parent_visits = visits - 1 if visits > 1 else 1
    cdef double weight = params.c_puct
    if params.c_puct_base > 0:
        # AlphaZero's growth: the more visits a node has, the more weight its prior
        # keeps, so that a long search still looks at the moves it ranked second.
        weight += log((parent_visits + params.c_puct_base + 1) / params.c_puct_base)
    cdef double u = weight * sqrt(parent_visits)
    cdef double fpu
    if params.fpu == FPU_DRAW:
        fpu = 0.0
    elif params.fpu == FPU_LOSS:
        fpu = -1.0
    else:           # the parent's mean for its side to move: node.value is the opponent's
        fpu = (-value / visits if visits else 0.0) - params.fpu_reduction
    cdef uint32_t c, best = node.first_child
    cdef double score, best_score = -1e300, q
    cdef const PNode* child
    for c in range(node.first_child, node.first_child + node.num_children):
        child = &t.nodes[c]
        child_visits = child.visits
        child_value = child.value
        if batched >> (c - node.first_child) & 1:
            e = pending_find(batch, c)
            if e != NULL:
                child_visits += e.visits
                child_value += e.reward
        if child_visits:
            q = child_value / child_visits
            if params.minimax_weight > 0 and child.flags & VALUED:
                q += params.minimax_weight * (child.minimax / <double>UNIT - q)
            score = q + u * child.prior / (1 + child_visits)
        else:
            score = fpu + u * child.prior
        if score > best_score:
            best_score = score
            best = c
    return best


cdef void _expand(PTree* t, const Params* params, Leaf* leaf, const float* logits,
                  float value, double value_per_logit) noexcept nogil:
    """Give the waiting ``leaf`` its children, with priors from ``logits`` (and values,
    for implicit minimax: see _fill_children); a full tree keeps it a leaf."""
    cdef uint32_t n = leaf.path[leaf.depth - 1]
    t.nodes[n].flags &= ~PENDING
    cdef uint64_t moves = legal_moves(leaf.P, leaf.O)
    cdef uint32_t first = _alloc(t, count(moves) if moves else 1, params.max_nodes)
    if first == NO_NODE:
        t.full = True         # the leaf keeps its value and stays a leaf
        t.nodes[n].flags |= EXTRA_VISITS
        return
    _fill_children(t, n, first, moves, logits,
                   value_per_logit if params.minimax_weight > 0 else -1.0, value)
    t.nodes[n].flags |= EXPANDED


cdef void _fill_children(const PTree* t, uint32_t n, uint32_t first, uint64_t moves,
                         const float* logits, double value_per_logit,
                         float value) noexcept nogil:
    """Write node ``n``'s children (one a legal move, or the pass) from ``first`` on,
    their priors a softmax of ``logits``, and point ``n`` at them (its EXPANDED flag is
    the caller's: the shared search publishes it last).  For implicit minimax
    (``value_per_logit`` >= 0) a pass is valued ``value`` (the leaf's, for its side to
    move, who passes) and, when ``value_per_logit`` > 0, each move by its logit:
    tanh(logit * value_per_logit), the value of the position it reaches for the mover."""
    cdef int k = count(moves) if moves else 1
    cdef double top = -INFINITY, total = 0.0, p
    cdef int sq, j = 0
    cdef uint64_t rest = moves
    if moves == 0:
        _clear_node(&t.nodes[first], PASS_MOVE, 1.0)
        if value_per_logit >= 0:
            t.nodes[first].minimax = _units(value)
            t.nodes[first].flags = VALUED
    else:
        while rest:
            sq = first_square(rest)
            rest &= rest - 1
            if logits[sq] > top:
                top = logits[sq]
        rest = moves
        while rest:
            sq = first_square(rest)
            rest &= rest - 1
            # A -inf logit is a zero prior; all of them -inf: uniform.
            p = exp(logits[sq] - top) if isfinite(top) else 1.0
            _clear_node(&t.nodes[first + j], sq, <float>p)
            if value_per_logit > 0 and isfinite(logits[sq]):
                t.nodes[first + j].minimax = _units(tanh(logits[sq] * value_per_logit))
                t.nodes[first + j].flags = VALUED
            total += p
            j += 1
        for j in range(k):
            t.nodes[first + j].prior = <float>(t.nodes[first + j].prior / total)
    t.nodes[n].first_child = first
    t.nodes[n].num_children = k


# -- several threads in one tree (run_shared) ------------------------------------------
#
# No lock: a thread descends while others update the nodes it reads.  Visits, values and
# flags change by atomic operations; a leaf is claimed by setting its PENDING flag
# (whoever set it first expands it; anyone else collides); its children are written in
# place and published by the EXPANDED flag, set last with release order and read with
# acquire order, so a thread that sees EXPANDED sees the children.  Nodes never move
# while the threads run: the arena is grown before they start (run_shared) and new
# nodes are taken from its end by compare-and-swap.  (A lock around the tree measured slower at two
# threads than one: a descent is memory-bound and takes as long as an evaluation.)

cdef int _descend_shared(Shared* sh, Batch* batch, Leaf* leaf) noexcept nogil:
    """:func:`_descend` for a tree other threads search at the same time (the thread
    with ``batch``)."""
    cdef const PTree* t = sh.tree
    cdef Position pos
    pos.P = t.P
    pos.O = t.O
    cdef uint32_t n = 0, depth = 1
    cdef uint8_t flags
    cdef PNode* node = &t.nodes[0]
    leaf.path[0] = 0
    while True:
        flags = cy_atomic_load8(&node.flags)
        if flags & EXPANDED:
            n = _select(t, sh.params, n, batch)
            node = &t.nodes[n]
            play(&pos, node.move)
            leaf.path[depth] = n
            depth += 1
            continue
        if flags & PENDING:
            return COLLIDED
        if flags & TERMINAL:
            _add_path(t, batch, leaf.path, depth, 1, 0.0, node.minimax / <double>UNIT)
            if sh.params.minimax_weight > 0:
                _minimax_up(t, leaf.path, depth, node.minimax)
            return RESOLVED
        if cy_load_flag(&sh.full) and cy_atomic_load32(&node.visits):
            _add_path(t, batch, leaf.path, depth, 1, 0.0, node.value / node.visits)
            cy_atomic_or8(&node.flags, EXTRA_VISITS)
            return RESOLVED
        if legal_moves(pos.P, pos.O) == 0 and legal_moves(pos.O, pos.P) == 0:
            node.minimax = _result(pos.P, pos.O)
            cy_atomic_or8(&node.flags, TERMINAL)      # after its result: see above
            continue
        flags = cy_atomic_or8(&node.flags, PENDING)
        if flags & PENDING:
            return COLLIDED
        if flags & (EXPANDED | TERMINAL):   # another thread got here first, and finished
            cy_atomic_and8(&node.flags, <uint8_t>~PENDING)
            continue
        break
    _add_path(t, batch, leaf.path, depth, 1, -sh.params.virtual_loss, 0.0)   # virtual loss
    leaf.P = pos.P
    leaf.O = pos.O
    leaf.depth = depth
    return LEAF


cdef void _expand_shared(Shared* sh, Leaf* leaf, const float* logits,
                         float value) noexcept nogil:
    """:func:`_expand` for a tree other threads search at the same time."""
    cdef const PTree* t = sh.tree
    cdef uint32_t n = leaf.path[leaf.depth - 1]
    cdef uint64_t moves = legal_moves(leaf.P, leaf.O)
    cdef uint32_t k = count(moves) if moves else 1, first
    while True:
        first = cy_atomic_load32(&sh.size)
        if <uint64_t>first + k > sh.limit:
            if sh.limit >= sh.params.max_nodes:
                cy_store_flag(&sh.full, 1)
            else:
                cy_store_flag(&sh.done, 1)
            cy_atomic_or8(&t.nodes[n].flags, EXTRA_VISITS)
            cy_atomic_and8(&t.nodes[n].flags, <uint8_t>~PENDING)
            return
        if cy_atomic_cas32(&sh.size, first, first + k):
            break
    _fill_children(t, n, first, moves, logits,
                   sh.value_per_logit if sh.params.minimax_weight > 0 else -1.0, value)
    cy_atomic_or8(&t.nodes[n].flags, EXPANDED)         # publishes the children
    cy_atomic_and8(&t.nodes[n].flags, <uint8_t>~PENDING)


cdef void _add_path(const PTree* t, Batch* batch, const uint32_t* path, uint32_t depth,
                    uint32_t visits, double each, double value) noexcept nogil:
    """Add ``visits`` and ``each`` to every node of a path, and ``value`` to its leaf,
    flipped at each ply up (a virtual loss: 1, -loss, 0; a backup: 0 or 1, the loss
    taken back, the leaf's result): into the thread's ``batch``, marking each entry in
    its parent's, except the last VISIBLE_LOSS nodes and any the batch has no room for,
    which go into the tree at once."""
    cdef double v = value if (depth - 1) % 2 == 0 else -value      # the root's share
    cdef Pending* parent = NULL
    cdef Pending* p
    cdef uint32_t d, n
    for d in range(depth):
        n = path[d]
        p = NULL if d + VISIBLE_LOSS >= depth else pending_take(batch, n)
        if p == NULL:
            if visits:
                cy_atomic_add32(&t.nodes[n].visits, visits)
            cy_atomic_add_double(&t.nodes[n].value, each + v)
        else:
            p.visits += visits
            p.reward += each + v
            if parent != NULL:
                parent.children |= (<uint64_t>1) << (n - t.nodes[path[d - 1]].first_child)
        parent = p
        v = -v


cdef void _flush(const PTree* t, Batch* batch) noexcept nogil:
    """Add a thread's batch to the tree and empty it."""
    cdef uint32_t i
    cdef Pending* p
    for i in range(batch.used):
        p = &batch.slots[batch.order[i]]
        if p.visits:
            cy_atomic_add32(&t.nodes[p.node - 1].visits, p.visits)
        cy_atomic_add_double(&t.nodes[p.node - 1].value, p.reward)
        memset(p, 0, sizeof(Pending))
    batch.used = 0


cdef void _shared_worker(void* arg) noexcept nogil:
    """One thread of :meth:`PuctForest.run_shared`: simulations until the shared search
    is done (its budget, time or a full tree); the first thread to see the end tells the
    others."""
    cdef Shared* sh = <Shared*>arg
    cdef const PTree* t = sh.tree
    cdef Leaf leaf
    cdef float logits[65]
    cdef float value
    cdef int outcome
    cdef uint32_t k = 0
    cdef int64_t claimed = 0, leaves = 0, resolved = 0
    cdef Batch batch        # on the stack (some 50 KB): no allocation that could fail
    memset(&batch, 0, sizeof(Batch))
    while not cy_load_flag(&sh.done):
        k += 1
        if sh.seconds > 0 and (k & 15) == 0 and cy_monotonic() - sh.started >= sh.seconds:
            cy_store_flag(&sh.done, 1)
            break
        if sh.stop_when_full and cy_load_flag(&sh.full):
            cy_store_flag(&sh.done, 1)
            break
        if claimed == 0:
            claimed = min(<int64_t>CLAIM, sh.budget - cy_atomic_add64(&sh.claimed, CLAIM))
            if claimed <= 0:
                cy_store_flag(&sh.done, 1)
                break
        claimed -= 1
        if k % FLUSH_EVERY == 0:
            _flush(t, &batch)
        outcome = _descend_shared(sh, &batch, &leaf)
        if outcome == RESOLVED:
            resolved += 1
        if outcome != LEAF:
            continue        # a collision: another thread's leaf is waiting there
        answer_position(&sh.answer, leaf.P, leaf.O, logits, &value)
        _expand_shared(sh, &leaf, logits, value)
        _add_path(t, &batch, leaf.path, leaf.depth, 0, sh.params.virtual_loss, -value)
        if sh.params.minimax_weight > 0:
            _minimax_up(t, leaf.path, leaf.depth, _units(-value))
        leaves += 1
    _flush(t, &batch)
    cy_atomic_add64(&sh.leaves, leaves)
    cy_atomic_add64(&sh.resolved, resolved)


# -- implicit minimax (Lanctot et al. 2014) ----------------------------------------------
#
# With ``minimax_weight`` w > 0 a node also keeps the negamax of the evaluations below it
# (``minimax``, for the player whose move led into it): a leaf's is its evaluation, a
# finished game's its result, an expanded node's the best of its children's, negated.
# Its children are valued when it is expanded, from the evaluator's answer where that
# says what each move is worth (the shipped pattern evaluator's logits are the moves'
# evaluations; another evaluator's are a policy, and its children count once evaluated
# themselves).  Selection blends a visited child's mean with it: (1 - w) * mean + w *
# minimax, so a refutation found deep in a line counts at once instead of as one visit
# among many.  Several threads write it without a lock (a byte is written whole; a value
# another thread overwrites is written again by the next backup through the node).  Values
# are kept in UNITs (1/127 of a result) in the node's last byte, where a finished game
# keeps its result: the node stays 24 bytes.

cdef inline int8_t _result(uint64_t P, uint64_t O) noexcept nogil:
    """A finished game's result in UNITs for the player who moved into it (``O``'s
    player; ``P`` is to move)."""
    cdef int diff = final_disc_difference(P, O)
    return -UNIT if diff > 0 else UNIT if diff < 0 else 0


cdef inline int8_t _units(double value) noexcept nogil:
    """A value in [-1, 1] (beyond: clipped) in UNITs, rounded to the nearest."""
    if value >= 1.0:
        return UNIT
    if value <= -1.0:
        return -UNIT
    return <int8_t>lrint(value * UNIT)


cdef int8_t _negamax(const PTree* t, const PNode* node, int8_t own) noexcept nogil:
    """The best of ``node``'s valued children's minimax values, negated; ``own``
    when it has none."""
    cdef uint32_t c
    cdef int best = -UNIT - 1
    if cy_atomic_load8(&node.flags) & EXPANDED:
        for c in range(node.first_child, node.first_child + node.num_children):
            if cy_atomic_load8(&t.nodes[c].flags) & VALUED and t.nodes[c].minimax > best:
                best = t.nodes[c].minimax
    return <int8_t>-best if best >= -UNIT else own


cdef void _minimax_up(const PTree* t, const uint32_t* path, uint32_t depth,
                      int8_t own) noexcept nogil:
    """Value the path's leaf (``own``: its evaluation or result, for the player whose
    move led into it, unless its children are valued) and carry the change up the path,
    to the first node it leaves unchanged."""
    cdef int d = <int>depth - 1
    cdef PNode* node = &t.nodes[path[d]]
    cdef int8_t m = _negamax(t, node, own)
    while True:
        if cy_atomic_load8(&node.flags) & VALUED and node.minimax == m:
            return
        node.minimax = m
        cy_atomic_or8(&node.flags, VALUED)
        d -= 1
        if d < 0:
            return
        node = &t.nodes[path[d]]
        m = _negamax(t, node, node.minimax)


cdef void _backup(PTree* t, uint32_t* path, uint32_t depth, double value, double restore,
                  bint add_visit) noexcept nogil:
    """Add ``value`` (for the player whose move led into the leaf) up the path, flipping
    it at each ply; ``restore`` takes back a virtual loss, ``add_visit`` counts the visit
    (a leaf scored at once had none counted yet)."""
    cdef int d
    for d in range(<int>depth - 1, -1, -1):
        t.nodes[path[d]].value += restore + value
        if add_visit:
            t.nodes[path[d]].visits += 1
        value = -value


cdef uint32_t _recycle_threshold(PTree* t, uint64_t target) noexcept nogil:
    """The least power of two T such that the root's children and those of every other
    node with at least T visits number ``target`` at most (at least 1 node: the root)."""
    cdef uint64_t children[33]
    cdef uint32_t n
    cdef int b
    for b in range(33):
        children[b] = 0
    for n in range(1, t.size):
        if t.nodes[n].flags & EXPANDED:
            children[visit_bucket(t.nodes[n].visits)] += t.nodes[n].num_children
    b = lowest_fitting_bucket(
        children, 1 + (t.nodes[0].num_children if t.nodes[0].flags & EXPANDED else 0), target)
    return 0xFFFFFFFF if b == 32 else (<uint32_t>1) << b


cdef inline bint _is_kept(const uint64_t* kept, uint32_t n) noexcept nogil:
    return (kept[n >> 6] >> (n & 63)) & 1


cdef inline uint32_t _rank(const uint64_t* kept, const uint32_t* before, uint32_t n) noexcept nogil:
    """Kept nodes before ``n``: its index once the tree is compacted."""
    return before[n >> 6] + count(kept[n >> 6] & (((<uint64_t>1) << (n & 63)) - 1))


cdef bint _compact(PTree* t, uint32_t first, uint32_t threshold) noexcept nogil:
    """Keep node ``first`` as the root and, below it, the children of the nodes with
    ``threshold`` visits or more (all of them at 0; the root's always), compacting the
    tree in place; an expanded node that loses its children becomes a leaf again with
    its visits and value.  Children blocks come after their parents, so one pass in
    index order marks the nodes kept and another moves each one down to its rank (never
    onto a node not yet moved); the only other memory is a bit a node.  False when that
    bitmap could not be allocated (the tree unchanged)."""
    cdef uint32_t n, c, words = (t.size + 63) // 64, w, size
    cdef uint64_t* kept = <uint64_t*>calloc(words, sizeof(uint64_t))
    cdef uint32_t* before = <uint32_t*>malloc(words * sizeof(uint32_t))
    cdef PNode* node
    if kept == NULL or before == NULL:
        free(kept)
        free(before)
        return False
    kept[first >> 6] |= (<uint64_t>1) << (first & 63)
    for n in range(first, t.size):
        node = &t.nodes[n]
        if _is_kept(kept, n) and node.flags & EXPANDED and (
                n == first or node.visits >= threshold):
            for c in range(node.first_child, node.first_child + node.num_children):
                kept[c >> 6] |= (<uint64_t>1) << (c & 63)
    size = 0
    for w in range(words):
        before[w] = size
        size += count(kept[w])
    for n in range(first, t.size):
        if not _is_kept(kept, n):
            continue
        node = &t.nodes[n]
        if node.flags & EXPANDED:
            if n == first or node.visits >= threshold:
                node.first_child = _rank(kept, before, node.first_child)
            else:
                node.flags = (node.flags & ~EXPANDED) | EXTRA_VISITS
                node.first_child = 0
                node.num_children = 0
        c = _rank(kept, before, n)
        if c != n:
            t.nodes[c] = node[0]
    free(kept)
    free(before)
    t.size = size
    t.full = False
    return True
