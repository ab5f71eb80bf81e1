"""Game analysis: every move of a game searched, with its value, the engine's best move
and the discs the move played lost (what ``cythello analyse --game`` prints, graphs and
writes as JSON)."""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ..core._board import Board
from ..squares import COLOR_NAMES, PASS, square_name
from .endgame import SolveAborted, solve_moves
from .engine import EnginePlayer
from .results import MoveStats, SearchResult

__all__ = ["MoveReview", "analyse_game", "black_view", "with_exact_scores"]

EXACT_TIME = 10.0            # seconds to give every move of a solved position its score


@dataclass
class MoveReview:
    """One move of a game, judged by a search of the position before it (values in discs
    for the side to move; None where unknown)."""

    ply: int                          # 1 for the game's first move
    colour: str                       # "black" or "white": who played it
    move: str                         # the move played
    best: str                         # the engine's choice
    forced: bool                      # the only legal move (or a pass): not searched
    value: Optional[float] = None     # of the move played
    best_value: Optional[float] = None   # of the engine's choice
    loss: Optional[float] = None      # best_value - value, at least 0
    exact: bool = False               # values are exact scores (the position was solved)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def with_exact_scores(board: Board, result: SearchResult) -> SearchResult:
    """A solved position lists every move's exact score, as the .obf files do."""
    if result.stop_reason == "exact":
        try:
            scores = solve_moves(board, time_limit=EXACT_TIME)
            result.moves = sorted((MoveStats.exact(m, v) for m, v in scores.items()),
                                  key=lambda s: -(s.score or 0))
        except SolveAborted:
            pass
    return result


def analyse_game(start: Board, moves: Sequence[int], player: EnginePlayer,
                 progress: Optional[Callable[[int, int], None]] = None) -> List[MoveReview]:
    """Every move of the game from ``start``: searched by ``player`` (its opening book
    aside), valued by :attr:`MoveStats.discs` -- the one mapping NBoard reports too.
    ``progress(done, total)`` after each move."""
    reviews = []
    board = start.copy(stack=False)
    for ply, move in enumerate(moves):
        legal = list(board.legal_moves)
        review = MoveReview(ply + 1, COLOR_NAMES[board.turn], square_name(move),
                            square_name(legal[0]), forced=legal == [PASS] or len(legal) == 1)
        if not review.forced:
            result = with_exact_scores(board, player.search(board, book=False))
            values = {s.move: s.discs for s in result.moves if s.discs is not None}
            review.best = result.best_move_name
            # The value of the engine's choice (the most searched move), not the largest
            # value of any move: a move searched a few times can show a lucky mean, and
            # playing the engine's own choice must cost nothing.
            review.best_value = values.get(result.best_move,
                                           max(values.values()) if values else None)
            review.value = values.get(move)
            if review.value is None:
                # A move the search did not value (alpha-beta values its best move only, a
                # tree search leaves some moves unvisited): the move played is valued by a
                # search of the position it reached, from the other side.
                after = board.copy(stack=False)
                after.push(move)
                if after.is_game_over():
                    outcome = after.outcome()
                    assert outcome is not None
                    review.value = float(outcome.score_for(board.turn))
                else:
                    reply = player.search(after, book=False).discs
                    review.value = None if reply is None else -reply
            review.exact = result.exact_score is not None
            if review.value is not None and review.best_value is not None:
                review.loss = max(0.0, review.best_value - review.value)
        reviews.append(review)
        board.push(move)
        if progress is not None:
            progress(ply + 1, len(moves))
    return reviews


def black_view(reviews: Sequence[MoveReview]) -> List[Tuple[int, Optional[float]]]:
    """The evaluation after each move from black's side (the best move's value before it,
    as NBoard's graph shows), forced moves carrying the last value."""
    points, last = [], None
    for review in reviews:
        if review.best_value is not None:
            last = review.best_value if review.colour == "black" else -review.best_value
        points.append((review.ply, last))
    return points
