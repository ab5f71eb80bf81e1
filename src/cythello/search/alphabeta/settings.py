"""The alpha-beta player's settings: :class:`AlphaBetaSettings`, every setting of
:class:`~cythello.AlphaBetaPlayer`, checked once when made, and the limits they keep."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Optional

from ..settings import (
    _FLAG,
    _WEIGHTS,
    SettingsType,
    _int,
    _number,
    _setting,
    book_setting,
    book_variety_setting,
    budget_setting,
    check_fields,
    endgame_empties_setting,
    renamed_settings,
    seed_setting,
    selective_empties_setting,
    threads_setting,
    time_limit_setting,
)

__all__ = ["AlphaBetaSettings", "MAX_ALPHABETA_DEPTH", "MAX_PROBCUT", "MAX_ENDGAME_EMPTIES"]

# A player given neither a depth, a time nor nodes searches this deep (selective: about
# 10 ms in the middle game, the effort of the other players' default budgets).
DEFAULT_ALPHABETA_DEPTH = 10
# Multi-ProbCut's width by default, and the command line's: chosen by matches (it beat the
# full-width search by +151 +/- 74 Elo at 0.25 s a move, docs/results/strength.md).
DEFAULT_PROBCUT = 1.5
MAX_ALPHABETA_DEPTH = 60           # the midgame search's MAX_DEPTH
MAX_PROBCUT = 10.0                 # the midgame search's own limit
DEFAULT_TABLE_BITS = 16            # 4 MB (see the table size's measurement: docs)
# The most empties endgame_empties may name: an untimed solve from more could take days.
MAX_ENDGAME_EMPTIES = 30


@renamed_settings
@dataclass(frozen=True)
class AlphaBetaSettings(SettingsType):
    """Every setting of the alpha-beta player, checked once when made (immutable; derive
    with :meth:`replace`).  Without a depth, a time or a node limit a search goes
    DEFAULT_ALPHABETA_DEPTH (10) plies deep; with a time or node limit, as deep as it
    allows (``depth`` then caps it).  Selective (Multi-ProbCut 1.5) unless ``probcut`` is
    None."""

    KIND: ClassVar[str] = "alpha-beta"

    depth: Optional[int] = _setting(None, _int(1, MAX_ALPHABETA_DEPTH),
                                    "the deepest iteration of a search", optional=True)
    time_limit: Optional[float] = time_limit_setting()
    nodes: Optional[int] = budget_setting("nodes")          # its iterations
    probcut: Optional[float] = _setting(
        DEFAULT_PROBCUT, _number(0, MAX_PROBCUT, low_open=True), "Multi-ProbCut's width in "
        "standard deviations (1.5, the default: each cut 87 % sure; None: a full-width "
        "search)", optional=True)
    endgame_empties: int = endgame_empties_setting(14, MAX_ENDGAME_EMPTIES)
    endgame_by_time: bool = _setting(True, _FLAG, "with a time limit, also solve from as "
                                     "many empties (at most 26) as half the time affords at "
                                     "the solver's measured speed")
    # The classic engine plays its endgame as the classic engines do: on the 131
    # endgame-accuracy positions at 1 s a move, 0.03 discs lost a move with the passes
    # from 26 empties, 0.27 without (docs/explanation/engine.md).
    selective_empties: int = selective_empties_setting(26)
    eval_weights: Any = _setting("default", _WEIGHTS, "the pattern evaluation: 'default' "
                                 "(the shipped weights), a weights file or PatternWeights")
    threads: int = threads_setting("threads searching: from depth 6 lazy SMP (helpers "
                                   "share the table; results then vary from run to run), "
                                   "and the exact solver's")
    table_bits: int = _setting(DEFAULT_TABLE_BITS, _int(10, 24), "the transposition "
                               "table: 2 ** table_bits buckets of two 32-byte entries "
                               "(16: 4 MB; each bit more doubles it)")
    book: Any = book_setting()
    book_variety: float = book_variety_setting()
    seed: Optional[int] = seed_setting()

    def __post_init__(self) -> None:
        check_fields(self)

    @property
    def max_depth(self) -> int:
        """The deepest a search goes: ``depth``, else DEFAULT_ALPHABETA_DEPTH without a time
        or node limit, else all."""
        if self.depth is not None:
            return self.depth
        if self.time_limit is None and self.nodes is None:
            return DEFAULT_ALPHABETA_DEPTH
        return MAX_ALPHABETA_DEPTH
