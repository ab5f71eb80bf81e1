"""PUCT: AlphaZero's search, a prior-guided tree whose leaves take an evaluator's value, in
C (``_forest.pyx``: the trees of one or many games, their batches of leaves), with
:class:`PUCTSearch` as the backend of the engine shell and :class:`PUCTPlayer` the player
(``search.py``), set by :class:`PUCTSettings` (``settings.py``)."""
from .search import (
    Evaluate,
    PUCTPlayer,
    PUCTSearch,
    _player,  # noqa: F401  (pickled players name it here)
    check_batch_games,
    visit_weights,
)
from .settings import DEFAULT_SIMULATIONS, MAX_BATCH, PUCTSettings

__all__ = ["PUCTPlayer", "PUCTSearch", "PUCTSettings", "Evaluate", "check_batch_games",
           "visit_weights", "DEFAULT_SIMULATIONS", "MAX_BATCH"]
