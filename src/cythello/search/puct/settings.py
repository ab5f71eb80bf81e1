"""PUCT's settings: :class:`PUCTSettings`, every setting of :class:`~cythello.PUCTPlayer`
and of self-play's batched PUCT games, checked once when made."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Dict, Optional, Tuple

from ...errors import SettingsError
from ..settings import (
    _FLAG,
    DEFAULT_MAX_NODES,
    MAX_NODES,
    SettingsType,
    _choice,
    _int,
    _number,
    _setting,
    alphabeta_empties_setting,
    book_setting,
    book_variety_setting,
    budget_setting,
    check_fields,
    endgame_by_time_setting,
    endgame_empties_setting,
    progress_interval_setting,
    renamed_settings,
    reuse_tree_setting,
    seed_setting,
    selective_empties_setting,
    threads_setting,
    time_extension_setting,
    time_limit_setting,
)
from ._forest import NODE_BYTES, PuctForest

__all__ = ["PUCTSettings", "MAX_BATCH", "DEFAULT_SIMULATIONS"]

MAX_BATCH = 1 << 16
DEFAULT_SIMULATIONS = 800          # a search's budget when nothing limits it


@renamed_settings
@dataclass(frozen=True)
class PUCTSettings(SettingsType):
    """Every setting of a PUCT search, checked once when made (immutable; derive with
    :meth:`replace`).  Without an iteration (simulation) or a time limit a search runs 800
    simulations.  ``iterations`` is the budget's name in every search (it was
    ``simulations`` here, which still works, with a DeprecationWarning).  The defaults are AlphaZero's where it published them (c_puct 1.25 at
    its simulation counts, noise fraction 0.25) and one leaf per evaluator call."""

    iterations: Optional[int] = budget_setting("simulations")      # formerly simulations
    time_limit: Optional[float] = time_limit_setting()
    c_puct: float = _setting(1.25, _number(0, 100), "weight of the prior term "
                             "c_puct * P * sqrt(N) / (1 + n)")
    c_puct_base: float = _setting(0.0, _number(0, 1e9), "with N visits the prior's weight "
                                  "is c_puct + log((N + base + 1) / base), AlphaZero's "
                                  "growth (its base: 19652); 0: c_puct alone")
    minimax_weight: float = _setting(0.0, _number(0, 1), "implicit minimax: a child's mean "
                                     "is blended with the negamax of the evaluations below "
                                     "it, (1 - w) * mean + w * minimax (0: the mean alone)")
    fpu: str = _setting("parent", _choice("parent", "draw", "loss"), "the value of an "
                        "unvisited child: its parent's mean (minus fpu_reduction), a draw "
                        "or a loss")
    fpu_reduction: float = _setting(0.0, _number(0, 2), "subtracted from the parent's mean "
                                    "for an unvisited child (fpu=parent)")
    batch_size: int = _setting(1, _int(1, MAX_BATCH), "leaves gathered per evaluator call, "
                               "per game")
    threads: int = threads_setting("threads searching one tree at once (the shipped pattern "
                                   "evaluator only; a network called from Python spreads "
                                   "its search with batch_size, and 0 is one thread for it)")
    virtual_loss: float = _setting(1.0, _number(0, 10), "losses a waiting leaf counts on "
                                   "its path, so the next leaves of a batch go elsewhere")
    dirichlet_alpha: float = _setting(0.0, _number(0, 100), "root noise Dir(alpha) over "
                                      "the legal moves (0: none; self-play: about 0.5-1)")
    dirichlet_fraction: float = _setting(0.25, _number(0, 1), "weight of the root noise "
                                         "in the root priors")
    temperature: float = _setting(1.0, _number(0, 100, low_open=True), "choose_move draws "
                                  "in proportion to visits ** (1 / temperature) early on")
    temperature_moves: int = _setting(0, _int(0, 60), "how many of a game's first moves "
                                      "are drawn so (then: the most visited)")
    reuse_tree: bool = reuse_tree_setting()
    # Solved from 20 empties, as MCTSPlayer does (0: the network plays to the end, as
    # AlphaZero's search did).
    endgame_empties: int = endgame_empties_setting(20)
    endgame_by_time: bool = endgame_by_time_setting()
    alphabeta_empties: int = alphabeta_empties_setting()
    selective_empties: int = selective_empties_setting()
    time_extension: float = time_extension_setting()
    max_nodes: Optional[int] = _setting(
        None, _int(16, MAX_NODES), f"each tree's node cap, {NODE_BYTES} bytes a node (default "
        f"{DEFAULT_MAX_NODES:,} per thread searching it)", optional=True)
    recycle: bool = _setting(True, _FLAG, "a full tree drops the children of its least "
                             "visited nodes and grows on (false: it stops growing and "
                             "searches on within the nodes it has)")
    seed: Optional[int] = seed_setting()
    progress_interval: float = progress_interval_setting()
    book: Any = book_setting()
    book_variety: float = book_variety_setting()

    KIND: ClassVar[str] = "PUCT"
    RENAMED: ClassVar[Dict[str, str]] = {"simulations": "iterations"}

    def __post_init__(self) -> None:
        check_fields(self)
        if self.threads > 1 and self.batch_size > 1:
            raise SettingsError("threads and batch_size are two ways to spread a search "
                                f"(threads={self.threads}, batch_size={self.batch_size}): "
                                "choose one")

    @property
    def nodes_per_tree(self) -> int:
        """Each tree's node cap: ``max_nodes``, else the default for its threads.  Per
        thread, as SearchSettings' pools: the threads fill a tree that many times faster,
        and a full tree's recycling is one thread's work while the others wait (at 16
        threads a 4-million-node tree fills in about a third of a second, from the
        simulations a second measured there: docs/results/benchmarks.md)."""
        if self.max_nodes is not None:
            return self.max_nodes
        return DEFAULT_MAX_NODES * self.search_threads

    @property
    def search_threads(self) -> int:
        """The threads a search of these settings runs on (see SettingsType's); a batched
        search (``batch_size`` > 1) is one thread: the batch is its way to spread."""
        return 1 if self.batch_size > 1 else super().search_threads

    @property
    def limits(self) -> Tuple[Optional[int], Optional[float]]:
        """A search's (simulations, seconds) when its call gives none: the settings' own,
        or 800 simulations when they have neither (as SearchSettings.limits)."""
        if self.iterations is None and self.time_limit is None:
            return DEFAULT_SIMULATIONS, None
        return self.iterations, self.time_limit

    def forest(self, games: int = 1) -> PuctForest:
        """C trees for ``games`` games with these settings."""
        return PuctForest(games, games * self.batch_size, self.nodes_per_tree, self.c_puct,
                          self.fpu, self.fpu_reduction, self.virtual_loss, self.c_puct_base,
                          self.minimax_weight)
