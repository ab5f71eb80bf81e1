"""A position written as text, in any of the forms cythello reads: a board string (64 of
``X``/``O``/``-``, then the side to move), an OBF line, or a transcript (``f5d6c3``; empty:
the start position)."""
from __future__ import annotations

from typing import Optional

from ..core._board import Board
from ..errors import InvalidBoardError
from .obf import parse_obf_line

BOARD_CHARS = frozenset("XxOo-.*")


def looks_like_board_string(text: str) -> bool:
    """Whether ``text`` is meant as a board string (or is a near miss of one): a long run of
    board characters, maybe followed by a side to move."""
    first = text.strip().split(" ", 1)[0]
    return len(first) >= 40 and set(first) <= BOARD_CHARS


def board_from_text(text: Optional[str]) -> Board:
    """A board from a board string, an OBF line or a transcript (empty: the start).  A near
    miss of a board string (63 squares, no side to move) gets an error about the board
    string, not about a transcript."""
    if text is None or not text.strip():
        return Board()
    text = text.strip()
    if ";" in text:
        return parse_obf_line(text).board
    if looks_like_board_string(text):
        parts = text.split()
        if len(parts) == 1:
            raise InvalidBoardError(f"a board string needs the side to move after the "
                                    f"{len(parts[0])} squares: add ' X' or ' O'")
        return Board(text)              # names the problem: square count, side to move
    return Board.from_transcript(text)
