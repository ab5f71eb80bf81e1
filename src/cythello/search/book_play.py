"""How a searching player plays from its opening book: the book's answer for a position
as a search result (``stop_reason`` "book"), the same for every player."""
from __future__ import annotations

import random
import time
from typing import Optional

from ..book.store import Book, draw_book_move
from ..core._board import Board
from .results import MoveStats, SearchResult
from .states import StopReason


def book_result(book: Optional[Book], board: Board, variety: float, rng: random.Random,
                value_scale: float, threads: int = 1) -> Optional[SearchResult]:
    """``book``'s answer for ``board``: a move drawn within ``variety`` discs of the best
    (by ``rng``), every book move with its value (as a win rate through the logistic of
    ``value_scale`` discs a unit); None outside the book (or without one)."""
    start = time.monotonic()
    known = book.moves(board) if book is not None else []
    if not known:
        return None
    choice = draw_book_move(known, variety, rng)
    moves = [MoveStats.valued(m.move, m.value, value_scale) for m in known]
    chosen = next(s for s in moves if s.move == choice.move)
    return SearchResult(
        best_move=choice.move, iterations=0, root_visits=0, nodes=0,
        elapsed=time.monotonic() - start, win_rate=chosen.win_rate,
        principal_variation=[choice.move], moves=moves, stop_reason=StopReason.BOOK,
        threads=threads, value=chosen.value)
