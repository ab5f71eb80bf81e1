"""The states of a search, as enums: one home for their names.

Each is a ``str`` enum, so a state compares equal to its name (``result.stop_reason ==
"time"``) and prints as it always did; the C modules map their codes to these members in
one table each, next to the C enum (``uct/_tree.pyx``: STOP_REASONS, PROOF_NAMES;
``uct/_rollout.pyx``: ROLLOUT_POLICIES).
"""
from __future__ import annotations

from enum import Enum


class StopReason(str, Enum):
    """Why a search ended."""

    ITERATIONS = "iterations"     # its iteration budget was spent
    DEPTH = "depth"               # an alpha-beta search finished its deepest depth
    TIME = "time"                 # its time limit (or the clock) ran out
    NODES = "nodes"               # the node pool was full
    STOPPED = "stopped"           # stop() was called
    SOLVED = "solved"             # MCTS-Solver proved the root
    EXACT = "exact"               # the endgame solver decided the move
    DECIDED = "decided"           # early stop: the best move could no longer change
    BOOK = "book"                 # the opening book gave the move, without a search
    RUNNING = "running"           # a progress snapshot: the search goes on

    def __str__(self) -> str:
        return self.value

    @property
    def explanation(self) -> str:
        """Why the search ended, in words for a user (who may have asked for more time)."""
        return _STOP_WORDS[self]


_STOP_WORDS = {
    StopReason.ITERATIONS: "its iteration limit was reached (the preset's, --iterations, or "
                           "the 4 billion visits a tree can count)",
    StopReason.DEPTH: "it reached its depth limit",
    StopReason.TIME: "its time ran out",
    StopReason.NODES: "its node pool was full and nothing could be recycled (raise "
                      "--max-nodes, or turn recycling on)",
    StopReason.STOPPED: "it was stopped",
    StopReason.SOLVED: "the tree search proved the result",
    StopReason.EXACT: "the endgame solver found the exact score",
    StopReason.DECIDED: "the best move could no longer change in the time left (early "
                        "stopping)",
    StopReason.BOOK: "the opening book gave the move",
    StopReason.RUNNING: "it is still running",
}


class Proof(str, Enum):
    """What a proof says about a move or position, for the side that made or faces it."""

    WIN = "win"
    LOSS = "loss"
    DRAW = "draw"

    def __str__(self) -> str:
        return self.value

    @property
    def win_rate(self) -> float:
        """What the proof is worth as a win rate: 1 for a win, 1/2 a draw, 0 a loss."""
        return {"win": 1.0, "draw": 0.5, "loss": 0.0}[self.value]


class ValueKind(str, Enum):
    """Where a value in discs comes from: every place that shows one (``analyse``, NBoard's
    ``search`` lines, JSON) names it with these words, most trustworthy first."""

    EXACT = "exact"               # the endgame solver's exact score
    PROVEN = "proven"             # a proven win, draw or loss (discs +64, 0, -64 stand in)
    BOOK = "book"                 # the opening book's value (deep searches of every line)
    ALPHABETA = "alpha-beta"      # an alpha-beta search's score at the depth it finished
    MINIMAX = "minimax"           # the learned evaluation's minimax over a UCT tree
    WIN_RATE = "win rate"         # a tree search's win rate read as discs (the logistic)

    def __str__(self) -> str:
        return self.value

    @property
    def words(self) -> str:
        """The kind in words, for a line a user reads beside the number."""
        return _VALUE_WORDS[self]


_VALUE_WORDS = {
    ValueKind.EXACT: "exact score",
    ValueKind.PROVEN: "proven result",
    ValueKind.BOOK: "the opening book's value",
    ValueKind.ALPHABETA: "alpha-beta score",
    ValueKind.MINIMAX: "the evaluation's minimax",
    ValueKind.WIN_RATE: "from the win rate",
}


class Rollout(str, Enum):
    """The playout policy of a tree search."""

    RANDOM = "random"             # uniformly random moves
    HEURISTIC = "heuristic"       # corners and quiet moves favoured, X/C squares avoided

    def __str__(self) -> str:
        return self.value
