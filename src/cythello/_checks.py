"""The checks of every argument cythello takes, in one place below every layer that
checks one (settings, searches, the evaluator, the book builder, the environments): each
returns the value (normalised) or raises a ``TypeError`` for the wrong type and a
:class:`~cythello.errors.SettingsError` naming the argument and its range otherwise."""
from __future__ import annotations

import math
import os
import re
from typing import Tuple

from .errors import SettingsError

SHOWN = 60
_INT_TEXT = re.compile(r"[+-]?[0-9]+")
_FLOAT_TEXT = re.compile(r"[+-]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][+-]?[0-9]+)?")


def physical_memory() -> int:
    """The machine's physical memory in bytes (0 where the system does not say)."""
    try:
        return int(os.sysconf("SC_PAGE_SIZE")) * int(os.sysconf("SC_PHYS_PAGES"))
    except (AttributeError, ValueError, OSError):
        return 0


def shown(text: str) -> str:
    """``text`` as an error message quotes it: in full if short, else its start and its
    length (a 1 MB spec is no 1 MB message)."""
    if len(text) <= SHOWN:
        return repr(text)
    return f"{text[:SHOWN]!r}... ({len(text):,} characters)"


def parse_int_text(text: str) -> int:
    """An integer written in ASCII digits (no ``1_0``, no other scripts' digits, which
    Python's int() takes); ValueError otherwise."""
    if not _INT_TEXT.fullmatch(text.strip()):
        raise ValueError(f"not an integer: {shown(text)}")
    return int(text)


def parse_range_text(name: str, text: str) -> Tuple[int, int]:
    """``(lo, hi)`` from ``LO-HI`` (or one number, both ends); a SettingsError naming
    ``name`` otherwise (the bounds are the caller's to check)."""
    lo, _, hi = text.partition("-")
    try:
        return parse_int_text(lo), parse_int_text(hi or lo)
    except ValueError:
        raise SettingsError(f"{name} expects LO-HI, not {shown(text)}") from None


def parse_number_text(text: str) -> float:
    """A decimal number in ASCII (``0.5``, ``-2``, ``1e-3``); ValueError otherwise."""
    if not _FLOAT_TEXT.fullmatch(text.strip()):
        raise ValueError(f"not a number: {shown(text)}")
    return float(text)

MAX_TIME_LIMIT = 7 * 24 * 3600.0       # seconds: a week


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


def check_flag(name: str, value: object) -> bool:
    """A switch: a bool (or the ints 0 and 1)."""
    if isinstance(value, bool) or (isinstance(value, int) and value in (0, 1)):
        return bool(value)
    raise TypeError(f"{name} must be True or False, not {value!r}")


def check_choice(name: str, value: object, choices: Tuple[str, ...]) -> str:
    """One of ``choices`` (as a plain str, also when given as a str enum member)."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be a str, not {type(value).__name__}")
    if value not in choices:
        raise SettingsError(f"{name} must be one of {', '.join(choices)}, not {value!r}")
    return str(getattr(value, "value", value))


def parse_flag(text: str) -> bool:
    """A switch written as text: 1/true/yes/on or 0/false/no/off."""
    if text.lower() in ("1", "true", "yes", "on"):
        return True
    if text.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(text)


def random_seed() -> int:
    """A fresh 64-bit seed from the operating system."""
    return int.from_bytes(os.urandom(8), "little")
