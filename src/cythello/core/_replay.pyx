# cython: language_level=3
"""Many games replayed at once, in C: each game is a start position and its moves without
passes (as WTHOR files and transcripts keep them), one row of squares padded with ``END``.

A pass is put in where the side to move has no legal move and the other side has one; a
move that is not legal then (or a move after the game is over) stops that game's replay.
The same walk gives the positions a games database indexes: the position before each move
(a forced pass already played), as seen by the side about to move, keyed up to the 8
symmetries.  Everything runs without the GIL; the callers pass contiguous NumPy arrays
and get NumPy arrays back."""
import numpy as np

from libc.stdint cimport uint8_t, int16_t, uint32_t, int64_t, uint64_t

from cythello.core._rules cimport legal_moves, count, next_position, Position
from cythello.core._symmetry cimport canonical

cdef enum:
    C_END = 255                 # the padding after a game's last move
    C_PASS = 64                 # a pass, in the rows with passes put in
    C_MAX_WITH_PASSES = 120     # 60 moves, and at most one pass before each
    C_PLY_BITS = 6              # an index entry is game << PLY_BITS | move number (0-59)

END = C_END
PASS = C_PASS
MAX_WITH_PASSES = C_MAX_WITH_PASSES
PLY_BITS = C_PLY_BITS
MAX_GAMES = 1 << (32 - C_PLY_BITS)


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    """SplitMix64's finaliser: every bit of the input moves about half the output's."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _key(uint64_t P, uint64_t O) noexcept nogil:
    """The 64-bit key of a position up to symmetry (the side owning ``P`` to move)."""
    cdef uint64_t p, o
    cdef int k
    canonical(P, O, &p, &o, &k)
    return _mix(p ^ _mix(o ^ 0x9E3779B97F4A7C15ULL))


cdef inline int _before_move(Position* pos, int* colour) noexcept nogil:
    """Play the forced pass before a move, if there is one: 1 if a pass was played, 0 if
    the side to move has a move, -1 if the game is over."""
    cdef uint64_t t
    if legal_moves(pos.P, pos.O):
        return 0
    if legal_moves(pos.O, pos.P):
        t = pos.P
        pos.P = pos.O
        pos.O = t
        colour[0] ^= 1
        return 1
    return -1


def _start_arrays(moves, black, white, turn):
    moves = np.ascontiguousarray(moves, dtype=np.uint8)
    if moves.ndim != 2 or moves.shape[1] != 60:
        raise ValueError(f"moves must be an (N, 60) array of squares, not shape {moves.shape}")
    n = moves.shape[0]
    black = np.ascontiguousarray(black, dtype=np.uint64)
    white = np.ascontiguousarray(white, dtype=np.uint64)
    turn = np.ascontiguousarray(turn, dtype=np.uint8)
    if not black.shape == white.shape == turn.shape == (n,):
        raise ValueError("the start arrays (black, white, turn) need one entry a game")
    if np.any(black & white) or np.any(turn > 1):
        raise ValueError("a start position has a square of both colours or a turn not 0/1")
    return moves, black, white, turn


def replay(moves, black, white, turn, bint passes=False):
    """Replay every game: a dict of arrays, one entry a game --

    * ``played``: how many of its moves were legal, in order (all of them when the game is
      sound);
    * ``illegal``: its replay stopped at a move that was not legal (``moves[g, played]``,
      also a move after the game had ended or a square number out of range);
    * ``over``: the game is over after its last legal move;
    * ``black_discs``, ``white_discs``: the discs after the last legal move;
    * with ``passes``: ``with_passes`` (N, 120), the legal moves with every forced pass
      put in (``PASS``), ``END`` after the last, and ``length``, how many of those.
    """
    moves, black, white, turn = _start_arrays(moves, black, white, turn)
    cdef Py_ssize_t n = moves.shape[0], g
    played_a = np.zeros(n, np.int16)
    illegal_a = np.zeros(n, np.bool_)
    over_a = np.zeros(n, np.bool_)
    bd_a = np.zeros(n, np.uint8)
    wd_a = np.zeros(n, np.uint8)
    out_a = np.full((n if passes else 0, MAX_WITH_PASSES), END, np.uint8)
    length_a = np.zeros(n, np.int16)
    cdef const uint8_t[:, ::1] mv = moves
    cdef const uint64_t[::1] b0 = black, w0 = white
    cdef const uint8_t[::1] t0 = turn
    cdef int16_t[::1] played = played_a, length = length_a
    cdef uint8_t[::1] illegal = illegal_a.view(np.uint8), over = over_a.view(np.uint8)
    cdef uint8_t[::1] bd = bd_a, wd = wd_a
    cdef uint8_t[:, ::1] out = out_a
    cdef bint keep = passes
    cdef Position pos
    cdef uint64_t t
    cdef int colour, i, sq, state, k
    with nogil:
        for g in range(n):
            colour = t0[g]
            pos.P = w0[g] if colour else b0[g]
            pos.O = b0[g] if colour else w0[g]
            k = 0
            i = 0
            while i < 60:
                sq = mv[g, i]
                if sq == C_END:
                    break
                state = _before_move(&pos, &colour)
                if state < 0 or sq >= 64 or not (legal_moves(pos.P, pos.O) >> sq) & 1:
                    illegal[g] = 1
                    if state == 1:           # the pass was not part of the game
                        t = pos.P
                        pos.P = pos.O
                        pos.O = t
                        colour ^= 1
                    break
                if state == 1 and keep:
                    out[g, k] = C_PASS
                    k += 1
                pos = next_position(pos.P, pos.O, sq)
                colour ^= 1
                if keep:
                    out[g, k] = sq
                    k += 1
                i += 1
            played[g] = i
            length[g] = k
            over[g] = legal_moves(pos.P, pos.O) == 0 and legal_moves(pos.O, pos.P) == 0
            bd[g] = count(pos.O if colour else pos.P)
            wd[g] = count(pos.P if colour else pos.O)
    result = {"played": played_a, "illegal": illegal_a, "over": over_a,
              "black_discs": bd_a, "white_discs": wd_a}
    if passes:
        result["with_passes"] = out_a
        result["length"] = length_a
    return result


def position_keys(moves, black, white, turn, played):
    """``(keys, entries)`` for the position before each of the first ``played[g]`` moves of
    every game (a forced pass already played; the side about to move owns ``P``): the
    position's key up to symmetry, and ``g << PLY_BITS | i`` for move ``i`` of game ``g``."""
    moves, black, white, turn = _start_arrays(moves, black, white, turn)
    played = np.ascontiguousarray(played, dtype=np.int16)
    cdef Py_ssize_t n = moves.shape[0], g, at = 0
    if n > MAX_GAMES:
        raise ValueError(f"at most {MAX_GAMES:,} games can be indexed, not {n:,}")
    if played.shape != (n,) or np.any(played < 0) or np.any(played > 60):
        raise ValueError("played needs one count of 0-60 a game")
    cdef int64_t total = int(played.sum())
    keys_a = np.empty(total, np.uint64)
    entries_a = np.empty(total, np.uint32)
    cdef const uint8_t[:, ::1] mv = moves
    cdef const uint64_t[::1] b0 = black, w0 = white
    cdef const uint8_t[::1] t0 = turn
    cdef const int16_t[::1] pl = played
    cdef uint64_t[::1] keys = keys_a
    cdef uint32_t[::1] entries = entries_a
    cdef Position pos
    cdef int colour, i, sq
    with nogil:
        for g in range(n):
            colour = t0[g]
            pos.P = w0[g] if colour else b0[g]
            pos.O = b0[g] if colour else w0[g]
            for i in range(pl[g]):
                sq = mv[g, i]
                _before_move(&pos, &colour)
                keys[at] = _key(pos.P, pos.O)
                entries[at] = <uint32_t>((g << C_PLY_BITS) | i)
                at += 1
                if sq >= 64:                 # not a sound game: the caller's played lied
                    break
                pos = next_position(pos.P, pos.O, sq)
                colour ^= 1
    if at != total:
        raise ValueError("played counts more moves than the games have")
    return keys_a, entries_a


def positions_at(moves, black, white, turn, games, plies):
    """``(own, opp, colour)``: the position before move ``plies[j]`` of game ``games[j]``
    (a forced pass already played), the side about to move owning ``own`` and having the
    colour ``colour``.  The moves before it must be legal (replay's ``played``)."""
    moves, black, white, turn = _start_arrays(moves, black, white, turn)
    games = np.ascontiguousarray(games, dtype=np.int64)
    plies = np.ascontiguousarray(plies, dtype=np.int16)
    cdef Py_ssize_t n = moves.shape[0], m = games.shape[0], j
    if plies.shape != games.shape or games.ndim != 1:
        raise ValueError("games and plies need the same length")
    if m and (games.min() < 0 or games.max() >= n or plies.min() < 0 or plies.max() > 60):
        raise ValueError("a game number or move number is out of range")
    own_a = np.empty(m, np.uint64)
    opp_a = np.empty(m, np.uint64)
    colour_a = np.empty(m, np.uint8)
    cdef const uint8_t[:, ::1] mv = moves
    cdef const uint64_t[::1] b0 = black, w0 = white
    cdef const uint8_t[::1] t0 = turn
    cdef const int64_t[::1] gs = games
    cdef const int16_t[::1] ps = plies
    cdef uint64_t[::1] own = own_a, opp = opp_a
    cdef uint8_t[::1] col = colour_a
    cdef Position pos
    cdef int colour, i, sq
    cdef int64_t g
    cdef bint bad = False
    with nogil:
        for j in range(m):
            g = gs[j]
            colour = t0[g]
            pos.P = w0[g] if colour else b0[g]
            pos.O = b0[g] if colour else w0[g]
            for i in range(ps[j]):
                sq = mv[g, i]
                _before_move(&pos, &colour)
                if sq >= 64 or not (legal_moves(pos.P, pos.O) >> sq) & 1:
                    bad = True
                    break
                pos = next_position(pos.P, pos.O, sq)
                colour ^= 1
            _before_move(&pos, &colour)
            own[j] = pos.P
            opp[j] = pos.O
            col[j] = colour
    if bad:
        raise ValueError("a position was asked for past an illegal move of its game")
    return own_a, opp_a, colour_a


def position_key(uint64_t own, uint64_t opp):
    """The key ``position_keys`` gives the position (``own``: the side to move's discs)."""
    return _key(own, opp)
