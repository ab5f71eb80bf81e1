# cython: language_level=3, boundscheck=False, wraparound=False
"""``VectorOthello``: many Othello boards stepped at once in C, NumPy in and out, for
reinforcement learning (the layout of EnvPool's and Pgx's vectorised environments)."""
import numpy as np

from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from cythello.core._rules cimport (
    legal_moves, final_disc_difference, count, Position, next_position, PASS_MOVE,
)
from cythello.core._rng cimport Rng, rng_seed, rng_below
from cythello.core._planes cimport write_planes, write_legal
from cythello.core._board import Board
from cythello.errors import IllegalMoveError, SettingsError
from cythello._checks import random_seed
from cythello.squares import square_name

cdef uint64_t START_BLACK = ((<uint64_t>1) << 28) | ((<uint64_t>1) << 35)   # e4, d5
cdef uint64_t START_WHITE = ((<uint64_t>1) << 27) | ((<uint64_t>1) << 36)   # d4, e5

cdef class VectorOthello:
    """``n`` boards, each a game from the start (after ``random_plies`` random moves, drawn
    from ``seed``), stepped together.

    ``reset()`` gives ``(observations, legal)``; ``step(actions)`` plays one action per
    board (0-63 a square, 64 a pass, legal only when the side to move has no placement)
    and gives ``(observations, legal, rewards, dones)``.  Observations are ``(n, 2, 8, 8)``
    float32 planes, the side to move's discs first (as ``Board.planes``); ``legal`` is an
    ``(n, 65)`` bool mask.  ``rewards`` are for the player who made the move: +1, -1 or 0
    when it ended the game, else 0.  A finished board starts a new game at once (its
    observation is the new game's) and ``dones`` says so.  ``turn`` (0 black, 1 white) is
    who is to move on each board."""

    cdef readonly int n
    cdef readonly int random_plies
    cdef uint64_t[::1] own
    cdef uint64_t[::1] opp
    cdef uint8_t[::1] _turn
    cdef Rng rng

    def __cinit__(self, n, seed=None, random_plies=0):
        if isinstance(n, bool) or not isinstance(n, int) or not 1 <= n <= 1 << 24:
            raise SettingsError(f"n must be an int from 1 to {1 << 24}, not {n!r}")
        if isinstance(random_plies, bool) or not isinstance(random_plies, int) \
                or not 0 <= random_plies <= 60:
            raise SettingsError(f"random_plies must be an int from 0 to 60, not {random_plies!r}")
        self.n = n
        self.random_plies = random_plies
        self.own = np.zeros(n, dtype=np.uint64)
        self.opp = np.zeros(n, dtype=np.uint64)
        self._turn = np.zeros(n, dtype=np.uint8)
        self._seed(seed)
        self._start_all()

    def _seed(self, seed):
        if seed is None:
            seed = random_seed()
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise SettingsError(f"seed must be an int or None, not {seed!r}")
        rng_seed(&self.rng, <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF))

    def __len__(self):
        return self.n

    @property
    def turn(self):
        """Who is to move on each board: 0 black, 1 white (a copy)."""
        return np.asarray(self._turn).copy()

    def board(self, i):
        """Board ``i`` as a :class:`cythello.Board` (without its move history)."""
        if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < self.n:
            raise IndexError(f"board index {i!r} out of range 0-{self.n - 1}")
        black, white = ((self.own[i], self.opp[i]) if self._turn[i] == 0
                        else (self.opp[i], self.own[i]))
        return Board.from_bitboards(int(black), int(white), int(self._turn[i]))

    def reset(self, seed=None):
        """Start every board afresh (re-seeded when ``seed`` is given); returns
        ``(observations, legal)``."""
        if seed is not None:
            self._seed(seed)
        self._start_all()
        return self._observe()

    def step(self, actions):
        """One action per board; returns ``(observations, legal, rewards, dones)``.  An
        illegal action raises :class:`~cythello.IllegalMoveError` naming the board, and
        then no board has moved."""
        cdef const int64_t[::1] a
        given = np.asarray(actions)
        if given.dtype.kind not in "iu":          # no floats cut to ints, no bools
            raise TypeError(f"actions must be {self.n} ints 0-64, not {given.dtype}")
        try:
            arr = np.ascontiguousarray(given, dtype=np.int64)
        except (TypeError, ValueError, OverflowError):
            raise TypeError(f"actions must be {self.n} ints 0-64") from None
        if arr.shape != (self.n,):
            raise ValueError(f"actions must have shape ({self.n},), not {arr.shape}")
        a = arr
        cdef int bad = self._first_illegal(a)
        if bad >= 0:
            move = int(a[bad])
            what = square_name(move) if 0 <= move <= 64 else repr(move)
            colour = "black" if self._turn[bad] == 0 else "white"
            raise IllegalMoveError(f"board {bad}: {what} is not legal for {colour}")
        rewards = np.zeros(self.n, dtype=np.float32)
        dones = np.zeros(self.n, dtype=np.bool_)
        cdef float[::1] r = rewards
        cdef uint8_t[::1] d = dones.view(np.uint8)
        with nogil:
            self._play(a, r, d)
        obs, legal = self._observe()
        return obs, legal, rewards, dones

    cdef int _first_illegal(self, const int64_t[::1] a) noexcept nogil:
        cdef int i
        cdef int64_t m
        cdef uint64_t moves
        for i in range(self.n):
            m = a[i]
            moves = legal_moves(self.own[i], self.opp[i])
            if m == PASS_MOVE:
                if moves != 0:
                    return i
            elif m < 0 or m >= 64 or not (moves >> m) & 1:
                return i
        return -1

    cdef void _play(self, const int64_t[::1] a, float[::1] r, uint8_t[::1] d) noexcept nogil:
        cdef int i
        cdef Position after
        cdef uint64_t P, O
        cdef int diff
        for i in range(self.n):
            P, O = self.own[i], self.opp[i]
            if a[i] == PASS_MOVE:
                after.P = O
                after.O = P
            else:
                after = next_position(P, O, <int>a[i])
            self._turn[i] ^= 1
            self.own[i] = after.P
            self.opp[i] = after.O
            if legal_moves(after.P, after.O) == 0 and legal_moves(after.O, after.P) == 0:
                # The mover's result: the side to move is now the other one.
                diff = -final_disc_difference(after.P, after.O)
                r[i] = 1.0 if diff > 0 else -1.0 if diff < 0 else 0.0
                d[i] = 1
                self._start(i)

    cdef void _start(self, int i) noexcept nogil:
        cdef uint64_t P = START_BLACK, O = START_WHITE, moves, swap
        cdef Position after
        cdef int ply, k, sq
        cdef uint8_t turn = 0
        for ply in range(self.random_plies):
            moves = legal_moves(P, O)
            if moves == 0:
                if legal_moves(O, P) == 0:
                    break                                  # over already: keep it short
                swap = P
                P = O
                O = swap
                turn ^= 1
                continue
            k = <int>rng_below(&self.rng, <uint32_t>count(moves))
            sq = _nth_square(moves, k)
            after = next_position(P, O, sq)
            P, O = after.P, after.O
            turn ^= 1
        if legal_moves(P, O) == 0 and legal_moves(O, P) == 0:
            P, O, turn = START_BLACK, START_WHITE, 0       # never start a finished game
        self.own[i] = P
        self.opp[i] = O
        self._turn[i] = turn

    cdef void _start_all(self) noexcept:
        cdef int i
        with nogil:
            for i in range(self.n):
                self._start(i)

    cdef tuple _observe(self):
        obs = np.empty((self.n, 2, 8, 8), dtype=np.float32)
        legal = np.empty((self.n, 65), dtype=np.bool_)
        cdef float[:, :, :, ::1] o = obs
        cdef uint8_t[:, ::1] l = legal.view(np.uint8)
        cdef int i
        with nogil:
            for i in range(self.n):
                write_planes(self.own[i], self.opp[i], &o[i, 0, 0, 0])
                write_legal(self.own[i], self.opp[i], &l[i, 0])
        return obs, legal


cdef inline int _nth_square(uint64_t b, int k) noexcept nogil:
    """The square of the ``k``-th set bit of ``b`` (0: the lowest)."""
    cdef int sq = 0
    while True:
        if b & 1:
            if k == 0:
                return sq
            k -= 1
        b >>= 1
        sq += 1
