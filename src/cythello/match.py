"""Games and matches between players, with the score as an Elo difference and error bar."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional, Sequence, Set, Tuple

from .core._board import Board
from .errors import IllegalMoveError
from .squares import BLACK, WHITE


def play_game(black: Any, white: Any, start: Optional[Board] = None,
              on_move: Optional[Callable[[Board, int], None]] = None,
              times: Optional[List[float]] = None) -> Board:
    """Play one game between two players (objects with ``choose_move``) and return the
    final board, its move stack holding the game.  ``times``, if given, receives each
    move's thinking time in seconds.  An illegal move from a player raises
    :class:`IllegalMoveError` naming the player."""
    board = Board() if start is None else start.copy()
    players = (black, white)
    while not board.is_game_over():
        player = players[board.turn]
        started = time.perf_counter()
        move = player.choose_move(board.copy())
        if times is not None:
            times.append(time.perf_counter() - started)
        if not board.is_legal(move):
            raise IllegalMoveError(f"{player!r} played the illegal move {move!r} in {board!r}")
        board.push(move)
        if on_move is not None:
            on_move(board, move)
    return board


@dataclass
class MatchResult:
    """Wins, draws and losses of the first player, with the games' final boards."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    games: List[Board] = field(default_factory=list)
    times: List[List[float]] = field(default_factory=list)   # seconds per move, per game

    @property
    def played(self) -> int:
        """Games finished."""
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Points of the first player per game (win 1, draw 0.5)."""
        return (self.wins + 0.5 * self.draws) / self.played if self.played else 0.5

    def elo(self) -> Tuple[float, float]:
        """Elo difference of the first player and its 95% error margin."""
        return elo_difference(self.wins, self.draws, self.losses)

    def summary(self) -> str:
        """``+W =D -L  score S  Elo E ± M`` on one line."""
        diff, margin = self.elo()
        return (f"+{self.wins} ={self.draws} -{self.losses}  score {self.score:.3f}  "
                f"Elo {diff:+.0f} ± {margin:.0f}")


def _elo(score: float) -> float:
    score = min(max(score, 1e-3), 1 - 1e-3)
    return -400.0 * math.log10(1.0 / score - 1.0) + 0.0   # + 0.0: no "-0" for an even score


def elo_difference(wins: int, draws: int, losses: int) -> Tuple[float, float]:
    """Elo difference from a match score and the half-width of its 95% interval.  The
    interval is Wilson's for the score, so it stays honest for 20-0 sweeps (where the point
    estimate is clipped at +1200)."""
    n = wins + draws + losses
    if n == 0:
        return 0.0, float("inf")
    score = (wins + 0.5 * draws) / n
    z = 1.96
    centre = (score + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(score * (1 - score) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    low, high = _elo(centre - half), _elo(centre + half)
    return _elo(score), (high - low) / 2


def run_match(first: Any, second: Any, games: int, openings: Optional[Sequence[Board]] = None,
              on_game: Optional[Callable[[int, Board, MatchResult], None]] = None) -> MatchResult:
    """``games`` games, colours alternating (``first`` is black in even-numbered games).
    Each pair of games starts from the same opening when ``openings`` are given."""
    result = MatchResult()
    for g in range(games):
        start = None
        if openings:
            start = openings[(g // 2) % len(openings)]
        first_is_black = g % 2 == 0
        black, white = (first, second) if first_is_black else (second, first)
        times: List[float] = []
        final = play_game(black, white, start, times=times)
        outcome = final.outcome()
        assert outcome is not None
        winner = outcome.winner
        mine = BLACK if first_is_black else WHITE
        if winner is None:
            result.draws += 1
        elif winner == mine:
            result.wins += 1
        else:
            result.losses += 1
        result.games.append(final)
        result.times.append(times)
        if on_game is not None:
            on_game(g, final, result)
    return result


def random_openings(count: int, plies: int, seed: int = 0) -> List[Board]:
    """Distinct positions after ``plies`` random moves from the start, for fairer matches."""
    import random
    rng = random.Random(seed)
    seen: Set[Board] = set()
    out: List[Board] = []
    attempts = 0
    while len(out) < count and attempts < count * 100:
        attempts += 1
        b = Board()
        for _ in range(plies):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        if not b.is_game_over() and b not in seen:
            seen.add(b)
            out.append(b)
    return out
