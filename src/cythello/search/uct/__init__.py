"""UCT: Monte Carlo Tree Search with UCB1 selection, expansion, playouts or the learned
evaluation at the leaves, and backpropagation, in C (``_tree.pyx``: the tree; ``_pool.pyx``:
its node pool and recycling; ``_transpositions.pyx``: the table of positions reached by
several move orders; ``_rollout.pyx``: the playouts), with :class:`UCTSearch` as the
backend of the engine shell and :class:`MCTSPlayer` the player (``search.py``), set by
:class:`SearchSettings` (``settings.py``)."""
from .search import (
    MCTSPlayer,
    UCTSearch,
    _player_from_settings,  # noqa: F401  (pickled players name it here)
)
from .settings import SearchSettings

__all__ = ["MCTSPlayer", "UCTSearch", "SearchSettings"]
