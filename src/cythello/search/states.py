"""The states of a search, as enums: one home for their names.

Each is a ``str`` enum, so a state compares equal to its name (``result.stop_reason ==
"time"``) and prints as it always did; the C modules map their codes to these members in
one table each, next to the C enum (``_mcts.pyx``: STOP_REASONS, PROOF_NAMES;
``_rollout.pyx``: ROLLOUT_POLICIES).
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


class Rollout(str, Enum):
    """The playout policy of a tree search."""

    RANDOM = "random"             # uniformly random moves
    HEURISTIC = "heuristic"       # corners and quiet moves favoured, X/C squares avoided

    def __str__(self) -> str:
        return self.value
