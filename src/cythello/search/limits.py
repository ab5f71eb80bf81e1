"""One way to say how long any player may think, and one answer: :class:`Limit` and
:class:`PlayResult`, as python-chess's ``chess.engine`` has them.

Every player takes a limit (``player.search(board, limit=Limit(time=1))``,
``player.play(board, Limit(iterations=5000))``) and so does every external engine client
(:mod:`cythello.protocols.engine`): one object, whatever the search.  ``iterations`` is
each search's own unit of work: a UCT iteration, a PUCT simulation, an alpha-beta node.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, Optional, Tuple

from .clock import Clock
from .results import SearchResult
from .settings import MAX_ITERATIONS, check_int, check_time

__all__ = ["Limit", "PlayResult", "Budget", "call_limits", "play_result", "search_budget",
           "tree_budget"]


@dataclass(frozen=True)
class Limit:
    """How long a search may think: ``time`` in seconds, ``iterations`` (a tree search's
    iterations or simulations, an alpha-beta search's nodes), ``depth`` (plies of an
    alpha-beta search; an external engine's level) and a game ``clock`` (the time comes
    from what is left on it, never more).  Whichever comes first ends the search; an
    empty limit means the player's own settings."""

    time: Optional[float] = None
    iterations: Optional[int] = None
    depth: Optional[int] = None
    clock: Optional[Clock] = None

    def __post_init__(self) -> None:
        if self.time is not None:
            object.__setattr__(self, "time", check_time(self.time, "time"))
        if self.iterations is not None:
            check_int("iterations", self.iterations, 1, MAX_ITERATIONS)
        if self.depth is not None:
            check_int("depth", self.depth, 1, 60)
        if self.clock is not None and not isinstance(self.clock, Clock):
            raise TypeError(f"clock must be a Clock, not {type(self.clock).__name__}")


@dataclass
class PlayResult:
    """A player's or an engine's answer: its ``move``, its evaluation in discs for the side
    to move (``eval``) when it gives one -- for cythello's own players, what
    ``info["value_kind"]`` (a :class:`~cythello.ValueKind`: an exact score, an alpha-beta
    score, an estimate from a win rate, ...) says it is; an engine client's is whatever
    the engine reported -- and what else it reported (``info``: ``nodes``,
    ``seconds``, ``depth``, ``pv``, the full ``result`` of one of cythello's searches)."""

    move: int
    eval: Optional[float] = None
    info: Dict[str, Any] = field(default_factory=dict)


def call_limits(limit: Optional[Limit], iterations: Optional[int],
                time_limit: Optional[float], clock: Optional[Clock], depth_allowed: bool
                ) -> Tuple[Optional[int], Optional[float], Optional[Clock], Optional[int]]:
    """A search call's ``(iterations, time_limit, clock, depth)``: from ``limit`` when
    given (then the separate arguments must not be), else the arguments as they are.  A
    depth is refused by a search that has none (a tree search)."""
    if limit is None:
        return iterations, time_limit, clock, None
    if not isinstance(limit, Limit):
        raise TypeError(f"limit must be a cythello.Limit, not {type(limit).__name__}")
    if iterations is not None or time_limit is not None or clock is not None:
        raise TypeError("give either limit= or iterations/time_limit/clock, not both")
    if limit.depth is not None and not depth_allowed:
        from ..errors import SettingsError
        raise SettingsError("a tree search has no depth limit: give it time or iterations "
                            "(Limit.depth is for the alpha-beta search and external engines)")
    return limit.iterations, limit.time, limit.clock, limit.depth


def search_budget(own: Tuple[Optional[int], Optional[float]], cap: Optional[int],
                  iterations: Optional[int], time_limit: Optional[float],
                  clock: Optional[Clock], empties: int) -> Tuple[Optional[int], Optional[float]]:
    """One search's ``(iterations, seconds)``, by the same rule for every player: the
    call's limits (checked here) replace the player's ``own``; a game ``clock`` gives the
    time from what is left for a position of ``empties`` (never more than the call's
    time), and then the player's iteration ``cap`` (a level's) still holds unless the call
    gave limits."""
    if iterations is not None:
        iterations = check_int("iterations", iterations, 1, MAX_ITERATIONS)
    if time_limit is not None:
        time_limit = check_time(time_limit)
    if clock is not None:
        if not isinstance(clock, Clock):
            raise TypeError(f"clock must be a Clock, not {type(clock).__name__}")
        left = clock.budget(empties)
        if iterations is None and time_limit is None:
            iterations = cap
        return iterations, left if time_limit is None else min(time_limit, left)
    if iterations is None and time_limit is None:
        return own
    return iterations, time_limit


@dataclass(frozen=True)
class Budget:
    """One search's limits, settled before it starts: ``iterations`` in the backend's unit
    of work (UCT iterations, PUCT simulations, alpha-beta nodes; None: unbounded),
    ``seconds`` (None: untimed), ``depth`` (plies, for a search that has them) and
    ``extra`` seconds an unsettled position may add under a game clock; ``banked``
    when time a search leaves unused is kept for later moves (a game clock), not lost
    (a fixed time a move)."""

    iterations: Optional[int]
    seconds: Optional[float]
    depth: Optional[int] = None
    extra: float = 0.0
    banked: bool = False


def tree_budget(settings: Any, empties: int, iterations: Optional[int],
                time_limit: Optional[float], clock: Optional[Clock],
                extension: float = 0.0) -> Budget:
    """A tree search's budget from its ``settings`` (``limits`` and the ``iterations``
    cap) and the call's limits (:func:`search_budget`), with up to ``extension`` budgets
    more for an unsettled position under a ``clock``."""
    n, seconds = search_budget(settings.limits, settings.iterations, iterations, time_limit,
                               clock, empties)
    extra = 0.0
    if clock is not None and seconds is not None and extension > 0:
        extra = clock.extension(seconds, extension)
    return Budget(n, seconds, None, extra, banked=clock is not None)


def play_result(result: SearchResult) -> PlayResult:
    """A search result as the answer every player gives."""
    info: Dict[str, Any] = {"nodes": result.nodes, "seconds": result.elapsed,
                            "pv": list(result.principal_variation), "result": result}
    if result.depth is not None:
        info["depth"] = result.depth
    kind = result.value_kind()
    if kind is not None:
        info["value_kind"] = kind
    return PlayResult(result.best_move, result.discs, info)
