"""Search settings checked in one place: every player, tree and solver setting goes through
these functions, so a bad value gets the same error (a ``TypeError`` for the wrong type, a
:class:`~cythello.errors.SettingsError` for a value out of range) wherever it is given,
and the C code behind them can trust what it receives.
"""
from __future__ import annotations

import math
import time
from typing import Optional

from ..errors import SettingsError

MAX_ITERATIONS = 10**12
MAX_TIME_LIMIT = 7 * 24 * 3600.0       # seconds: a week
MAX_THREADS = 256
MAX_NODES = 0xFFFFFFF0                 # node indices are 32-bit


def check_int(name: str, value: object, low: int, high: int) -> int:
    """An int in [low, high] (bools are refused: ``True`` is no count)."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int, not {type(value).__name__}")
    if not low <= value <= high:
        raise SettingsError(f"{name} must be between {low} and {high}, not {value}")
    return value


def check_number(name: str, value: object, low: float, high: float,
                 low_open: bool = False, range_text: str = "") -> float:
    """A finite number in [low, high] (or (low, high] with ``low_open``), as a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number, not {type(value).__name__}")
    number = float(value)
    if math.isnan(number) or not ((low < number if low_open else low <= number)
                                  and number <= high):
        raise SettingsError(f"{name} must be {range_text or f'between {low:g} and {high:g}'}, "
                            f"not {value}")
    return number


def check_time(value: object, name: str = "time_limit") -> float:
    """Seconds: more than 0 and at most a week."""
    return check_number(name, value, 0, MAX_TIME_LIMIT, low_open=True,
                        range_text="more than 0 seconds and at most a week")


def deadline(time_limit: Optional[float]) -> float:
    """A monotonic deadline ``time_limit`` seconds from now (0.0: none)."""
    if time_limit is None:
        return 0.0
    return time.monotonic() + check_time(time_limit)
