# cython: language_level=3
"""Stable discs (see ``_stability.pxd``): an edge table built at import by dynamic
programming over all edge configurations, then full lines and stable neighbours."""
from libc.stdint cimport uint8_t, uint64_t

from cythello.core._rules cimport count
from cythello.core._board cimport Board

# EDGE_STABLE[p][o]: the discs of ``p`` on an 8-square edge (bit i = square i of the edge)
# that no sequence of placements on that edge can flip.  An edge disc can only be flipped
# along its edge (it ends every other line through it), so edge stability is exact.
cdef uint8_t EDGE_STABLE[256][256]
cdef uint64_t A_FILE[256]         # an 8-bit column pattern spread onto file a (bit r -> 8r)

cdef uint64_t CENTRAL = 0x007E7E7E7E7E7E00ULL


cdef int _line_flips(int p, int o, int x) noexcept:
    """Discs of ``o`` flipped on an 8-square line when ``p`` places at ``x``."""
    cdef int f = 0, run, y, step
    for step in range(-1, 2, 2):
        run = 0
        y = x + step
        while 0 <= y < 8 and (o >> y) & 1:
            run |= 1 << y
            y += step
        if 0 <= y < 8 and (p >> y) & 1:
            f |= run
    return f


cdef void _init_edges() noexcept:
    # Fill configurations by number of empty squares, fewest first: each placement leads to
    # a configuration with one empty square fewer, already known.
    cdef int empties, p, o, x, f, stable, np_, no
    for empties in range(9):
        for p in range(256):
            for o in range(256):
                if p & o or 8 - count(p | o) != empties:
                    continue
                stable = p
                for x in range(8):
                    if (p | o) >> x & 1:
                        continue
                    f = _line_flips(p, o, x)              # p plays x
                    np_ = p | f | (1 << x)
                    no = o & ~f
                    stable &= EDGE_STABLE[np_][no]
                    f = _line_flips(o, p, x)              # o plays x
                    np_ = p & ~f
                    no = o | f | (1 << x)
                    stable &= EDGE_STABLE[np_][no]
                    if not stable:
                        break
                EDGE_STABLE[p][o] = stable


cdef void _init_lines() noexcept:
    cdef int bits, r
    cdef uint64_t m
    for bits in range(256):
        m = 0
        for r in range(8):
            if bits >> r & 1:
                m |= (<uint64_t>1) << (8 * r)
        A_FILE[bits] = m


_init_edges()
_init_lines()


cdef inline uint64_t _file_bits(uint64_t b, int column) noexcept nogil:
    """The 8 squares of a file as bits 0-7 (bit r = row r)."""
    return (((b >> column) & 0x0101010101010101ULL) * 0x0102040810204080ULL) >> 56


cdef inline uint64_t _full_run_up(uint64_t occ, int s, uint64_t end1, uint64_t end2,
                                  uint64_t end4) noexcept nogil:
    """The occupied squares from which every square onward in the direction of shift ``s``
    (toward higher indices) is occupied, to the board's edge.  ``end1``, ``end2``, ``end4``:
    the squares with no square 1, 2, 4 steps onward.  Each step doubles the run checked."""
    occ &= (occ >> s) | end1
    occ &= (occ >> (2 * s)) | end2
    return occ & ((occ >> (4 * s)) | end4)


cdef inline uint64_t _full_run_down(uint64_t occ, int s, uint64_t end1, uint64_t end2,
                                    uint64_t end4) noexcept nogil:
    """As _full_run_up, toward lower indices."""
    occ &= (occ << s) | end1
    occ &= (occ << (2 * s)) | end2
    return occ & ((occ << (4 * s)) | end4)


cdef uint64_t stable_discs(uint64_t P, uint64_t O) noexcept nogil:
    cdef uint64_t occ = P | O, stable, old, full_h, full_v, full_d9, full_d7, t
    cdef uint64_t inner = P & CENTRAL
    stable = EDGE_STABLE[P & 0xFF][O & 0xFF]
    stable |= (<uint64_t>EDGE_STABLE[P >> 56][O >> 56]) << 56
    stable |= A_FILE[EDGE_STABLE[_file_bits(P, 0)][_file_bits(O, 0)]]
    stable |= A_FILE[EDGE_STABLE[_file_bits(P, 7)][_file_bits(O, 7)]] << 7
    if not inner:
        return stable
    # Full lines: a disc on a full line cannot be flipped along it.
    t = occ & (occ >> 1) & 0x7F7F7F7F7F7F7F7FULL
    t &= (t >> 2) & 0x3F3F3F3F3F3F3F3FULL
    t &= (t >> 4) & 0x0F0F0F0F0F0F0F0FULL
    full_h = (t & 0x0101010101010101ULL) * 0xFF
    t = occ & (occ >> 8)
    t &= t >> 16
    t &= t >> 32
    full_v = (t & 0xFF) * 0x0101010101010101ULL
    # A diagonal is full where the runs both ways from a square are (no loop over the
    # diagonals: which are full is too random for the branch predictor).
    full_d9 = _full_run_up(occ, 9, 0xFF80808080808080ULL, 0xFFFFC0C0C0C0C0C0ULL,
                           0xFFFFFFFFF0F0F0F0ULL) & _full_run_down(
        occ, 9, 0x01010101010101FFULL, 0x030303030303FFFFULL, 0x0F0F0F0FFFFFFFFFULL)
    full_d7 = _full_run_up(occ, 7, 0xFF01010101010101ULL, 0xFFFF030303030303ULL,
                           0xFFFFFFFF0F0F0F0FULL) & _full_run_down(
        occ, 7, 0x80808080808080FFULL, 0xC0C0C0C0C0C0FFFFULL, 0xF0F0F0F0FFFFFFFFULL)
    stable |= inner & full_h & full_v & full_d9 & full_d7
    # Then grow: a disc is safe along a line when the line is full or a neighbour on it is
    # a stable disc of its colour (any bracket would have to flip that neighbour too).
    while True:
        old = stable
        t = (((stable >> 1) | (stable << 1) | full_h) & ((stable >> 8) | (stable << 8) | full_v)
             & ((stable >> 9) | (stable << 9) | full_d9) & ((stable >> 7) | (stable << 7) | full_d7))
        stable |= t & inner
        if stable == old:
            return stable


def stable_squares(Board board not None, color=None):
    """Bitboard of the stable discs of ``color`` (default: the side to move)."""
    if color is not None and color not in (0, 1):
        raise ValueError(f"color must be BLACK (0), WHITE (1) or None, not {color!r}")
    own, opp = board.position()
    if color is not None and color != board.turn:
        own, opp = opp, own
    return stable_discs(own, opp)
