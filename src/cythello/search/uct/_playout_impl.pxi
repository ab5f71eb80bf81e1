# The playout policies, included by two modules: ``_rollout`` (portable build, the one
# every other module cimports) and ``_rollout_v3`` (the same code built for x86-64-v3,
# loaded only on CPUs that have AVX2, BMI1/2 and POPCNT).
#
# ``_playout_loop`` plays a game to its end and returns the final disc difference (empties
# to the winner) for the side to move at the start; with ``placed`` (else NULL) it also
# gives the squares each side played: [0] the side to move at the start, [1] the other
# (what RAVE's all-moves-as-first statistics need).  The heuristic policy is the classic
# Othello rollout prior: a weighted random choice in which corners are strongly preferred,
# edges mildly, moves that open few new frontier squares ("quiet" moves, which keep the
# opponent's mobility down) are preferred, and the X- and C-squares next to an empty
# corner are avoided.
from libc.stdint cimport uint64_t
from cythello.core._rules cimport (
    legal_moves, count, first_square, final_disc_difference, corner_danger, next_position,
    Position, CY_CORNER_ZONE,
)
from cythello.core._rng cimport Rng, rng_below
from cythello.search.uct._policies cimport ROLLOUT_RANDOM, ROLLOUT_HEURISTIC

cdef int BASE_WEIGHT[64]        # weight of a square when no empty corner makes it dangerous
cdef int NEAR_EMPTY_CORNER[64]  # weight of an X- or C-square while its corner is empty
cdef uint64_t NEIGHBOURS[64]    # the up to 8 squares around each square


cdef void _init_tables() noexcept:
    cdef int sq, r, c, dr, dc, k, rr, cc
    cdef bint edge_r, edge_c
    cdef uint64_t m
    for sq in range(64):
        r = sq // 8
        c = sq % 8
        edge_r = r == 0 or r == 7
        edge_c = c == 0 or c == 7
        if edge_r and edge_c:
            BASE_WEIGHT[sq] = 400                  # corner: never lost again
        elif edge_r or edge_c:
            BASE_WEIGHT[sq] = 40                   # edge
        else:
            BASE_WEIGHT[sq] = 16                   # inner
        NEAR_EMPTY_CORNER[sq] = BASE_WEIGHT[sq]
        m = 0
        for dr in range(-1, 2):
            for dc in range(-1, 2):
                rr = r + dr
                cc = c + dc
                if (dr or dc) and 0 <= rr < 8 and 0 <= cc < 8:
                    m |= (<uint64_t>1) << (rr * 8 + cc)
        NEIGHBOURS[sq] = m
    for k in range(4):
        m = CY_CORNER_ZONE[k]
        while m:
            sq = first_square(m)
            m &= m - 1
            r = sq // 8
            c = sq % 8
            # X-square (diagonal to the corner) is worse than a C-square (beside it).
            NEAR_EMPTY_CORNER[sq] = 1 if (r != 0 and r != 7 and c != 0 and c != 7) else 3

_init_tables()


cdef int pick_move(uint64_t P, uint64_t O, uint64_t moves, int policy, Rng* rng) noexcept nogil:
    """One move from the non-empty mask ``moves`` under ``policy``."""
    cdef int n, k, sq, total, w
    cdef int weights[64]
    cdef int squares[64]
    cdef uint64_t danger, empty, m
    if policy == ROLLOUT_RANDOM:
        k = <int>rng_below(rng, <unsigned int>count(moves))
        while k:
            moves &= moves - 1
            k -= 1
        return first_square(moves)
    empty = ~(P | O)
    danger = corner_danger(empty)
    n = 0
    total = 0
    m = moves
    while m:
        sq = first_square(m)
        m &= m - 1
        w = NEAR_EMPTY_CORNER[sq] if (danger >> sq) & 1 else BASE_WEIGHT[sq]
        # Quiet moves (few empty neighbours) give the opponent fewer new moves.
        w = w * 4 // (2 + count(NEIGHBOURS[sq] & empty))
        if w < 1:
            w = 1
        total += w
        weights[n] = total
        squares[n] = sq
        n += 1
    w = <int>rng_below(rng, <unsigned int>total)
    k = 0
    while weights[k] <= w:
        k += 1
    return squares[k]


cdef int _playout_loop(uint64_t P, uint64_t O, int policy, Rng* rng,
                       uint64_t* placed) noexcept nogil:
    cdef int sign = 1, sq
    cdef uint64_t moves = legal_moves(P, O), t
    cdef Position after
    while True:
        if moves == 0:
            moves = legal_moves(O, P)
            if moves == 0:
                break
            t = P
            P = O
            O = t
            sign = -sign
            continue
        sq = pick_move(P, O, moves, policy, rng)
        if placed != NULL:
            placed[sign < 0] |= (<uint64_t>1) << sq
        after = next_position(P, O, sq)
        P = after.P
        O = after.O
        sign = -sign
        moves = legal_moves(P, O)
    return sign * final_disc_difference(P, O)


# The playout crosses from the v3 build to the portable one in a capsule whose name carries
# the signature, so a mismatched pair of builds fails to load instead of crashing.
cdef const char* PLAYOUT_CAPSULE = (
    b"cythello.search.uct._playout_impl.playout: int (uint64_t, uint64_t, int, Rng*, uint64_t*)")
