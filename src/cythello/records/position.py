"""A position written as text, in any of the forms cythello reads: a board string (64 of
``X``/``O``/``-``, then the side to move), an OBF line, or a transcript (``f5d6c3``; empty:
the start position)."""
from __future__ import annotations

import re
from typing import Optional

from ..core._board import Board
from ..errors import InvalidBoardError
from .obf import parse_obf_line

BOARD_CHARS = frozenset("XxOo-.*")
# A file name, which no position text looks like: a folder separator, or a suffix.
_FILE_NAME = re.compile(r"[/\\]|\.[A-Za-z][A-Za-z0-9]{0,4}$")


def looks_like_file_name(text: str) -> bool:
    """Whether ``text`` names a file rather than writes a position (positions have no
    folder separators and no suffix such as ``.ggf``)."""
    return bool(_FILE_NAME.search(text.strip()))


def looks_like_board_string(text: str) -> bool:
    """Whether ``text`` is meant as a board string (or is a near miss of one): a long run of
    board characters, maybe followed by a side to move."""
    first = text.strip().split(" ", 1)[0]
    return len(first) >= 40 and set(first) <= BOARD_CHARS


def board_from_text(text: Optional[str], files: str = "") -> Board:
    """A board from a board string, an OBF line or a transcript (empty: the start).  A near
    miss of a board string (63 squares, no side to move) gets an error about the board
    string, not about a transcript; a file name gets an error saying it is one (``files``:
    what files the caller reads instead, for that message)."""
    if text is None or not text.strip():
        return Board()
    text = text.strip()
    if ";" not in text and not looks_like_board_string(text) and looks_like_file_name(text):
        instead = f"; {files}" if files else ""
        raise InvalidBoardError(f"{text!r} names a file, not a position (a board string, an "
                                f"OBF line or a transcript such as f5d6c3){instead}")
    if ";" in text:
        return parse_obf_line(text).board
    if looks_like_board_string(text):
        parts = text.split()
        if len(parts) == 1:
            raise InvalidBoardError(f"a board string needs the side to move after the "
                                    f"{len(parts[0])} squares: add ' X' or ' O'")
        return Board(text)              # names the problem: square count, side to move
    return Board.from_transcript(text)
