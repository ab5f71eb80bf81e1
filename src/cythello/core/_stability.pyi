from typing import Optional

from ._board import Board

def stable_squares(board: Board, color: Optional[int] = None) -> int: ...
