"""UCT's settings: :class:`SearchSettings`, every setting of :class:`~cythello.MCTSPlayer`
and its C tree (:class:`~cythello.search.uct._tree.SearchTree`), checked once when made.
``settings_table(SearchSettings)`` lists them; the command line's ``mcts:key=value`` specs
are parsed by its fields (:mod:`cythello.search.settings` has what every settings type
shares)."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Optional, Tuple

from ...errors import SettingsError
from ..presets import PRESETS
from ..settings import (
    _FLAG,
    _WEIGHTS,
    DEFAULT_ITERATIONS,
    DEFAULT_MAX_NODES,
    MAX_MEMORY_MB,
    MAX_NODES,
    SettingsType,
    _choice,
    _from_dict,
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
    load_eval_weights,
    progress_interval_setting,
    renamed_settings,
    reuse_tree_setting,
    seed_setting,
    selective_empties_setting,
    threads_setting,
    time_extension_setting,
    time_limit_setting,
)
from ..states import Rollout
from ._pool import AMAF_BYTES_PER_NODE, NODE_BYTES
from ._transpositions import TABLE_BYTES_PER_NODE

__all__ = ["SearchSettings"]


@renamed_settings
@dataclass(frozen=True)
class SearchSettings(SettingsType):
    """Every setting of a tree search, checked once when made; immutable (derive changed
    settings with :meth:`replace`).  ``SearchSettings(**options)`` takes the fields below by
    name; :meth:`preset` starts from a difficulty level.  Without an iteration or a time
    limit a search runs 1,000 iterations.

    The defaults are the strongest measured search (the expert preset's: the learned
    evaluation valuing every new child and leaf, minimax backups, exploration 0.6, values
    read as win rates at 4 discs a logistic unit, the exact solver from 20 empties);
    ``SearchSettings.preset("classic")`` is plain UCT with playouts and no evaluation, as
    cythello 0.1.0 searched."""

    iterations: Optional[int] = budget_setting("iterations")
    time_limit: Optional[float] = time_limit_setting()
    exploration: float = _setting(
        0.6, _number(0, 100), "UCB1's exploration constant c")
    # Tolpin & Shimony's UCB-sqrt at the root (simple regret: only the move played counts
    # there): its term grows as N**0.25 where UCB1's barely grows.  Off: it did not win
    # its matches (docs/explanation/engine.md, "Search options").
    root_exploration: float = _setting(
        0.0, _number(0, 100), "at the root, c_r in c_r * N**0.25 / sqrt(n) instead of "
        "UCB1's term (0: UCB1's)")
    rollout: str = _setting(
        "heuristic", _choice(*(r.value for r in Rollout)), "the playout policy")
    threads: int = threads_setting("threads searching in parallel")
    parallel: str = _setting(
        "tree", _choice("tree", "root"), "threads share one tree with virtual loss (tree) or "
        "grow one each and sum their root statistics (root: reproducible with a seed)")
    seed: Optional[int] = seed_setting()
    reuse_tree: bool = reuse_tree_setting()
    max_nodes: Optional[int] = _setting(
        None, _int(16, MAX_NODES), f"each tree's node cap (default {DEFAULT_MAX_NODES:,} "
        "per thread searching it)", optional=True)
    max_memory_mb: Optional[float] = _setting(
        None, _number(0, MAX_MEMORY_MB, low_open=True, text="MB, more than 0"), "the memory of all trees in MB, "
        "instead of max_nodes", optional=True)
    recycle: bool = _setting(
        True, _FLAG, "a full node pool drops the least visited subtrees and the search goes "
        "on (false: the search stops when the pool is full)")
    disc_weight: float = _setting(
        0.0, _number(0, 1), "weight of the final disc difference in a playout's reward")
    progress_interval: float = progress_interval_setting()
    endgame_empties: int = endgame_empties_setting(20)
    endgame_by_time: bool = endgame_by_time_setting()
    alphabeta_empties: int = alphabeta_empties_setting()
    selective_empties: int = selective_empties_setting()
    progressive_bias: float = _setting(
        0.0, _number(0, 100), "weight b of the prior in b * prior / (n + 1)")
    eval_weights: Any = _setting(
        "default", _WEIGHTS, "the pattern evaluation: 'default' (the shipped weights), a "
        "weights file or PatternWeights (None: none, square knowledge for the prior)",
        optional=True)
    # 4 discs: where the shipped evaluation's value best predicts the exact outcome
    # (research/evaluation/capacity.py), and the value that won its matches against 8
    # (CHANGELOG, 0.3.0).
    eval_scale: float = _setting(
        4.0, _number(0.1, 100), "discs per unit of the logistic from values to win rates")
    minimax_weight: float = _setting(
        0.7, _number(0, 1), "weight of a child's minimax value in its mean reward")
    leaf_eval: float = _setting(
        1.0, _number(0, 1), "weight of the evaluation in a new leaf's value (1: no playouts)")
    eval_depth: int = _setting(
        1, _int(1, 4), "plies of alpha-beta behind a new child's value (1: the evaluation "
        "after the move; more: a shallow search from there, an MCTS-minimax hybrid)")
    early_stop: bool = _setting(
        False, _FLAG, "stop once the most visited move cannot be overtaken")
    widening: float = _setting(
        0.0, _number(0, 100), "progressive widening: 1 + w * n**0.4 children after n visits")
    transpositions: bool = _setting(
        False, _FLAG, "positions reached by several move orders share their children")
    rave: float = _setting(
        0.0, _number(0, 1e9), "RAVE's equivalence parameter k (0: off)")
    time_extension: float = time_extension_setting()
    expand_after: int = _setting(
        1, _int(1, 1 << 20), "visits of a leaf before it is expanded")
    book: Any = book_setting()
    book_variety: float = book_variety_setting()

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def limits(self) -> Tuple[Optional[int], Optional[float]]:
        """A search's (iterations, seconds) when its call gives none: the settings' own,
        or 1,000 iterations when they have neither.  (Only then: under a game clock the
        clock gives the time and ``iterations``, when set, stays a cap: a level's.)"""
        if self.iterations is None and self.time_limit is None:
            return DEFAULT_ITERATIONS, None
        return self.iterations, self.time_limit

    @classmethod
    def preset(cls, name: str, **overrides: Any) -> SearchSettings:
        """A preset's settings (the levels ``easy``, ``medium``, ``hard``, ``expert``, or
        ``classic``: plain UCT with playouts), with ``overrides``."""
        if name not in PRESETS:
            raise SettingsError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
        return cls(**{**PRESETS[name], **cls.named(overrides)})

    def __reduce__(self) -> Any:
        return (_from_dict, (self.as_dict(),))

    # -- what follows from the settings -------------------------------------------------

    @property
    def tree_count(self) -> int:
        """The trees a search grows: one the threads share, or one per thread (root)."""
        return 1 if self.parallel == "tree" else self.search_threads

    @property
    def tree_threads(self) -> int:
        """The threads searching each tree."""
        return self.search_threads if self.parallel == "tree" else 1

    @property
    def bytes_per_node(self) -> float:
        """Memory per node: the node, and the table and RAVE statistics when on."""
        return (NODE_BYTES + (TABLE_BYTES_PER_NODE if self.transpositions else 0)
                + (AMAF_BYTES_PER_NODE if self.rave else 0))

    @property
    def nodes_per_tree(self) -> int:
        """Each tree's node cap: from ``max_memory_mb`` (shared by all trees), else
        ``max_nodes``, else the default for the threads searching the tree."""
        if self.max_memory_mb is not None:
            nodes = int(self.max_memory_mb * 2**20 / self.bytes_per_node / self.tree_count)
            return min(max(nodes, 16), MAX_NODES)
        if self.max_nodes is not None:
            return self.max_nodes
        return DEFAULT_MAX_NODES * self.tree_threads

    def weights(self) -> Any:
        """The evaluation weights (:class:`~cythello.eval.PatternWeights`) the settings
        name, loaded (the default once per process); None without an evaluation."""
        return load_eval_weights(self.eval_weights)

    def opening_book(self) -> Any:
        """The opening book (:class:`~cythello.book.Book`) the settings name, loaded (the
        default once per process); None without one."""
        from ...book.store import load_book
        return load_book(self.book)
