# The solver's parallel search (part of ``_solver_impl.pxi``, which includes it, after the
# search context): young brothers wait (Feldmann et al.).  A node's first move is searched
# alone; then idle helper threads may take its other moves from a split point.  A thread
# whose split point waits for the helpers still on its moves helps them in turn (the
# "helpful master"), at the split points they open below it.

cdef void _publish(Workers* w, SplitPoint* sp) noexcept nogil:
    if w.n_open < MAX_OPEN:
        w.open[w.n_open] = sp
        w.n_open += 1
        cy_cond_broadcast(&w.wake)
        cy_cond_broadcast(&w.done)    # a master waiting above it may help (_split)


cdef SplitPoint* _open_below(Workers* w, SplitPoint* sp) noexcept nogil:
    """The newest open split point under ``sp`` (NULL: none; lock held)."""
    cdef int i
    cdef SplitPoint* up
    for i in range(w.n_open - 1, -1, -1):
        up = w.open[i].parent
        while up != NULL:
            if up == sp:
                return w.open[i]
            up = up.parent
    return NULL


cdef void _retire(Workers* w, SplitPoint* sp) noexcept nogil:
    """Take a split point off the open list (no more moves to hand out)."""
    cdef int i
    for i in range(w.n_open):
        if w.open[i] == sp:
            w.n_open -= 1
            w.open[i] = w.open[w.n_open]
            return


cdef int _take(Workers* w, SplitPoint* sp) noexcept nogil:
    """The index of a move of ``sp`` nobody searches yet, or -1 (lock held)."""
    cdef int i
    if sp.cutoff or w.abort or sp.next >= sp.n:
        _retire(w, sp)
        return -1
    i = sp.next
    sp.next += 1
    if sp.next >= sp.n:
        _retire(w, sp)
    return i


cdef void _search_move(Context* ctx, SplitPoint* sp, int i) noexcept nogil:
    """Search move ``i`` of ``sp`` and report it (takes the lock to report)."""
    cdef int v = -_nws(ctx, sp.O ^ sp.flipped[i],
                       sp.P | sp.flipped[i] | ((<uint64_t>1) << sp.squares[i]),
                       -sp.alpha - 1, sp.empties - 1)
    cdef Workers* w = ctx.workers
    cy_mutex_lock(&w.lock)
    if not ctx.aborted and v > sp.best:
        sp.best = v
        sp.best_move = sp.squares[i]
        if v > sp.alpha:
            sp.cutoff = 1
            _retire(w, sp)
    cy_mutex_unlock(&w.lock)


cdef void _work_at(Context* ctx, SplitPoint* sp, int i) noexcept nogil:
    """Search move ``i`` of another thread's split point ``sp`` as one of its workers (the
    lock held on entry and on return, released while searching)."""
    cdef Workers* w = ctx.workers
    sp.workers += 1
    cy_mutex_unlock(&w.lock)
    ctx.sp = sp
    ctx.aborted = w.abort
    _search_move(ctx, sp, i)
    cy_mutex_lock(&w.lock)
    sp.workers -= 1
    if sp.workers == 0:
        cy_cond_broadcast(&w.done)


cdef void _split(Context* ctx, uint64_t P, uint64_t O, int alpha, int empties, int* squares,
                 uint64_t* flipped, int n, int* best, int* best_move) noexcept nogil:
    """Search the ``n`` moves left at a node with idle helpers; ``best``/``best_move``
    come in as what the first move found and go out as the best of all."""
    cdef SplitPoint sp
    cdef Workers* w = ctx.workers
    cdef SplitPoint* above = ctx.sp
    cdef SplitPoint* below
    cdef int i
    sp.P = P
    sp.O = O
    sp.alpha = alpha
    sp.empties = empties
    sp.n = n
    sp.next = 0
    for i in range(n):
        sp.squares[i] = squares[i]
        sp.flipped[i] = flipped[i]
    sp.best = best[0]
    sp.best_move = best_move[0]
    sp.cutoff = 0
    sp.workers = 0
    sp.parent = above
    ctx.sp = &sp
    cy_mutex_lock(&w.lock)
    _publish(w, &sp)
    while True:                         # the master searches moves too, then waits
        i = _take(w, &sp)
        if i < 0:
            break
        cy_mutex_unlock(&w.lock)
        _search_move(ctx, &sp, i)
        cy_mutex_lock(&w.lock)
    _retire(w, &sp)
    while sp.workers > 0:
        # Helpful master: rather than wait for the helpers still searching its moves, it
        # takes moves of split points they opened below it.
        below = NULL if sp.cutoff or w.abort else _open_below(w, &sp)
        if below == NULL:
            w.idle += 1               # so that the helpers open split points for it
            cy_cond_wait(&w.done, &w.lock)
            w.idle -= 1
            continue
        i = _take(w, below)
        if i < 0:
            continue
        _work_at(ctx, below, i)
    cy_mutex_unlock(&w.lock)
    ctx.sp = above
    # Unwind only for the abort or a cut-off further up: they may have cut a move short
    # (a helper's, before this thread noticed), and the incomplete result must not reach
    # the table as a bound.  This split point's own cut-off (its best move refutes the
    # node), or one below it where this thread helped, ends nothing above.
    ctx.aborted = w.abort or _cut_above(above)
    best[0] = sp.best
    best_move[0] = sp.best_move


cdef void _helper(void* arg) noexcept nogil:
    """A helper thread: search moves of open split points until the solve ends."""
    cdef Context ctx = (<Context*>arg)[0]        # the master's settings, a fresh count
    cdef Workers* w = ctx.workers
    cdef SplitPoint* sp
    cdef int i
    ctx.nodes = 0
    ctx.reported = 0
    ctx.next_check = 0
    ctx.sp = NULL
    cy_mutex_lock(&w.lock)
    while True:
        while not w.quit and w.n_open == 0:
            w.idle += 1
            cy_cond_wait(&w.wake, &w.lock)
            w.idle -= 1
        if w.quit:
            break
        sp = w.open[w.n_open - 1]                # the newest: the deepest, cheapest
        i = _take(w, sp)
        if i < 0:
            continue
        _work_at(&ctx, sp, i)
    w.nodes += ctx.nodes
    cy_mutex_unlock(&w.lock)
