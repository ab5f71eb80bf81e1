# cython: language_level=3
"""The Board: an Othello position with a move stack, over the C rules core.

Modelled on python-chess's ``chess.Board``: ``push``/``pop``/``peek``, a live
``legal_moves`` view, outcome, copies, pickling, and text in the project's formats.
"""
import warnings
from collections import namedtuple

import numpy as np

from libc.stdint cimport uint64_t
from cythello.core._rules cimport (
    legal_moves as c_legal_moves, flips as c_flips, is_game_over as c_is_game_over, count,
    first_square, PASS_MOVE,
)
from cythello.core._symmetry cimport symmetry as c_symmetry

from cythello.errors import IllegalMoveError, InvalidBoardError, InvalidMoveError
from cythello.squares import (
    BLACK, WHITE, PASS, SQUARE_NAMES, COLOR_NAMES, move_from, parse_move, square_name,
    squares_of,
)

STARTING_BOARD_STRING = (
    "---------------------------OX------XO--------------------------- X"
)
cdef uint64_t START_BLACK = 0x0000000810000000ULL   # d5, e4
cdef uint64_t START_WHITE = 0x0000001008000000ULL   # d4, e5


class Outcome(namedtuple("Outcome", "winner black white")):
    """How a game ended: ``winner`` is BLACK, WHITE or None for a draw; ``black`` and
    ``white`` are disc counts.  ``difference`` is black minus white; ``score`` gives the
    empties to the winner, as tournaments (and the FFO scores) count it.

    BLACK is 0, so test a winner with ``outcome.winner is None`` (a draw) or
    ``outcome.winner == BLACK``, never by its truth (``if outcome.winner:`` is false for a
    black win), as with python-chess's colours."""

    __slots__ = ()

    @property
    def difference(self):
        return self.black - self.white

    @property
    def score(self):
        empties = 64 - self.black - self.white
        d = self.black - self.white
        return d + empties if d > 0 else d - empties if d < 0 else 0

    def score_for(self, color):
        """:attr:`score` from ``color``'s side (positive: ``color`` won)."""
        return self.score if color == BLACK else -self.score

    def result(self):
        """``"33-31"``: black's discs, then white's."""
        return f"{self.black}-{self.white}"


cdef int _symmetry_arg(object k) except -1:
    if isinstance(k, bool) or not isinstance(k, int):
        raise TypeError(f"symmetry must be an int 0-7, not {type(k).__name__}")
    if not 0 <= k < 8:
        raise ValueError(f"symmetry must be 0-7, not {k}")
    return k


def transform_square(square, symmetry):
    """Where ``square`` goes under symmetry 0-7 (``PASS`` stays ``PASS``), e.g. to carry a
    move label along with :meth:`Board.transform`."""
    cdef int sq = move_from(square)
    cdef int k = _symmetry_arg(symmetry)
    if sq == PASS_MOVE:
        return PASS
    return first_square(c_symmetry((<uint64_t>1) << sq, k))


cdef uint64_t _mask_arg(object value, str name) except? 0:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int bitboard, not {type(value).__name__}")
    if value < 0 or value > 0xFFFFFFFFFFFFFFFF:
        raise InvalidBoardError(f"{name} must fit in 64 bits: {value}")
    return <uint64_t>value


cdef int _color_arg(object turn) except -1:
    if isinstance(turn, bool) or not isinstance(turn, int):
        raise TypeError(f"turn must be BLACK (0) or WHITE (1), not {type(turn).__name__}")
    if turn != BLACK and turn != WHITE:
        raise InvalidBoardError(f"turn must be BLACK (0) or WHITE (1), not {turn}")
    return turn


cdef class LegalMoves:
    """A live view of the legal moves of a board: iterable any number of times, with ``len``,
    ``in`` and truth value.  Holds ``PASS`` alone when the side to move must pass, and nothing
    once the game is over."""

    cdef Board board

    def __cinit__(self, Board board not None):
        self.board = board

    def __iter__(self):
        cdef uint64_t m = self.board._placements()
        if m == 0:
            if self.board._must_pass():
                yield PASS
            return
        while m:
            yield first_square(m)
            m &= m - 1

    def __len__(self):
        cdef uint64_t m = self.board._placements()
        if m == 0:
            return 1 if self.board._must_pass() else 0
        return count(m)

    def __bool__(self):
        return self.board._placements() != 0 or self.board._must_pass()

    def __contains__(self, move):
        try:
            return self.board.is_legal(move)
        except (TypeError, ValueError):
            return False

    def __repr__(self):
        names = ", ".join(SQUARE_NAMES[m] if m != PASS else "pass" for m in self)
        return f"<LegalMoves ({names})>"


cdef class Board:
    """An Othello position and the moves that led to it.

    ``Board()`` is the start position (black to move; d4 and e5 white, d5 and e4 black).
    ``Board(text)`` reads a board string: 64 characters of ``X``, ``O`` or ``-`` from a1 to
    h8, a space, and the side to move (``X`` or ``O``) -- the ``.obf`` format.
    """

    def __init__(self, board_string=None):
        self._ply = 0
        if board_string is None:
            self._black, self._white, self._turn = START_BLACK, START_WHITE, BLACK
        else:
            self._set_board_string(board_string)

    # -- construction -------------------------------------------------------------------------

    cdef _set_board_string(self, object text):
        if not isinstance(text, str):
            raise TypeError(f"a board string is a str, not {type(text).__name__}")
        parts = text.split()
        if len(parts) != 2:
            raise InvalidBoardError(
                "a board string is 64 squares (X, O or -), a space and the side to move "
                f"(X or O); got {len(parts)} field(s) in {text[:80]!r}")
        cells, side = parts
        if len(cells) != 64:
            raise InvalidBoardError(f"a board string needs 64 squares, got {len(cells)}")
        cdef uint64_t black = 0, white = 0
        cdef int i
        for i in range(64):
            ch = cells[i]
            if ch in "Xx*":
                black |= (<uint64_t>1) << i
            elif ch in "Oo":
                white |= (<uint64_t>1) << i
            elif ch not in "-.":
                raise InvalidBoardError(
                    f"square {SQUARE_NAMES[i]} of the board string is {ch!r}; expected X, O or -")
        if side in ("X", "x", "*", "B", "b"):
            self._turn = BLACK
        elif side in ("O", "o", "W", "w"):
            self._turn = WHITE
        else:
            raise InvalidBoardError(f"side to move must be X or O, not {side!r}")
        self._black, self._white = black, white

    @classmethod
    def from_bitboards(cls, black, white, turn=BLACK):
        """A board from two 64-bit masks (bit i = square i) and the side to move."""
        cdef uint64_t b = _mask_arg(black, "black"), w = _mask_arg(white, "white")
        if b & w:
            raise InvalidBoardError(
                f"black and white share squares: {[SQUARE_NAMES[s] for s in squares_of(b & w)]}")
        cdef Board board = cls.__new__(cls)
        board._black, board._white, board._turn, board._ply = b, w, _color_arg(turn), 0
        return board

    @classmethod
    def from_array(cls, array, turn=BLACK):
        """The inverse of :meth:`to_array`: an 8x8 array-like of 1 (black), -1 (white) and
        0 (empty), rows 1-8 by columns a-h."""
        a = np.asarray(array)
        if a.shape != (8, 8):
            raise InvalidBoardError(f"a board array must have shape (8, 8), not {a.shape}")
        if not np.isin(a, (-1, 0, 1)).all():
            raise InvalidBoardError("a board array may hold only 1 (black), -1 (white) and 0")
        weights = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64)).reshape(8, 8)
        black = int(np.bitwise_or.reduce(weights[a == 1], initial=np.uint64(0)))
        white = int(np.bitwise_or.reduce(weights[a == -1], initial=np.uint64(0)))
        return cls.from_bitboards(black, white, turn)

    @classmethod
    def empty(cls):
        """A board with no discs, black to move."""
        return cls.from_bitboards(0, 0, BLACK)

    @classmethod
    def from_transcript(cls, transcript, start=None):
        """Replay a transcript such as ``"f5d6c3d3c4"`` from ``start`` (default: the start
        position).  Forced passes are implicit; ``pa``/``--`` may also spell them out."""
        if not isinstance(transcript, str):
            raise TypeError(f"a transcript is a str like 'f5d6c3', not {type(transcript).__name__}")
        if start is not None and not isinstance(start, Board):
            raise TypeError(f"start must be a Board or None, not {type(start).__name__}")
        cdef Board board = cls() if start is None else start.copy(stack=False)
        text = "".join(transcript.split())
        if len(text) % 2:
            raise InvalidBoardError(f"a transcript is two characters a move; {text!r} has odd length")
        for i in range(0, len(text), 2):
            token = text[i:i + 2]
            try:
                move = parse_move(token)
            except InvalidMoveError:
                raise InvalidMoveError(f"move {i // 2 + 1} of the transcript is not a move: {token!r}") from None
            try:
                board.push(move, implicit_pass=True)
            except IllegalMoveError:
                mover = board._turn ^ (move != PASS and board._must_pass())
                raise IllegalMoveError(
                    f"move {i // 2 + 1} of the transcript, {token}, is illegal for "
                    f"{COLOR_NAMES[mover]} after {board.transcript() or 'the start'}"
                ) from None
        return board

    # -- C-level helpers ----------------------------------------------------------------------

    cdef uint64_t _own(self) noexcept:
        return self._white if self._turn else self._black

    cdef uint64_t _opp(self) noexcept:
        return self._black if self._turn else self._white

    cdef uint64_t _placements(self) noexcept:
        return c_legal_moves(self._own(), self._opp())

    cdef bint _must_pass(self) noexcept:
        return (c_legal_moves(self._own(), self._opp()) == 0
                and c_legal_moves(self._opp(), self._own()) != 0)

    cdef bint _is_legal(self, int move) noexcept:
        if move == PASS_MOVE:
            return self._must_pass()
        return (self._placements() >> move) & 1

    cdef _push(self, int move):
        if self._ply >= MAX_PLIES:
            raise IllegalMoveError("move stack is full")  # unreachable for legal games
        cdef uint64_t f = 0
        if move != PASS_MOVE:
            f = c_flips(self._own(), self._opp(), move)
            if self._turn == BLACK:
                self._black |= f | ((<uint64_t>1) << move)
                self._white &= ~f
            else:
                self._white |= f | ((<uint64_t>1) << move)
                self._black &= ~f
        self._stack[self._ply].flipped = f
        self._stack[self._ply].move = move
        self._ply += 1
        self._turn ^= 1

    # -- state --------------------------------------------------------------------------------

    @property
    def turn(self):
        """The side to move: BLACK (0) or WHITE (1)."""
        return self._turn

    @property
    def black(self):
        """Bitboard of black's discs (bit i = square i)."""
        return self._black

    @property
    def white(self):
        """Bitboard of white's discs."""
        return self._white

    @property
    def legal_moves(self):
        """A live view of the legal moves (squares, or ``PASS`` alone when forced)."""
        return LegalMoves(self)

    @property
    def legal_moves_mask(self):
        """Bitboard of the squares the side to move may play (0 when it must pass)."""
        return self._placements()

    @property
    def move_stack(self):
        """The moves pushed since this board was set up, passes included."""
        return [self._stack[i].move for i in range(self._ply)]

    @property
    def ply(self):
        """Number of moves on the move stack."""
        return self._ply

    def piece_at(self, square):
        """BLACK, WHITE or None for the disc on ``square``."""
        cdef int sq = move_from(square)
        if sq == PASS_MOVE:
            raise InvalidMoveError("PASS is not a square")
        if (self._black >> sq) & 1:
            return BLACK
        if (self._white >> sq) & 1:
            return WHITE
        return None

    def discs(self, color):
        """Number of discs of ``color``."""
        return count(self._white if _color_arg(color) else self._black)

    def empties(self):
        """Number of empty squares."""
        return 64 - count(self._black | self._white)

    def is_legal(self, move):
        """Whether ``move`` (an int or a name like ``"f5"``/``"pass"``) is legal here."""
        return self._is_legal(move_from(move))

    def must_pass(self):
        """True when the side to move has no placement but the game goes on."""
        return self._must_pass()

    def is_game_over(self):
        """True when neither side can place a disc."""
        return c_is_game_over(self._own(), self._opp())

    def outcome(self):
        """The :class:`Outcome` of a finished game, or None while it goes on."""
        if not self.is_game_over():
            return None
        cdef int b = count(self._black), w = count(self._white)
        return Outcome(BLACK if b > w else WHITE if w > b else None, b, w)

    def flips(self, move):
        """The squares ``move`` would turn over (ascending); raises if it is illegal."""
        cdef int m = move_from(move)
        if not self._is_legal(m):
            raise IllegalMoveError(f"{square_name(m)} is not legal for {COLOR_NAMES[self._turn]}")
        if m == PASS_MOVE:
            return []
        return squares_of(c_flips(self._own(), self._opp(), m))

    # -- moves --------------------------------------------------------------------------------

    def push(self, move, *, bint implicit_pass=False):
        """Play ``move`` (a square int, a name like ``"f5"``, or PASS when forced).  With
        ``implicit_pass``, a placement made when the side to move must pass is played
        after that pass, as transcripts and many GUIs leave forced passes out."""
        cdef int m
        if type(move) is int and 0 <= move <= PASS_MOVE:
            m = move                          # the common case, without a Python call
        else:
            m = move_from(move)
        cdef bint passed = implicit_pass and m != PASS_MOVE and self._must_pass()
        if passed:
            self._push(PASS_MOVE)
        if not self._is_legal(m):
            if passed:
                self.pop()                    # a failed push changes nothing
            if m == PASS_MOVE:
                why = "the game is over" if self.is_game_over() else "a placement is possible"
                raise IllegalMoveError(f"pass is not legal: {why}")
            raise IllegalMoveError(
                f"{SQUARE_NAMES[m]} is not legal for {COLOR_NAMES[self._turn ^ passed]}")
        self._push(m)

    def push_str(self, text):
        """Alias of :meth:`push` for move names, like python-chess's ``push_uci``."""
        self.push(parse_move(text))

    def pop(self):
        """Take back the last move and return it."""
        if self._ply == 0:
            raise IndexError("pop from an empty move stack")
        self._ply -= 1
        cdef int move = self._stack[self._ply].move
        cdef uint64_t f = self._stack[self._ply].flipped, placed
        self._turn ^= 1
        if move != PASS_MOVE:
            placed = f | ((<uint64_t>1) << move)
            if self._turn == BLACK:
                self._black &= ~placed
                self._white |= f
            else:
                self._white &= ~placed
                self._black |= f
        return move

    def peek(self):
        """The last move pushed."""
        if self._ply == 0:
            raise IndexError("peek at an empty move stack")
        return self._stack[self._ply - 1].move

    def copy(self, stack=True):
        """An independent copy; ``stack=False`` drops the move history."""
        cdef Board b = type(self).__new__(type(self))
        b._black, b._white, b._turn = self._black, self._white, self._turn
        b._ply = 0
        if stack:
            b._ply = self._ply
            for i in range(self._ply):
                b._stack[i] = self._stack[i]
        return b

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()

    def root(self):
        """A copy of the position before the first move on the stack."""
        cdef Board b = self.copy()
        while b._ply:
            b.pop()
        return b

    # -- text ---------------------------------------------------------------------------------

    def board_string(self):
        """64 characters X/O/- from a1, a space, and the side to move: the ``.obf`` format."""
        cells = []
        for i in range(64):
            cells.append("X" if (self._black >> i) & 1 else "O" if (self._white >> i) & 1 else "-")
        return "".join(cells) + (" O" if self._turn else " X")

    def transcript(self):
        """The placements on the move stack as ``"f5d6c3…"`` (passes are implicit)."""
        return "".join(SQUARE_NAMES[self._stack[i].move] for i in range(self._ply)
                       if self._stack[i].move != PASS_MOVE)

    def __str__(self):
        return self.render()

    def render(self, last_move=None, colour=False):
        """The board as text (``str(board)`` is ``render()``): ``X`` black, ``O`` white,
        ``.`` the legal moves, ``-`` empty squares; ``last_move`` between brackets and
        named below, and with ``colour`` the discs in ANSI colours (for a terminal)."""
        if last_move is not None:
            last_move = move_from(last_move)
        cdef uint64_t legal = self._placements()
        cdef int r, c, i
        lines = ["  a b c d e f g h"]
        for r in range(8):
            row = [f"{r + 1}"]
            for c in range(8):
                i = r * 8 + c
                if (self._black >> i) & 1:
                    ch = "\033[1;30;42mX\033[0m" if colour else "X"
                elif (self._white >> i) & 1:
                    ch = "\033[1;37;42mO\033[0m" if colour else "O"
                else:
                    ch = "." if (legal >> i) & 1 else "-"
                # The brackets take the spaces around the square: the columns stay aligned.
                row.append("[" if i == last_move else "]" if c and i - 1 == last_move else " ")
                row.append(ch)
            if last_move == r * 8 + 7:
                row.append("]")
            lines.append("".join(row))
        last = "" if last_move is None else f"; last move {square_name(last_move)}"
        discs = f"X {count(self._black)}, O {count(self._white)}{last}"
        outcome = self.outcome()
        if outcome is None:
            lines.append(f"{COLOR_NAMES[self._turn]} to move ({discs})")
        else:
            won = ("a draw" if outcome.winner is None
                   else f"{COLOR_NAMES[outcome.winner]} wins by {abs(outcome.score)}")
            lines.append(f"game over: {won} ({discs})")
        return "\n".join(lines)

    def __repr__(self):
        return f"{type(self).__name__}({self.board_string()!r})"

    def __eq__(self, other):
        if not isinstance(other, Board):
            return NotImplemented
        cdef Board o = other
        return self._black == o._black and self._white == o._white and self._turn == o._turn

    def __hash__(self):
        # A Board changes as moves are pushed, so a board kept in a set (or as a dict key)
        # is lost there once it moves on; python-chess's boards are unhashable for that
        # reason, and cythello's follow after a deprecation.
        warnings.warn("hashing a Board is deprecated and will raise TypeError in cythello "
                      "0.5: a Board is mutable, so one kept in a set or as a dict key is "
                      "lost once a move is pushed; key by board.board_string() (or "
                      "board.position(), up to the colours) instead",
                      DeprecationWarning, stacklevel=2)
        return hash((self._black, self._white, self._turn))

    def __reduce__(self):
        root = self.root()
        return (_rebuild, (root.board_string(), self.move_stack))

    def to_svg(self, last_move=None, legal=True, size=360):
        """An SVG picture; ``last_move`` defaults to the last move on the stack."""
        from cythello.records.svg import board_svg
        if last_move is None and self._ply:
            last_move = self._stack[self._ply - 1].move
        return board_svg(self, last_move=last_move, legal=legal, size=size)

    def _repr_svg_(self):
        return self.to_svg()

    # -- symmetries ---------------------------------------------------------------------------

    def transform(self, symmetry):
        """The position under one of the 8 board symmetries (0 = identity; bit 0 mirrors
        the columns, bit 1 the rows, bit 2 the a1-h8 diagonal, in that order).  Othello's
        rules are symmetric, so legal moves and results carry over square by square
        (:func:`transform_square`).  The copy has no move stack."""
        cdef int k = _symmetry_arg(symmetry)
        cdef Board b = type(self).__new__(type(self))
        b._black = c_symmetry(self._black, k)
        b._white = c_symmetry(self._white, k)
        b._turn = self._turn
        b._ply = 0
        return b

    def symmetries(self):
        """The 8 transformed positions, in symmetry order (for data augmentation)."""
        return [self.transform(k) for k in range(8)]

    # -- numpy views --------------------------------------------------------------------------

    def to_array(self):
        """An 8x8 int8 array, rows 1-8 by columns a-h: 1 black, -1 white, 0 empty."""
        bits = np.array([self._black, self._white], dtype=np.uint64)
        unpacked = np.unpackbits(bits.view(np.uint8), bitorder="little").reshape(2, 64)
        return (unpacked[0].astype(np.int8) - unpacked[1].astype(np.int8)).reshape(8, 8)

    def planes(self, dtype=np.float32):
        """A (2, 8, 8) array of 0/1: the side to move's discs, then the opponent's."""
        bits = np.array([self._own(), self._opp()], dtype=np.uint64)
        unpacked = np.unpackbits(bits.view(np.uint8), bitorder="little")
        return unpacked.reshape(2, 8, 8).astype(dtype)

    # -- C access for the search modules -------------------------------------------------------

    cpdef tuple position(self):
        """``(own, opponent)`` bitboards of the side to move."""
        return (self._own(), self._opp())


def _rebuild(root_string, moves):
    board = Board(root_string)
    for m in moves:
        board.push(m)
    return board
