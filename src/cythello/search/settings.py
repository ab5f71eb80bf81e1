"""Search settings: one type, validated once.

:class:`SearchSettings` is the one home of every setting of a tree search: its name, its
default, the values it accepts and what it does.  A value is checked when the settings are
made (a ``TypeError`` for the wrong type, a :class:`~cythello.errors.SettingsError` for a
value out of range), so :class:`~cythello.MCTSPlayer`, the C tree
(:class:`~cythello.search._mcts.SearchTree`) and the command line take a ``SearchSettings``
and trust it.  The command line's ``mcts:key=value`` specs and the settings table of the
documentation are derived from the fields below (:func:`parse_setting`,
:func:`settings_table`).

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
from typing import Any, Callable, ClassVar, Dict, List, Optional, Tuple, TypeVar, cast

# The checks' home is below search/ (cythello._checks); importable from here as before.
from .._checks import MAX_TIME_LIMIT as MAX_TIME_LIMIT
from .._checks import check_choice as check_choice
from .._checks import check_flag as check_flag
from .._checks import check_int as check_int
from .._checks import check_number as check_number
from .._checks import check_time as check_time
from .._checks import parse_flag as parse_flag
from .._checks import parse_int_text, parse_number_text, shown
from ..errors import SettingsError
from ..eval.weights import check_weights_setting as _weights
from ..eval.weights import load_eval_weights as load_eval_weights  # its home
from ._pool import AMAF_BYTES_PER_NODE, NODE_BYTES
from ._transpositions import TABLE_BYTES_PER_NODE
from .presets import PRESETS
from .states import Rollout

MAX_ITERATIONS = 10**12
DEFAULT_ITERATIONS = 1000          # a search's budget when nothing limits it
MAX_THREADS = 256
MAX_NODES = 0xFFFFFFF0                 # node indices are 32-bit
MAX_MEMORY_MB = float(1 << 20)         # a terabyte
# Each tree's node pool unless max_nodes or max_memory_mb says otherwise, per thread that
# searches it: 4 million 24-byte nodes, 96 MB.
DEFAULT_MAX_NODES = 4_000_000


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


_FLAG = _Kind(check_flag, parse_flag, "true or false")
_SECONDS = _Kind(lambda n, v: check_time(v, n), parse_number_text, "seconds, more than 0")
_SEED = _Kind(_seed, parse_int_text, "an integer")
_WEIGHTS = _Kind(_weights, str, "'default' or a weights file")
_BOOK = _Kind(_book, str, "'default' or a book file")


def _setting(default: Any, kind: _Kind, doc: str, optional: bool = False) -> Any:
    """A field of :class:`SearchSettings`: its default, kind, and documentation.  An
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


def progress_interval_setting() -> Any:
    """Seconds between progress reports (a search that can pause)."""
    return _setting(0.25, _SECONDS, "seconds between on_progress reports")


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
    """What every settings type shares (:class:`SearchSettings`, and
    :class:`~cythello.search.puct.PUCTSettings`): frozen dataclasses of :func:`_setting`
    fields, checked once by :func:`check_fields`, changed by :meth:`replace`."""

    KIND: ClassVar[str] = "search"         # how an error names the settings
    # Old names of renamed settings -> their names now (see :func:`renamed_settings`).
    RENAMED: ClassVar[Dict[str, str]] = {}
    # Other names a setting answers to, without a warning: ``time`` is what a Limit, a
    # spec (``expert:time=1``) and ``--time`` call the seconds a move, so a constructor
    # takes it too (``MCTSPlayer(time=1)``).
    SYNONYMS: ClassVar[Dict[str, str]] = {"time": "time_limit"}

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

    def as_dict(self) -> Dict[str, Any]:
        """The settings by name (what ``type(self)(**d)`` makes again)."""
        return {name: getattr(self, name) for name in setting_names(type(self))}


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
    threads: int = _setting(1, _int(1, MAX_THREADS), "threads searching in parallel")
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
        return 1 if self.parallel == "tree" else self.threads

    @property
    def tree_threads(self) -> int:
        """The threads searching each tree."""
        return self.threads if self.parallel == "tree" else 1

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
        from ..book.store import load_book
        return load_book(self.book)


def check_fields(settings: Any) -> None:
    """Check (and normalise) every field of a frozen settings dataclass made of
    :func:`_setting` fields: the one validation pass of each settings type."""
    for f in dataclasses.fields(settings):
        value = getattr(settings, f.name)
        if value is None and f.metadata["optional"]:
            continue
        object.__setattr__(settings, f.name, f.metadata["kind"].check(f.name, value))


def _from_dict(values: Dict[str, Any]) -> SearchSettings:
    return SearchSettings(**values)


def setting_names(cls: Any = None) -> List[str]:
    """The names of the settings of ``cls`` (default: :class:`SearchSettings`), in their
    documented order."""
    return [f.name for f in dataclasses.fields(cls or SearchSettings)]


def parse_setting(name: str, text: str, cls: Any = None) -> Any:
    """A setting's value from text (``"0.5"``, ``"true"``, ``"none"`` for an optional
    one); a :class:`~cythello.errors.SettingsError` names what was expected.  ``cls`` is
    the settings type (default :class:`SearchSettings`)."""
    fields = {f.name: f for f in dataclasses.fields(cls or SearchSettings)}
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


def settings_table(cls: Any = None) -> str:
    """The settings of ``cls`` (default :class:`SearchSettings`) as a Markdown table:
    name, default, values, what it does."""
    rows = ["| setting | default | values | what it does |", "|---|---|---|---|"]
    for f in dataclasses.fields(cls or SearchSettings):
        default = "None" if f.default is None else repr(f.default)
        if isinstance(f.default, float):
            default = f"{f.default:g}"
        rows.append(f"| `{f.name}` | {default} | {f.metadata['kind'].text} | "
                    f"{f.metadata['doc']} |")
    return "\n".join(rows)
