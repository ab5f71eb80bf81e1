"""Settings: what every search's settings type shares, each setting checked once.

A settings type (:class:`~cythello.SearchSettings` for UCT, :class:`~cythello.PUCTSettings`,
:class:`~cythello.AlphaBetaSettings`) is a frozen dataclass of :func:`_setting` fields:
each field is the one home of a setting's name, default, the values it accepts and what it
does.  A value is checked when the settings are made (a ``TypeError`` for the wrong type, a
:class:`~cythello.errors.SettingsError` for a value out of range), so the players, the C
searches and the command line take a settings object and trust it.  The command line's
``mcts:key=value`` specs and the settings tables of the documentation are derived from the
fields (:func:`parse_setting`, :func:`settings_table`).  The settings several searches
share (a budget, a time limit, the endgame's, the book's) are made here once
(``*_setting()``).

The ``check_*`` functions are the checks themselves (``cythello._checks``, below every
layer that checks an argument), for the few numbers that are not search settings (a
clock, a solver's node limit, one search's own limits).
"""
from __future__ import annotations

import dataclasses
import functools
import os
import time
import warnings
from dataclasses import dataclass, field
from typing import Any, Callable, ClassVar, Dict, List, Optional, TypeVar, cast

# The checks' home is below search/ (cythello._checks); importable from here as before.
from .._checks import MAX_TIME_LIMIT as MAX_TIME_LIMIT
from .._checks import check_choice as check_choice
from .._checks import check_flag as check_flag
from .._checks import check_int as check_int
from .._checks import check_number as check_number
from .._checks import check_time as check_time
from .._checks import parse_flag as parse_flag
from .._checks import parse_int_text, parse_number_text, shown
from .._cores import MAX_THREADS as MAX_THREADS
from .._cores import THREADS_CAP, resolve_threads
from .._moved import moved_name
from ..errors import SettingsError
from ..eval.weights import check_weights_setting as _weights
from ..eval.weights import load_eval_weights as load_eval_weights  # its home

MAX_ITERATIONS = 10**12
DEFAULT_ITERATIONS = 1000          # a search's budget when nothing limits it
MAX_NODES = 0xFFFFFFF0                 # node indices are 32-bit
MAX_MEMORY_MB = float(1 << 20)         # a terabyte
# Each tree's node pool unless max_nodes or max_memory_mb says otherwise, per thread that
# searches it: 4 million 24-byte nodes, 96 MB.
DEFAULT_MAX_NODES = 4_000_000


# Names this module held until 0.4, at their homes now.
_MOVED = {"SearchSettings": "cythello.search.uct.settings"}


def __getattr__(name: str) -> Any:
    return moved_name(__name__, name, _MOVED)


def deadline(time_limit: Optional[float]) -> float:
    """A monotonic deadline ``time_limit`` seconds from now (0.0: none)."""
    if time_limit is None:
        return 0.0
    return time.monotonic() + check_time(time_limit)


# -- how each setting is checked, parsed from text and described -----------------------------

@dataclass(frozen=True)
class _Kind:
    """The values a setting takes: ``check(name, value)`` validates (and normalises) one,
    ``parse`` reads one from text, ``text`` says in words what is accepted."""

    check: Callable[[str, Any], Any]
    parse: Callable[[str], Any]
    text: str


def _int(low: int, high: int) -> _Kind:
    return _Kind(lambda n, v: check_int(n, v, low, high), parse_int_text,
                 f"an integer {low}-{high:,}")


def _number(low: float, high: float, low_open: bool = False, text: str = "") -> _Kind:
    between = f"more than {low:g} and at most {high:g}" if low_open else ""
    return _Kind(lambda n, v: check_number(n, v, low, high, low_open=low_open,
                                           range_text=between), parse_number_text,
                 text or f"a number {'above' if low_open else 'from'} {low:g} to {high:g}")


def _choice(*choices: str) -> _Kind:
    return _Kind(lambda n, v: check_choice(n, v, choices), str, " or ".join(choices))


def _seed(name: str, value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"{name} must be an int or None, not {type(value).__name__}")
    return value


def _book(name: str, value: object) -> object:
    from ..book.store import Book
    if isinstance(value, (str, os.PathLike, Book)):
        return value
    raise TypeError(f"{name} must be None, 'default', a book file or a Book, "
                    f"not {type(value).__name__}")


def check_threads(name: str, value: object) -> int:
    """A thread count: 0 to MAX_THREADS, or ``"auto"`` (0: the cores this process may run
    on)."""
    if isinstance(value, str) and value.strip().lower() == "auto":
        return 0
    return check_int(name, value, 0, MAX_THREADS)


def parse_threads(text: str) -> int:
    """A thread count written as text: digits or ``auto`` (0); ValueError otherwise."""
    return 0 if text.strip().lower() == "auto" else parse_int_text(text)


_FLAG = _Kind(check_flag, parse_flag, "true or false")
_THREADS = _Kind(check_threads, parse_threads,
                 f"an integer 1-{MAX_THREADS}, or 0 (also 'auto'): the cores this process "
                 f"may run on, at most {THREADS_CAP} (CYTHELLO_THREADS sets the count)")
_SECONDS = _Kind(lambda n, v: check_time(v, n), parse_number_text, "seconds, more than 0")
_SEED = _Kind(_seed, parse_int_text, "an integer")
_WEIGHTS = _Kind(_weights, str, "'default' or a weights file")
_BOOK = _Kind(_book, str, "'default' or a book file")


def _setting(default: Any, kind: _Kind, doc: str, optional: bool = False) -> Any:
    """A field of a settings type: its default, kind, and documentation.  An
    ``optional`` setting also takes None (its default then means "not set")."""
    return field(default=default, metadata={"kind": kind, "doc": doc, "optional": optional})


# -- the settings every search shares, declared once ------------------------------------------
# The engine shell (search/engine.py) reads these from whichever settings type a player has:
# each type takes its fields from here, so that a name means one thing in every search.  A
# search keeps its own default where its matches chose one (the exact solver from 20
# empties for UCT, none for PUCT, 14 for alpha-beta) and names its unit of work.

def budget_setting(unit: str) -> Any:
    """A search's budget: ``unit`` (its iterations) per search."""
    return _setting(None, _int(1, MAX_ITERATIONS), f"{unit} per search (with time_limit: "
                    "whichever comes first)", optional=True)


def time_limit_setting() -> Any:
    """Seconds per search."""
    return _setting(None, _SECONDS, "seconds per search (also taken as time=)", optional=True)


def seed_setting() -> Any:
    """The seed of a player's draws."""
    return _setting(None, _SEED, "makes a player's draws reproducible (its searches' and its "
                    "book's; a tree shared by threads still races); None: a fresh seed",
                    optional=True)


def endgame_empties_setting(default: int, most: int = 60) -> Any:
    """From how many empties a search hands the position to the exact solver."""
    return _setting(default, _int(0, most), "solve exactly from this many empty squares "
                    "(0: never)")


def endgame_by_time_setting() -> Any:
    """The tree searches' solve-by-time rule (endgame.play.starts_with_solve)."""
    return _setting(False, _FLAG, "endgame_empties is the most: solve from as many "
                    "empties as the search's time affords at the solver's measured speed")


def alphabeta_empties_setting() -> Any:
    """The tree searches' hand-off to the alpha-beta search near the end (search/phases.py)."""
    return _setting(0, _int(0, 60), "from this many empty squares (0: never) a search "
                    "limited by time is the alpha-beta search's (Multi-ProbCut 1.5, the same "
                    "evaluation and time)")


def selective_empties_setting(default: int = 0) -> Any:
    """The selective endgame passes near the end (endgame.play.selective_result)."""
    return _setting(default, _int(0, 40), "from this many empty squares (0: never) a search "
                    "limited by time that has not solved the position plays by the "
                    "selective endgame passes (Multi-ProbCut at 73 % to 99 %, then exact)")


def threads_setting(what: str) -> Any:
    """The threads a search runs on (``what`` says how it spreads over them).  Each
    settings type's default is 1: a player made in Python is one thread, reproducible with
    a seed, as a library's object should be when its caller may run many; the levels and
    the command line ask for 0, the cores this process may run on (cythello._cores)."""
    return _setting(1, _THREADS, what + "; 0 or 'auto': the cores this process may run on")


DEFAULT_PROGRESS_INTERVAL = 0.25      # seconds between on_progress reports


def progress_interval_setting() -> Any:
    """Seconds between progress reports (a search that can pause)."""
    return _setting(DEFAULT_PROGRESS_INTERVAL, _SECONDS, "seconds between on_progress reports")


def reuse_tree_setting() -> Any:
    """A tree search's reuse of the subtree reached."""
    return _setting(True, _FLAG, "keep the subtree of the position reached for the next "
                    "search (and ponder into it)")


def time_extension_setting() -> Any:
    """A tree search's extra time for an unsettled position under a game clock."""
    return _setting(0.0, _number(0, 100), "on a game clock, budgets more for an unsettled "
                    "position")


def book_setting() -> Any:
    """The opening book a player plays from."""
    return _setting(None, _BOOK, "the opening book a player plays from without searching: "
                    "'default' (the shipped book), a book file or a Book (None: no book)",
                    optional=True)


def book_variety_setting() -> Any:
    """How far from the best a book move may be drawn."""
    return _setting(0.0, _number(0, 64), "discs: a book move is drawn among those within "
                    "this of the best, the better ones more often (0: the best, ties drawn "
                    "evenly)")


def _new_names(cls: Any, values: Dict[str, Any]) -> Dict[str, Any]:
    """``values`` with each synonym of a setting replaced by its name, and each old name
    by its name now, with a DeprecationWarning (two names of one setting: a TypeError)."""
    other = [name for name in values if name in cls.RENAMED or name in cls.SYNONYMS]
    if not other:
        return values
    values = dict(values)
    for name in other:
        new = cls.SYNONYMS.get(name) or cls.RENAMED[name]
        if new in values:
            what = "another name" if name in cls.SYNONYMS else "the old name"
            raise TypeError(f"{name} is {what} of {new}: give one of them")
        if name in cls.RENAMED:
            warnings.warn(f"{cls.__name__}: {name} is now called {new}", DeprecationWarning,
                          stacklevel=4)
        values[new] = values.pop(name)
    return values


def renamed_settings(cls: Any) -> Any:
    """A class decorator (above ``@dataclass``) for every settings type: its ``SYNONYMS``
    work as keywords, and its ``RENAMED`` settings' old names still work, as keywords and
    attributes, with a DeprecationWarning."""
    init = cls.__init__

    @functools.wraps(init)
    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        init(self, *args, **_new_names(cls, kwargs))

    cls.__init__ = __init__
    for old_name, new_name in cls.RENAMED.items():
        def read(self: Any, old: str = old_name, new: str = new_name) -> Any:
            warnings.warn(f"{type(self).__name__}.{old} is now called {new}",
                          DeprecationWarning, stacklevel=2)
            return getattr(self, new)
        setattr(cls, old_name, property(read))
    return cls


_Settings = TypeVar("_Settings", bound="SettingsType")


class SettingsType:
    """What every settings type shares (:class:`~cythello.SearchSettings`,
    :class:`~cythello.PUCTSettings`, :class:`~cythello.AlphaBetaSettings`): frozen
    dataclasses of :func:`_setting` fields, checked once by :func:`check_fields`, changed by
    :meth:`replace`, remade from their values by name (:func:`_from_dict`)."""

    KIND: ClassVar[str] = "search"         # how an error names the settings
    # Old names of renamed settings -> their names now (see :func:`renamed_settings`).
    RENAMED: ClassVar[Dict[str, str]] = {}
    # Other names a setting answers to, without a warning: ``time`` is what a Limit, a
    # spec (``expert:time=1``) and ``--time`` call the seconds a move, so a constructor
    # takes it too (``MCTSPlayer(time=1)``).
    SYNONYMS: ClassVar[Dict[str, str]] = {"time": "time_limit"}
    # Every settings type by its class name, for :func:`_from_dict`.
    TYPES: ClassVar[Dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        SettingsType.TYPES[cls.__name__] = cls

    def replace(self: _Settings, **changes: Any) -> _Settings:
        """These settings with ``changes`` (checked like the rest)."""
        changes = _new_names(type(self), changes)
        unknown = sorted(set(changes) - set(setting_names(type(self))))
        if unknown:
            raise TypeError(f"unknown {self.KIND} setting {unknown[0]!r}")
        return cast(_Settings, dataclasses.replace(cast(Any, self), **changes))

    @classmethod
    def named(cls, values: Dict[str, Any]) -> Dict[str, Any]:
        """``values`` under each setting's own name (synonyms and old names replaced)."""
        return _new_names(cls, values)

    @property
    def search_threads(self) -> int:
        """The threads a search of these settings runs on: ``threads``, or for 0 the
        cores this process may run on (read when a search is made from the settings, so
        that a player sent to a worker process takes that worker's share)."""
        return resolve_threads(cast(Any, self).threads)

    def as_dict(self) -> Dict[str, Any]:
        """The settings by name (what ``type(self)(**d)`` makes again)."""
        return {name: getattr(self, name) for name in setting_names(type(self))}


def check_fields(settings: Any) -> None:
    """Check (and normalise) every field of a frozen settings dataclass made of
    :func:`_setting` fields: the one validation pass of each settings type."""
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        if value is None and f.metadata["optional"]:
            continue
        object.__setattr__(settings, f.name, f.metadata["kind"].check(f.name, value))


def _from_dict(values: Dict[str, Any], kind: str = "SearchSettings") -> Any:
    """Settings of the type named ``kind`` made again from their values: what pickled
    settings call, by name rather than by the module that defines the type (pickles of
    cythello 0.4 call it with UCT's settings alone)."""
    return SettingsType.TYPES[kind](**values)


def setting_names(cls: Any) -> List[str]:
    """The names of the settings of the settings type ``cls``, in their documented order."""
    return [f.name for f in dataclasses.fields(cls)]


def parse_setting(name: str, text: str, cls: Any) -> Any:
    """A setting of the settings type ``cls`` from text (``"0.5"``, ``"true"``, ``"none"``
    for an optional one); a :class:`~cythello.errors.SettingsError` names what was
    expected."""
    fields = {f.name: f for f in dataclasses.fields(cls)}
    if name not in fields:
        raise SettingsError(f"unknown setting {name!r}; known: {', '.join(sorted(fields))}")
    f = fields[name]
    if f.metadata["optional"] and text.strip().lower() == "none":
        return None
    try:
        return f.metadata["kind"].parse(text.strip())
    except ValueError:
        raise SettingsError(f"setting {name} expects {f.metadata['kind'].text}, "
                            f"not {shown(text)}") from None


def settings_table(cls: Any) -> str:
    """The settings of the settings type ``cls`` as a Markdown table: name, default,
    values, what it does."""
    rows = ["| setting | default | values | what it does |", "|---|---|---|---|"]
    for f in dataclasses.fields(cls):
        default = "None" if f.default is None else repr(f.default)
        if isinstance(f.default, float):
            default = f"{f.default:g}"
        rows.append(f"| `{f.name}` | {default} | {f.metadata['kind'].text} | "
                    f"{f.metadata['doc']} |")
    return "\n".join(rows)
