"""What a search reports: each root move's statistics, the search's result, and how a
player's trees are summed into them."""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ..core._board import Board, transform_square
from ..squares import PASS, square_name
from .states import Proof, StopReason, ValueKind

__all__ = ["MoveStats", "SearchResult", "RootMove", "pool_symmetric_moves", "best_move",
           "overall_reason", "DISC_SCALE", "win_rate_of"]

# Discs a unit of the logistic between a disc value and a win rate, wherever one stands for
# the other (a win rate shown as discs, a book value or an alpha-beta score as a win rate).
DISC_SCALE = 8.0


def win_rate_of(discs: float, scale: float = DISC_SCALE) -> float:
    """The win rate a value of ``discs`` stands for (the logistic of ``scale`` discs;
    written so that no value overflows)."""
    x = discs / scale
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = math.exp(x)
    return e / (1.0 + e)


@dataclass
class MoveStats:
    """Search statistics of one root move; ``win_rate`` is for the side to move."""

    move: int
    visits: int
    win_rate: float
    proof: Optional[Proof] = None      # win, loss or draw once a solver proved it
    score: Optional[int] = None        # exact disc difference, from the endgame solver
    value: Optional[float] = None      # the evaluation's estimate of the final disc difference

    @property
    def name(self) -> str:
        """The move as text."""
        return square_name(self.move)

    @property
    def discs(self) -> Optional[float]:
        """The best estimate of the final disc difference after this move, for the side to
        move: the exact score when solved, else the evaluation's value, else the win rate
        mapped onto discs through the same logistic (8 discs a unit) the search uses for
        the evaluation; None for a move never searched."""
        if self.score is not None:
            return float(self.score)
        if self.value is not None:
            return self.value
        if self.proof is not None:
            return {Proof.WIN: 64.0, Proof.LOSS: -64.0, Proof.DRAW: 0.0}[self.proof]
        if not self.visits:
            return None
        p = min(max(self.win_rate, 1e-6), 1 - 1e-6)
        return max(-64.0, min(64.0, round(DISC_SCALE * math.log(p / (1 - p)), 2)))

    @classmethod
    def valued(cls, move: int, discs: float, scale: float = DISC_SCALE) -> "MoveStats":
        """Stats of a move known by its value alone (an opening book's): the win rate is
        the value through the logistic (``scale`` discs a unit) that :attr:`discs`
        inverts."""
        return cls(move, 0, win_rate_of(discs, scale), None, None, discs)

    @classmethod
    def exact(cls, move: int, score: int) -> "MoveStats":
        """Stats of a move whose exact score the endgame solver found."""
        proof = Proof.WIN if score > 0 else Proof.LOSS if score < 0 else Proof.DRAW
        return cls(move, 0, proof.win_rate, proof, score, float(score))


@dataclass
class SearchResult:
    """What a search found and what it cost."""

    best_move: int
    iterations: int                    # iterations run by this search
    root_visits: int                   # iterations behind the statistics (reused ones too)
    nodes: int
    elapsed: float
    win_rate: float                    # for the side to move at the root
    principal_variation: List[int]
    moves: List[MoveStats]             # most visited first
    stop_reason: StopReason            # why it ended (see StopReason: book, exact, time, ...)
    proof: Optional[Proof] = None      # the solver's verdict for the side to move
    reused_visits: int = 0
    threads: int = 1
    exact_score: Optional[int] = None  # set when the endgame solver decided the move
    value: Optional[float] = None      # estimated final disc difference (side to move)
    depth: Optional[int] = None        # an alpha-beta search: the deepest depth finished
    # ... and how sure each of its Multi-ProbCut cuts was (1.0: full width): a per-cut
    # confidence, not the chance that the value is exact (docs/explanation/engine.md).
    probability: Optional[float] = None

    @property
    def discs(self) -> Optional[float]:
        """The best estimate of the final disc difference for the side to move (see
        :attr:`MoveStats.discs`), from the best move."""
        if self.exact_score is not None:
            return float(self.exact_score)
        best = self.best_stats
        return best.discs if best is not None else None

    @property
    def best_stats(self) -> Optional[MoveStats]:
        """The statistics of the best move (None when the result lists none)."""
        return next((s for s in self.moves if s.move == self.best_move), None)

    def value_kind(self, stats: Optional[MoveStats] = None) -> Optional[ValueKind]:
        """Where the discs of ``stats`` (a move of this result; without it, of the result)
        come from, in the order :attr:`MoveStats.discs` takes them; None without a value."""
        if stats is None:
            if self.exact_score is not None:
                return ValueKind.EXACT
            stats = self.best_stats
            if stats is None:
                return None
        if stats.score is not None:
            return ValueKind.EXACT
        if stats.value is not None:
            if stats.proof is not None and self.stop_reason == StopReason.EXACT:
                return ValueKind.PROVEN        # a solve cut short: the score proven so far
            if self.stop_reason == StopReason.BOOK:
                return ValueKind.BOOK
            return ValueKind.ALPHABETA if self.depth is not None else ValueKind.MINIMAX
        if stats.proof is not None:
            return ValueKind.PROVEN
        return ValueKind.WIN_RATE if stats.visits else None

    def value_text(self) -> Optional[str]:
        """The result's value for a line a user reads, naming where it comes from
        (``+2 discs (exact score)``, ``+0.7 discs (alpha-beta score, depth 14@87%)``,
        ``about +1.0 discs (from the win rate)``); None without a value."""
        kind, discs = self.value_kind(), self.discs
        if kind is None or discs is None:
            return None
        if kind == ValueKind.EXACT:
            return f"{discs:+.0f} discs ({kind.words})"
        if kind == ValueKind.PROVEN:
            best = self.best_stats
            verdict = self.proof or (best.proof if best is not None else None)
            bound = f", at least {discs:+.0f} discs" if abs(discs) < 64 else ""
            return f"a {verdict} ({kind.words}{bound})"
        if kind == ValueKind.ALPHABETA:
            return f"{discs:+.1f} discs ({kind.words}, depth {self.depth_text})"
        return f"about {discs:+.1f} discs ({kind.words})"

    @property
    def depth_text(self) -> Optional[str]:
        """An alpha-beta search's depth as classic engines print it: ``"15"`` full width,
        ``"15@87%"`` with Multi-ProbCut (the confidence of each cut, as Edax prints it, not
        the chance that the score is exact); None for a tree search."""
        if self.depth is None:
            return None
        if self.probability is None or self.probability >= 1.0:
            return str(self.depth)
        return f"{self.depth}@{self.probability:.0%}"

    @property
    def iterations_per_second(self) -> float:
        """Iterations of this search per second of wall time."""
        return self.iterations / self.elapsed if self.elapsed > 0 else 0.0

    @property
    def best_move_name(self) -> str:
        """The best move as text (``"f5"``, ``"pass"``)."""
        return square_name(self.best_move)

    def to_dict(self) -> Dict[str, Any]:
        """Plain data (move names added) for JSON and logs."""
        d = asdict(self)
        d["best_move_name"] = self.best_move_name
        d["iterations_per_second"] = self.iterations_per_second
        d["discs"] = self.discs           # the one scale every search answers in
        kind = self.value_kind()
        d["value_kind"] = kind.value if kind is not None else None
        d["principal_variation"] = [square_name(m) for m in self.principal_variation]
        for row, stats in zip(d["moves"], self.moves):
            row["name"] = stats.name
            row["discs"] = stats.discs
            kind = self.value_kind(stats)
            row["value_kind"] = kind.value if kind is not None else None
        return d


@dataclass
class RootMove:
    """A root move's statistics summed over a player's trees."""

    visits: int = 0
    reward: float = 0.0                       # summed over the visits
    proof: Optional[Proof] = None
    values: List[float] = field(default_factory=list)      # each evaluated tree's value
    pooled: Optional[Tuple[float, Optional[float]]] = None  # a symmetric move's orbit's

    @property
    def win_rate(self) -> float:
        if self.pooled is not None:
            return self.pooled[0]
        return self.reward / self.visits if self.visits else 0.0

    @property
    def value(self) -> Optional[float]:
        if self.pooled is not None:
            return self.pooled[1]
        return sum(self.values) / len(self.values) if self.values else None


def pool_symmetric_moves(board: Board, merged: Dict[int, RootMove]) -> None:
    """Moves that a symmetry of the position maps onto each other (the four first moves)
    are equally good: give each the win rate and value of its whole orbit, so that search
    noise does not show as a difference."""
    symmetries = [k for k in range(1, 8) if board.transform(k) == board]
    if not symmetries:
        return
    orbits: Dict[int, List[int]] = {}
    for move in merged:
        if move == PASS:
            continue
        key = min([move] + [transform_square(move, k) for k in symmetries])
        orbits.setdefault(key, []).append(move)
    for members in orbits.values():
        if len(members) < 2:
            continue
        visits = sum(merged[m].visits for m in members)
        reward = sum(merged[m].reward for m in members)
        values = [v for m in members for v in merged[m].values]
        win_rate = reward / visits if visits else 0.0
        value = sum(values) / len(values) if values else None
        for m in members:
            merged[m].pooled = (win_rate, value)


def best_move(moves: Sequence[MoveStats]) -> int:
    """A proven win; else the most-visited move not proven lost (ties by win rate);
    else (everything lost) the most-visited move."""
    wins = [s for s in moves if s.proof == Proof.WIN]
    if wins:
        return wins[0].move
    alive = [s for s in moves if s.proof != Proof.LOSS] or list(moves)
    return max(alive, key=lambda s: (s.visits, s.win_rate)).move


def overall_reason(reasons: Sequence[StopReason]) -> StopReason:
    for r in (StopReason.SOLVED, StopReason.STOPPED, StopReason.NODES, StopReason.DECIDED,
              StopReason.TIME):
        if r in reasons:
            return r
    return StopReason.ITERATIONS


# A search whose runner-up has this share of the best move's visits is unsettled: time
# extension goes on searching it (with the "unstable" rule of Huang, Coulom and Lin 2010:
# the most visited move is not the best valued).
UNSETTLED_RATIO = 0.5


def unsettled(visits: Dict[int, int], values: Dict[int, float]) -> bool:
    """Whether a tree search's root has not made up its mind: its two most visited moves
    are close (``UNSETTLED_RATIO``), or the most visited is not the best valued.
    ``visits`` and ``values`` (any scale, larger better) by move; a move may lack a value."""
    if len(visits) < 2:
        return False
    ranked = sorted(visits, key=visits.__getitem__, reverse=True)
    if visits[ranked[1]] >= UNSETTLED_RATIO * visits[ranked[0]]:
        return True
    return bool(values) and max(values, key=values.__getitem__) != ranked[0]

