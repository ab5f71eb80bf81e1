"""cythello's own game record: where a game started, its moves with the passes put in, who
played it, where and when, how it ended and what perfect play would have made of it.

Every reader of many games (WTHOR files, GGF archives, transcript lists) gives these, and
they turn into GGF records and transcripts, so a game read from one format can be written
in another.  Scores are black's disc differences (black's discs minus white's, empty
squares to the winner), as GGF's ``RE`` and the FFO scores count them.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Tuple

from ..core._board import Board
from ..errors import IllegalMoveError
from ..squares import PASS, record_move
from .ggf import GgfGame, GgfMove


@dataclass
class GameRecord:
    """One game.

    ``moves`` are squares with every pass in place (``PASS``), from ``start``.
    ``result`` is black's final disc difference as the record gives it (a game that was
    resigned or lost on time ends before the board is full, and its record's score
    stands); ``theoretical`` is black's disc difference under perfect play from the
    position ``theoretical_empties`` empty squares before the end (WTHOR's "theoretical
    score"); either is ``None`` when the record does not say.  ``source`` names the file
    and the game's place in it."""

    moves: Tuple[int, ...] = ()
    start: Board = field(default_factory=Board)
    black: str = ""
    white: str = ""
    tournament: str = ""
    year: Optional[int] = None
    result: Optional[int] = None
    theoretical: Optional[int] = None
    theoretical_empties: Optional[int] = None
    source: str = ""

    @property
    def black_discs(self) -> Optional[int]:
        """Black's discs at the end as the record counts them (empties to the winner)."""
        return None if self.result is None else (64 + self.result) // 2

    def board(self) -> Board:
        """The final position, its move stack holding the game."""
        board = self.start.copy(stack=False)
        for i, move in enumerate(self.moves):
            try:
                board.push(move)
            except IllegalMoveError:
                raise IllegalMoveError(f"move {i + 1} ({record_move(move)}) of the game "
                                       f"{self.source or ''} is illegal".replace("  ", " ")) from None
        return board

    def board_at(self, empties: int) -> Optional[Board]:
        """The position of the game with ``empties`` empty squares and a move to make (a
        forced pass played), or ``None`` when the game never had it (it ended earlier)."""
        board = self.start.copy(stack=False)
        for move in self.moves:
            if board.empties() == empties and move != PASS:
                return board
            board.push(move)
        return None

    def transcript(self) -> str:
        """The placements as ``"f5d6c3…"`` (passes left out, as transcripts do)."""
        return "".join(record_move(m) for m in self.moves if m != PASS)

    def to_ggf(self) -> GgfGame:
        """The game as a GGF record: the players, the place (``PC``, the tournament), the
        date (``DT``, the year) and the result (``RE``); the theoretical score, which GGF
        has no tag for, goes in ``TS`` and its depth in ``TD`` (unknown tags are kept by
        GGF readers)."""
        game = GgfGame(self.start.copy(stack=False), [GgfMove(m) for m in self.moves], {})
        game.tags.update({"GM": "Othello", "PC": self.tournament or "cythello",
                          "PB": self.black, "PW": self.white, "TY": "8"})
        if self.year is not None:
            game.tags["DT"] = str(self.year)
        game.tags["RE"] = "?" if self.result is None else f"{self.result:+d}.000"
        if self.theoretical is not None:
            game.tags["TS"] = f"{self.theoretical:+d}"
            game.tags["TD"] = str(self.theoretical_empties)
        return game

    @classmethod
    def from_ggf(cls, game: GgfGame, source: str = "") -> "GameRecord":
        """A GGF game as a record: ``PC`` (or ``EV``) names the tournament, ``DT``'s first
        four digits the year, ``RE`` black's result (a game over on the board counts as it
        ended when ``RE`` is missing or not a number)."""
        board = game.board()
        result = _number(game.tags.get("RE", ""))
        if result is None and board.is_game_over():
            result = board.outcome().score        # type: ignore[union-attr]
        date = game.tags.get("DT", "")
        year = int(date[:4]) if date[:4].isdigit() else None
        theoretical = _number(game.tags.get("TS", ""))
        depth = game.tags.get("TD", "")
        return cls(tuple(board.move_stack), game.start.copy(stack=False), game.black,
                   game.white, game.tags.get("EV") or game.tags.get("PC", ""), year,
                   None if result is None else int(round(result)),
                   None if theoretical is None else int(round(theoretical)),
                   int(depth) if depth.isdigit() else None, source)

    @classmethod
    def from_board(cls, board: Board, **fields: object) -> "GameRecord":
        """The game on ``board``'s move stack (``fields``: names, year, result …; the
        result is the board's own when the game is over and none is given)."""
        if "result" not in fields and board.is_game_over():
            fields["result"] = board.outcome().score      # type: ignore[union-attr]
        return cls(tuple(board.move_stack), board.root(), **fields)  # type: ignore[arg-type]


def _number(text: str) -> Optional[float]:
    """The number at the start of a GGF result (``+12.000``, ``-4:r``); None for ``?``."""
    head = text.strip().split(":", 1)[0]
    try:
        return float(head)
    except ValueError:
        return None
