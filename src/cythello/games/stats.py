"""What a games database says about one position: the moves played there, how often, and how
the games went on from each (an opening explorer's table)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

from ..core._board import Board
from ..squares import COLOR_NAMES, square_name


@dataclass(frozen=True)
class MoveStat:
    """One move played in the position, over the games that played it.

    ``wins``/``draws``/``losses`` and ``mean_score`` are for the side that played it, by
    the games' recorded results (the games without one count in ``games`` only);
    ``mean_theoretical`` is that side's mean perfect-play score from the records'
    theoretical-score position (WTHOR: 24 empties), which leaves out the mistakes made
    after it; ``players``: who played it most, with how often."""

    move: int
    games: int
    wins: int
    draws: int
    losses: int
    mean_score: Optional[float]
    mean_theoretical: Optional[float]
    players: Tuple[Tuple[str, int], ...]

    @property
    def name(self) -> str:
        return square_name(self.move)

    @property
    def win_rate(self) -> Optional[float]:
        """Wins plus half the draws, over the games with a result."""
        known = self.wins + self.draws + self.losses
        return None if not known else (self.wins + 0.5 * self.draws) / known


@dataclass(frozen=True)
class PositionStats:
    """The games through a position (up to the 8 symmetries; moves named in the position's
    own frame), most played move first.  ``games`` counts the games through the position;
    it is more than the moves' games when some ended there."""

    board: Board
    games: int
    moves: Tuple[MoveStat, ...]

    def __getitem__(self, move: object) -> MoveStat:
        """The statistics of one move (a square or a name)."""
        for stat in self.moves:
            if move in (stat.move, stat.name):
                return stat
        raise KeyError(move)

    def table(self, limit: Optional[int] = None) -> str:
        """The statistics as a table for a terminal (``limit``: that many moves at most)."""
        board = self.board
        mover = COLOR_NAMES[board.turn]
        head = f"{self.games:,} game{'s' if self.games != 1 else ''} through this position"
        if not self.moves:
            return head + ("" if self.games else " (none in the database)")
        lines = [head + f"; {mover} to move, results for {mover}:",
                 f"{'move':<5}{'games':>9}{'share':>7}{'win':>7}{'draw':>6}{'loss':>7}"
                 f"{'score':>8}{'perfect':>9}  most played by"]
        for stat in self.moves[:limit]:
            known = stat.wins + stat.draws + stat.losses

            def pct(k: int, known: int = known) -> str:
                return f"{100 * k / known:.0f}%" if known else "-"

            def disc(x: Optional[float]) -> str:
                return "-" if x is None else f"{x:+.1f}"

            who = ", ".join(f"{name} ({n})" for name, n in stat.players)
            lines.append(f"{stat.name:<5}{stat.games:>9,}{100 * stat.games / self.games:>6.1f}%"
                         f"{pct(stat.wins):>7}{pct(stat.draws):>6}{pct(stat.losses):>7}"
                         f"{disc(stat.mean_score):>8}{disc(stat.mean_theoretical):>9}  {who}")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()

    def best(self, min_games: int = 1) -> List[MoveStat]:
        """The moves played at least ``min_games`` times, by mean score (best first)."""
        rated = [s for s in self.moves if s.games >= min_games and s.mean_score is not None]
        return sorted(rated, key=lambda s: -s.mean_score)   # type: ignore[operator]
