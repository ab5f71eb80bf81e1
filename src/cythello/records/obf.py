"""Read and write OBF lines: a board string, then ``MOVE:SCORE`` fields separated by ``;``.

``--XXXXX-…-- X; G8:+18; H1:+12;`` is one position of the FFO endgame suite: black to
move, and the exact final disc difference of every legal move under perfect play.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Union

from .._files import read_text
from ..core._board import Board
from ..errors import InvalidBoardError, InvalidMoveError
from ..squares import parse_move, record_move


@dataclass
class ObfPosition:
    """One OBF line: the board, the exact score of each listed move (for the side to move),
    and a free-text comment (what followed ``%``, if anything)."""

    board: Board
    scores: Dict[int, int] = field(default_factory=dict)
    comment: str = ""

    @property
    def best_score(self) -> Optional[int]:
        """The score of the best move (None when the line lists no moves)."""
        return max(self.scores.values()) if self.scores else None

    def best_moves(self) -> List[int]:
        """Every move that reaches the best score."""
        best = self.best_score
        return sorted(m for m, s in self.scores.items() if s == best)

    def to_line(self) -> str:
        """The position as an OBF line, best moves first."""
        fields = [self.board.board_string()]
        for move, score in sorted(self.scores.items(), key=lambda kv: (-kv[1], kv[0])):
            name = record_move(move, upper=True)
            fields.append(f" {name}:{score:+d}")
        line = ";".join(fields) + (";" if self.scores else "")
        return line + (f" % {self.comment}" if self.comment else "")


def parse_obf_line(line: str) -> ObfPosition:
    """Parse one OBF line (scores are optional)."""
    if not isinstance(line, str):
        raise TypeError(f"an OBF line is a str, not {type(line).__name__}")
    text, _, comment = line.partition("%")
    fields = [f.strip() for f in text.split(";")]
    board = Board(fields[0])
    scores: Dict[int, int] = {}
    for item in fields[1:]:
        if not item:
            continue
        name, sep, value = item.partition(":")
        if not sep:
            raise InvalidBoardError(f"OBF move field is not MOVE:SCORE: {item!r}")
        try:
            move = parse_move(name)
            scores[move] = int(value)
        except (InvalidMoveError, ValueError):
            raise InvalidBoardError(f"OBF move field is not MOVE:SCORE: {item!r}") from None
    return ObfPosition(board, scores, comment.strip())


def read_obf(source: Union[str, "os.PathLike[str]"]) -> Iterator[ObfPosition]:
    """Yield the positions of an ``.obf`` file (UTF-8, a byte-order mark allowed),
    skipping blank lines and comment lines (starting ``%`` or ``#``); a bad line is an
    error naming the file and the line."""
    text = read_text(source, "OBF file", InvalidBoardError)
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith(("%", "#")):
            try:
                position = parse_obf_line(line)
            except ValueError as exc:
                raise InvalidBoardError(f"{os.fspath(source)}, line {number}: {exc}") from None
            yield position
