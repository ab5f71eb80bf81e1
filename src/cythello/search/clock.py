"""Time management: a game clock and the budget of one move, in one place for the players,
``cythello play``, GTP's ``time_left`` and NBoard's game clock.

The budget spreads the time left evenly over the moves this side still has to make (about
half the empty squares, or the moves to the next time control), adds most of the
increment, and keeps a reserve so that the clock never runs out: at most a third of what is
left goes into one move, and a second or 5% stays untouched for the engine's own overhead.
No move gets more than an hour, however much is on the clock.

A player may go past the budget in an unsettled position (``MCTSPlayer(time_extension=)``)
but never past :meth:`Clock.most`: the same third of what is left.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Optional

from ..errors import SettingsError
from .settings import check_int, check_number

MIN_MOVE_TIME = 0.01          # seconds: what a move gets when the clock is nearly out
MAX_MOVE_TIME = 3600.0        # seconds: however much is on the clock (an absurd clock, too)


MAX_CLOCK = 1e9               # seconds a clock may hold (about 32 years)
MAX_INCREMENT = 1e6


@dataclass(frozen=True)
class Clock:
    """The clock of the side to move: ``time_left`` seconds, ``increment`` seconds added
    after each move, and ``moves_to_go`` moves until the next time control (None: the rest
    of the game)."""

    time_left: float
    increment: float = 0.0
    moves_to_go: Optional[int] = None

    def __post_init__(self) -> None:
        check_number("time_left", self.time_left, 0, MAX_CLOCK)
        check_number("increment", self.increment, 0, MAX_INCREMENT)
        if self.moves_to_go is not None:
            check_int("moves_to_go", self.moves_to_go, 1, 1000)

    def budget(self, empties: int) -> float:
        """Seconds for this move (see the module docstring)."""
        moves = self.moves_to_go or max(1, (empties + 1) // 2)
        share = self._usable() / moves + 0.8 * self.increment
        return max(MIN_MOVE_TIME, min(share, self.most()))

    def most(self) -> float:
        """The most seconds any one move may take: a third of the usable time."""
        return max(MIN_MOVE_TIME, min(self._usable() / 3, MAX_MOVE_TIME))

    def extension(self, limit: float, factor: float) -> float:
        """The seconds a search given ``limit`` may add in an unsettled position, at most
        ``factor`` limits more: never past :meth:`most`."""
        return max(0.0, min(factor * limit, self.most() - limit))

    def _usable(self) -> float:
        reserve = min(1.0, 0.05 * self.time_left)
        return max(0.0, self.time_left - reserve)

    def after(self, seconds: float) -> "Clock":
        """The clock after a move that took ``seconds``: the time used, the increment
        earned, one move fewer to the time control."""
        left = max(0.0, self.time_left - seconds) + self.increment
        to_go = None if self.moves_to_go is None else self.moves_to_go - 1 or None
        return Clock(left, self.increment, to_go)


@dataclass(frozen=True)
class ByoYomiClock:
    """A clock with Canadian byo-yomi (GTP's ``time_settings``): ``main_left`` seconds of
    main time, then ``period`` seconds for every ``stones`` moves, each period starting
    afresh (``stones`` 0: no byo-yomi, the main time is all there is).  In byo-yomi
    (``stones_left`` > 0) ``period_left`` seconds remain for ``stones_left`` moves.

    A GTP engine keeps one for itself when the controller sends ``time_settings`` but no
    ``time_left``: without it every move would be budgeted from the whole main time, and
    a game would take several times its clock."""

    main_left: float
    period: float = 0.0
    stones: int = 0
    period_left: float = 0.0
    stones_left: int = 0

    def __post_init__(self) -> None:
        check_number("main time", self.main_left, 0, 1e9)
        check_number("byo-yomi time", self.period, 0, 1e9)
        check_int("byo-yomi stones", self.stones, 0, 1000)
        check_number("byo-yomi time left", self.period_left, 0, 1e9)
        check_int("byo-yomi stones left", self.stones_left, 0, 1000)

    @classmethod
    def start(cls, main: float, period: float, stones: int) -> "ByoYomiClock":
        """The clock at the start of a game (straight into byo-yomi when ``main`` is 0)."""
        clock = cls(main, period, stones)
        return clock._next_period() if main == 0 and stones else clock

    def clock(self) -> Clock:
        """The :class:`Clock` this move is budgeted from: the period's time for its
        remaining moves in byo-yomi; in main time the main time, with the byo-yomi that
        follows it counted as an increment of ``period / stones`` a move (the time each
        later move will have)."""
        if self.stones_left:
            return Clock(self.period_left, 0.0, self.stones_left)
        return Clock(self.main_left, self.period / self.stones if self.stones else 0.0)

    def after(self, seconds: float) -> "ByoYomiClock":
        """The clock after a move that took ``seconds``.  A move that runs out the main time
        is the first move of byo-yomi and its overrun comes off the first period."""
        clock = self
        if not clock.stones_left:
            if seconds <= clock.main_left or not clock.stones:
                return replace(clock, main_left=max(0.0, clock.main_left - seconds))
            seconds -= clock.main_left
            clock = replace(clock, main_left=0.0)._next_period()
        clock = replace(clock, period_left=max(0.0, clock.period_left - seconds),
                        stones_left=clock.stones_left - 1)
        return clock if clock.stones_left else clock._next_period()

    def _next_period(self) -> "ByoYomiClock":
        return replace(self, period_left=self.period, stones_left=self.stones)


def parse_clock_time(text: str) -> float:
    """``"5:00"``, ``"1:05:00"``, ``"90"`` or ``"90.5"`` as seconds (GGF ``TI`` fields)."""
    text = text.strip()
    if not re.fullmatch(r"\d+(\.\d+)?(:\d+(\.\d+)?){0,2}", text):
        raise SettingsError(f"not a clock time: {text!r}")
    seconds = 0.0
    for part in text.split(":"):
        seconds = seconds * 60 + float(part)
    return seconds


def parse_clock(text: str) -> Clock:
    """``"5:00"`` (five minutes) or ``"5:00+2"`` (and two seconds a move) as a Clock."""
    main, plus, increment = text.partition("+")
    return Clock(parse_clock_time(main), parse_clock_time(increment) if plus else 0.0)


def parse_ggf_clock(text: str) -> "tuple[float, float]":
    """A GGF ``TI[time/increment/grace]`` field as ``(time, increment)`` seconds, clamped
    to what a :class:`Clock` holds.  Each part may carry GGS's options after a comma
    (``05:00,N40//02:00``, ``15:00,L/00:05/02:00``): the time is read, the options are
    not needed to budget a move."""
    parts = [part.split(",", 1)[0].strip() for part in text.split("/")]
    main = parse_clock_time(parts[0]) if parts[0] else 0.0
    increment = parse_clock_time(parts[1]) if len(parts) > 1 and parts[1] else 0.0
    return min(main, MAX_CLOCK), min(increment, MAX_INCREMENT)
