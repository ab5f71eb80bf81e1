"""What a search tree reports of its nodes, as named records (``SearchTree.child_stats``,
``node_visit_sums``): tuples still, so they unpack as before, with names to read them by."""
from __future__ import annotations

from typing import NamedTuple, Optional

from ..states import Proof


class ChildStats(NamedTuple):
    """A child of a tree node: the move to it and its statistics."""

    move: int                    # square 0-63, or PASS
    visits: int
    reward: float                # summed over the visits, for the player making the move
    proof: Optional[Proof]       # for the player making the move
    node: int                    # its index in the tree (for child_stats(node))
    value: Optional[float]       # the evaluation's minimax estimate of the final disc
                                 # difference for the player making the move (None without
                                 # an evaluation)


class NodeSums(NamedTuple):
    """For tests of a tree's invariants: one node's numbers against its children's."""

    visits: int
    child_visits: int            # summed over its children
    expanded: bool
    proven: bool
    reward: float
    claimed: bool                # a thread of a shared search claimed its expansion
