"""Colours, squares and moves as plain ints.

Squares run ``a1 = 0 … h8 = 63`` with index ``row * 8 + col``; columns a–h left to right,
rows 1–8 top to bottom (the usual Othello diagram).  ``PASS`` (64) is a move of its own.
"""
from __future__ import annotations

from typing import List

from .errors import InvalidMoveError

__all__ = [
    "BLACK", "WHITE", "COLOR_NAMES", "COLOR_SYMBOLS", "PASS", "FILE_NAMES", "RANK_NAMES",
    "SQUARE_NAMES", "SQUARES", "PASS_NAMES", "square", "square_file", "square_rank",
    "record_move",
    "square_name", "parse_square", "parse_move", "move_from", "squares_of",
] + [f + r for r in "12345678" for f in "ABCDEFGH"]

BLACK = 0
WHITE = 1
COLOR_NAMES = ["black", "white"]
COLOR_SYMBOLS = ["X", "O"]

PASS = 64
FILE_NAMES = "abcdefgh"
RANK_NAMES = "12345678"
SQUARE_NAMES: List[str] = [f + r for r in RANK_NAMES for f in FILE_NAMES]
SQUARES = list(range(64))

# A1 … H8 as module constants, the way python-chess spells them.
(A1, B1, C1, D1, E1, F1, G1, H1,
 A2, B2, C2, D2, E2, F2, G2, H2,
 A3, B3, C3, D3, E3, F3, G3, H3,
 A4, B4, C4, D4, E4, F4, G4, H4,
 A5, B5, C5, D5, E5, F5, G5, H5,
 A6, B6, C6, D6, E6, F6, G6, H6,
 A7, B7, C7, D7, E7, F7, G7, H7,
 A8, B8, C8, D8, E8, F8, G8, H8) = range(64)

PASS_NAMES = ("pass", "pa", "ps", "--", "@@")
_SQUARE_INDEX = {name: i for i, name in enumerate(SQUARE_NAMES)}


def square(file_index: int, rank_index: int) -> int:
    """The square at column ``file_index`` (0 = a) and row ``rank_index`` (0 = row 1)."""
    if not (0 <= file_index < 8 and 0 <= rank_index < 8):
        raise InvalidMoveError(f"square coordinates out of range: ({file_index}, {rank_index})")
    return rank_index * 8 + file_index


def square_file(sq: int) -> int:
    """Column index, 0 for a … 7 for h."""
    return sq & 7


def square_rank(sq: int) -> int:
    """Row index, 0 for row 1 … 7 for row 8."""
    return sq >> 3


def square_name(move: int) -> str:
    """``"f5"`` for a square, ``"pass"`` for ``PASS``."""
    if isinstance(move, bool) or not isinstance(move, int):
        raise TypeError(f"a move is an int 0-64, not {type(move).__name__}")
    if move == PASS:
        return "pass"
    if not 0 <= move < 64:
        raise InvalidMoveError(f"square index out of range 0-63: {move}")
    return SQUARE_NAMES[move]


def record_move(move: int, upper: bool = False) -> str:
    """A move as game records and protocols write it: ``f5`` (``F5`` with ``upper``, as
    NBoard and OBF do) and ``PA`` for a pass (GGF, NBoard, OBF)."""
    name = square_name(move)
    if move == PASS:
        return "PA"
    return name.upper() if upper else name


def parse_square(name: str) -> int:
    """``"f5"`` or ``"F5"`` → 37.  Passes are not squares: see :func:`parse_move`."""
    if not isinstance(name, str):
        raise TypeError(f"a square name is a str like 'f5', not {type(name).__name__}")
    try:
        return _SQUARE_INDEX[name.strip().lower()]
    except KeyError:
        raise InvalidMoveError(f"not a square name (a1-h8): {name!r}") from None


def parse_move(text: str) -> int:
    """A square name, or one of the usual spellings of a pass (``pass``, ``PA``, ``--``)."""
    if not isinstance(text, str):
        raise TypeError(f"a move name is a str like 'f5' or 'pass', not {type(text).__name__}")
    key = text.strip().lower()
    if key in PASS_NAMES:
        return PASS
    if key in _SQUARE_INDEX:
        return _SQUARE_INDEX[key]
    raise InvalidMoveError(f"not a move (a1-h8 or pass): {text!r}")


def move_from(value: object) -> int:
    """Normalise an int or a move name to a move int, with a clear error for anything else."""
    if isinstance(value, bool):
        raise TypeError("a move is an int 0-64 or a name like 'f5', not bool")
    if isinstance(value, int):
        if not 0 <= value <= PASS:
            raise InvalidMoveError(f"move out of range 0-64 (a1=0 … h8=63, PASS=64): {value}")
        return value
    if isinstance(value, str):
        return parse_move(value)
    raise TypeError(f"a move is an int 0-64 or a name like 'f5', not {type(value).__name__}")


def squares_of(mask: int) -> List[int]:
    """The squares set in a 64-bit mask, ascending."""
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out
