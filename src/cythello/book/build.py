"""Learning an opening book by search, reproducibly (Edax's and Egaroucid's *deviate*).

Every book position knows the value of each of its moves from an alpha-beta search of
``depth`` plies with the learned evaluation (its children searched ``depth - 1`` deep;
alpha-beta is deterministic, so a position gets the same values in any run).  Its *leaf*
is its best move whose position is not in the book; its value is the negamax of the moves
in the book and of the leaf.

A round walks the book from the start: a side may follow any book move within ``margin``
discs of the position's best, as long as its losses along the line stay within
``window`` discs; every position reached that way whose leaf is within the same bounds
is *to do* (up to ``plies`` moves from the start).  Each to-do leaf is played and the line
continued by best moves until it reaches a book position or ``plies``; the new positions
join the book, every leaf that now leads into the book moves to the next best move, values
are backed up, and the book is saved.  Rounds go on until nothing is to do, or until
``max_positions``, ``rounds`` or ``time_limit``.

The lines of a round are searched in chunks of CHUNK lines on ``workers`` processes,
each line against the book as its chunk began, and merged in a fixed order (lowest
cumulative loss first, then by key): the same settings give the same book, byte for byte,
with any number of workers.  A book saved
after a round (or a budget) is extended by building on it again, with the same or new
settings.
"""
from __future__ import annotations

import os
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any, Callable, Dict, FrozenSet, Iterable, List, Optional, Tuple, Union

import numpy as np

from .._checks import check_int, check_number, check_time
from .._workers import Workers, WorkersDied
from ..core._board import Board
from ..errors import BookError, SettingsError
from ..eval.weights import load_eval_weights
from ._keys import canonical, children
from .file import NO_MOVE, RECORD, VALUE_SCALE, read_book, sort_records, write_book
from .store import Book

Key = Tuple[int, int]
# Lines searched between budget checks: fixed, so that a budget cuts a round at the same
# line whatever the number of workers.
CHUNK = 32
FORMAT = "cythello-book-1"


@dataclass(frozen=True)
class BuildSettings:
    """How a book grows: ``plies`` (its deepest positions, in moves from the start),
    ``depth`` (the alpha-beta depth that values a position's moves), ``margin`` (discs: the
    moves followed, within this of the best), ``window`` (discs: the losses one side may
    take along a line) and ``probcut`` (Multi-ProbCut's t for those searches: a selective
    search, much deeper in the same time; None: full width)."""

    plies: int = 16
    depth: int = 8
    margin: float = 2.0
    window: float = 4.0
    eval_weights: str = "default"
    probcut: Optional[float] = None

    def __post_init__(self) -> None:
        check_int("plies", self.plies, 1, 50)
        check_int("depth", self.depth, 1, 16)
        check_number("margin", self.margin, 0, 64)
        check_number("window", self.window, 0, 128)
        if self.probcut is not None:
            check_number("probcut", self.probcut, 0, 10, low_open=True)
        if not isinstance(self.eval_weights, (str, os.PathLike)):
            raise TypeError("eval_weights must be 'default' or a weights file")


# -- the work of one process ----------------------------------------------------------------

_WORKER: Dict[str, Any] = {}


def _init_worker(settings: BuildSettings, book_keys: FrozenSet[Key]) -> None:
    _WORKER["settings"] = settings
    _WORKER["weights"] = load_eval_weights(settings.eval_weights)
    _WORKER["book"] = book_keys


def _evaluate(key: Key) -> Dict[int, int]:
    """Every move's value (1/8 disc, side to move) by a ``depth``-ply search of the
    position after it (after a forced pass), in the key's orientation."""
    from ..search.alphabeta._midgame import search_many
    settings: BuildSettings = _WORKER["settings"]
    kids = children(*key)
    values = {move: exact * VALUE_SCALE for move, _, _, sign, exact in kids if sign == 0}
    searched = [kid for kid in kids if kid[3] != 0]
    if searched:
        own = np.array([kid[1] for kid in searched], dtype=np.uint64)
        opp = np.array([kid[2] for kid in searched], dtype=np.uint64)
        scores = search_many(own, opp, settings.depth - 1, _WORKER["weights"],
                             settings.probcut)
        for (move, _, _, sign, _), score in zip(searched, scores):
            values[move] = int(round(sign * float(score) * VALUE_SCALE))
    return values


def _ply(key: Key) -> int:
    return bin(key[0] | key[1]).count("1") - 4


def _best_open_move(key: Key, values: Dict[int, int], taken: Callable[[Key], bool]
                    ) -> Optional[Tuple[int, Key]]:
    """The best move (ties: the lowest square) whose position is not ``taken`` and
    does not end the game, with that position; None when there is none."""
    best: Optional[Tuple[int, int, Key]] = None
    for move, own, opp, sign, _ in children(*key):
        if sign == 0 or taken((own, opp)):
            continue
        if best is None or values[move] > best[0]:
            best = (values[move], move, (own, opp))
    return None if best is None else (best[1], best[2])


def _line(job: Tuple[Key, int]) -> List[Tuple[Key, Dict[int, int]]]:
    """The positions of one line: the to-do leaf ``move`` of ``key`` played, then best
    moves, until the book or the last ply; each with its moves' values."""
    settings: BuildSettings = _WORKER["settings"]
    book: FrozenSet[Key] = _WORKER["book"]
    key, move = job
    child = _child(key, move)
    found: List[Tuple[Key, Dict[int, int]]] = []
    seen = set()
    while child is not None and child not in book and child not in seen \
            and _ply(child) <= settings.plies:
        values = _evaluate(child)
        found.append((child, values))
        seen.add(child)
        if _ply(child) >= settings.plies:
            break
        step = _best_open_move(child, values, lambda k: k in book or k in seen)
        child = None if step is None else step[1]
    return found


# -- the builder ------------------------------------------------------------------------------

class _Position:
    __slots__ = ("value", "leaf_move", "leaf_value", "depth", "values")

    def __init__(self, value: int, leaf_move: int, leaf_value: int, depth: int,
                 values: Optional[Dict[int, int]]) -> None:
        self.value, self.leaf_move, self.leaf_value = value, leaf_move, leaf_value
        self.depth, self.values = depth, values


class BookBuilder:
    """A book being learned: :meth:`run` rounds of deviations, :meth:`learn` positions
    of played games, :meth:`save` / :meth:`book`.  ``BookBuilder(settings, path)`` goes on
    from the book in ``path`` when it exists."""

    def __init__(self, settings: Optional[BuildSettings] = None,
                 path: Optional[Union[str, "os.PathLike[str]"]] = None, workers: int = 1,
                 progress: Optional[Callable[[str], None]] = None, backend: str = "local",
                 ray_address: Optional[str] = None,
                 ticker: Optional[Callable[[int, int, float], None]] = None) -> None:
        self.workers = check_int("workers", workers, 1, 1024)
        if backend not in ("local", "ray"):
            raise SettingsError(f"backend must be 'local' or 'ray', not {backend!r}")
        self.backend, self.ray_address = backend, ray_address
        self.path = None if path is None else Path(path)
        self.progress = progress
        # Called after each chunk of a round's lines: (lines done, lines to do, seconds).
        self.ticker = ticker
        self.positions: Dict[Key, _Position] = {}
        self.rounds = 0
        self.settings = settings or BuildSettings()
        if self.path is not None and self.path.exists():
            self._load(self.path, settings is None)

    @staticmethod
    def settings_of(header: Dict[str, Any]) -> BuildSettings:
        """The settings a book was built with (from its header), for going on with them."""
        build = header.get("build")
        if not isinstance(build, dict):
            raise BookError("the book's header does not say how it was built")
        names = [f.name for f in fields(BuildSettings)]
        try:
            return BuildSettings(**{k: build[k] for k in names if k in build})
        except (TypeError, ValueError) as exc:
            raise BookError(f"the book's header has bad build settings ({exc})") from None

    # -- state ---------------------------------------------------------------------------

    def _load(self, path: Path, own_settings: bool) -> None:
        records, header = read_book(path)
        if own_settings:
            self.settings = self.settings_of(header)
        build = header.get("build", {})
        self.rounds = int(build.get("rounds", 0)) if isinstance(build, dict) else 0
        for r in records:
            self.positions[(int(r["own"]), int(r["opp"]))] = _Position(
                int(r["value"]), int(r["leaf_move"]), int(r["leaf_value"]), int(r["depth"]),
                None)

    def _header(self) -> Dict[str, Any]:
        from .._version import __version__
        weights = load_eval_weights(self.settings.eval_weights)
        return {"format": FORMAT, "positions": len(self.positions),
                "build": {**asdict(self.settings), "rounds": self.rounds},
                "eval_weights": {k: v for k, v in weights.info.items()
                                 if isinstance(v, (str, int, float))},
                "cythello": __version__}

    def records(self) -> np.ndarray:
        """The book as sorted records."""
        out = np.zeros(len(self.positions), dtype=RECORD)
        for i, (key, pos) in enumerate(self.positions.items()):
            out[i] = (key[0], key[1], _clip(pos.value), _clip(pos.leaf_value),
                      pos.leaf_move, pos.depth)
        return sort_records(out)

    def book(self) -> Book:
        """The book as it stands."""
        return Book(self.records(), self._header(), str(self.path or ""))

    def save(self, path: Optional[Union[str, "os.PathLike[str]"]] = None) -> None:
        """Write the book (to ``path``, else the builder's own path)."""
        target = path if path is not None else self.path
        if target is None:
            raise BookError("no path to save the book to")
        write_book(target, self.records(), self._header())

    def _say(self, text: str) -> None:
        if self.progress is not None:
            self.progress(text)

    # -- parallel work -------------------------------------------------------------------

    def _map(self, fn: Callable[[Any], Any], jobs: List[Any]) -> List[Any]:
        """``fn`` over ``jobs`` in order, on the workers, against the book as it stands."""
        out: List[Any] = [None] * len(jobs)
        try:
            with Workers(self.workers, self.backend, self.ray_address, _init_worker,
                         (self.settings, frozenset(self.positions))) as pool:
                for i, result in pool.run(fn, [(job,) for job in jobs]):
                    out[i] = result
        except WorkersDied as exc:
            raise BookError(f"the book build stopped because {exc}; the book file keeps "
                            "its last finished round") from None
        return out

    # -- values ----------------------------------------------------------------------------

    def _add(self, key: Key, values: Dict[int, int]) -> None:
        self.positions[key] = _Position(0, NO_MOVE, 0, self.settings.depth, values)

    def _refresh_leaves(self) -> None:
        """Every position's leaf is its best move whose position is not in the book:
        positions whose leaf now leads into the book (or that were never given one) get
        the next best.  Positions loaded from a file are searched again first (with the
        same settings, the same values)."""
        def stale(key: Key, pos: _Position) -> bool:
            if pos.values is not None:
                return pos.leaf_move == NO_MOVE or _child(key, pos.leaf_move) in self.positions
            return pos.leaf_move != NO_MOVE and _child(key, pos.leaf_move) in self.positions
        redo = sorted(k for k, p in self.positions.items() if stale(k, p))
        missing = [k for k in redo if self.positions[k].values is None]
        for key, values in zip(missing, self._map(_evaluate, missing)):
            self.positions[key].values = values
            self.positions[key].depth = self.settings.depth
        for key in redo:
            pos = self.positions[key]
            assert pos.values is not None
            step = _best_open_move(key, pos.values, self.positions.__contains__)
            if step is None:
                pos.leaf_move, pos.leaf_value = NO_MOVE, 0
            else:
                pos.leaf_move, pos.leaf_value = step[0], pos.values[step[0]]

    def _negamax(self) -> None:
        """Back the values up: a position's value is the best of its leaf and its moves
        into the book (or out of the game).  Children have more discs than their parent,
        so positions are valued from the fullest boards down."""
        for key in sorted(self.positions, key=lambda k: -_ply(k)):
            pos = self.positions[key]
            best = pos.leaf_value if pos.leaf_move != NO_MOVE else None
            for _, own, opp, sign, exact in children(*key):
                if sign == 0:
                    v = exact * VALUE_SCALE
                elif (own, opp) in self.positions:
                    v = sign * self.positions[(own, opp)].value
                else:
                    continue
                if best is None or v > best:
                    best = v
            pos.value = 0 if best is None else best

    # -- growing ---------------------------------------------------------------------------

    def _root(self) -> Key:
        own, opp = Board().position()
        key = canonical(own, opp)
        return key[0], key[1]

    def _todo(self) -> List[Tuple[int, int, Key, int]]:
        """The leaves to expand: ``(cumulative loss, ply, key, move)``, in the order they
        are searched.  A position is reached with the smallest losses any path gives it
        (positions are visited from the emptiest boards up, so every path is known)."""
        s = self.settings
        margin, window = round(s.margin * VALUE_SCALE), round(s.window * VALUE_SCALE)
        reach: Dict[Key, Tuple[int, int]] = {self._root(): (0, 0)}    # (mover's, other's)
        todo = []
        for key in sorted(self.positions, key=_ply):
            if key not in reach:
                continue
            mine, theirs = reach[key]
            pos = self.positions[key]
            for _, own, opp, sign, _ in children(*key):
                child = (own, opp)
                if sign == 0 or child not in self.positions:
                    continue
                loss = pos.value - sign * self.positions[child].value
                if loss > margin or mine + loss > window:
                    continue
                losses = (theirs, mine + loss) if sign < 0 else (mine + loss, theirs)
                if child not in reach or (sum(losses), losses) < (sum(reach[child]),
                                                                  reach[child]):
                    reach[child] = losses
            if pos.leaf_move != NO_MOVE and _ply(key) < s.plies:
                loss = pos.value - pos.leaf_value
                if loss <= margin and mine + loss <= window:
                    todo.append((mine + theirs + loss, _ply(key), key, pos.leaf_move))
        todo.sort()
        return todo

    def run(self, rounds: Optional[int] = None, max_positions: Optional[int] = None,
            time_limit: Optional[float] = None) -> int:
        """Grow the book by rounds of deviations until nothing is left to do or a budget
        ends it (a time limit ends it after the current chunk of lines); saves after every
        round when the builder has a path.  Returns the positions added."""
        if rounds is not None:
            check_int("rounds", rounds, 1, 10**6)
        if max_positions is not None:
            check_int("max_positions", max_positions, 1, 1 << 26)
        deadline = None if time_limit is None else time.monotonic() + check_time(time_limit)
        start_count = len(self.positions)
        if not self.positions:
            self._start()
        done_rounds = 0
        while rounds is None or done_rounds < rounds:
            todo = self._todo()
            if not todo:
                self._say("nothing left to do within the margins")
                break
            started = time.monotonic()
            self.rounds += 1
            done_rounds += 1
            added = 0
            stop = False
            for first in range(0, len(todo), CHUNK):
                jobs = [(key, move) for _, _, key, move in todo[first:first + CHUNK]]
                # Against the book as it stands: the lines of earlier chunks end where
                # they meet the lines of this one.
                added += self._merge(self._map(_line, jobs))
                if self.ticker is not None:
                    self.ticker(min(first + CHUNK, len(todo)), len(todo),
                                time.monotonic() - started)
                full = max_positions is not None and len(self.positions) >= max_positions
                stop = full or deadline is not None and time.monotonic() >= deadline
                if stop:
                    break
            self._refresh_leaves()
            self._negamax()
            if self.path is not None:
                self.save()
            self._say(f"round {self.rounds}: {len(todo)} to do, {added} positions added, "
                      f"{len(self.positions)} in the book ({time.monotonic() - started:.0f} s)")
            if stop:
                break
        return len(self.positions) - start_count

    def _merge(self, lines: List[List[Tuple[Key, Dict[int, int]]]]) -> int:
        added = 0
        for line in lines:
            for key, values in line:
                if key not in self.positions:
                    self._add(key, values)
                    added += 1
        return added

    def _start(self) -> None:
        """Start a book: the start position and its line of best moves."""
        root = self._root()
        values = self._map(_evaluate, [root])[0]
        self._add(root, values)
        step = _best_open_move(root, values, self.positions.__contains__)
        if step is not None:
            self._merge(self._map(_line, [(root, step[0])]))
        self._refresh_leaves()
        self._negamax()

    def learn(self, boards: Iterable[Board]) -> int:
        """Add positions of played games (up to ``plies`` moves from the start; a forced
        pass is played first), each searched; their leaves and values join the book.
        Returns the positions added."""
        new = set()
        for board in boards:
            if not isinstance(board, Board):
                raise TypeError(f"learn takes cythello.Boards, not {type(board).__name__}")
            own, opp = board.position()
            if board.is_game_over():
                continue
            if board.must_pass():
                own, opp = opp, own
            key = canonical(own, opp)[:2]
            if _ply(key) <= self.settings.plies and key not in self.positions:
                new.add(key)
        jobs = sorted(new)
        for key, values in zip(jobs, self._map(_evaluate, jobs)):
            self._add(key, values)
        self._refresh_leaves()
        self._negamax()
        if self.path is not None:
            self.save()
        return len(jobs)


def _child(key: Key, move: int) -> Optional[Key]:
    for m, own, opp, sign, _ in children(*key):
        if m == move:
            return None if sign == 0 else (own, opp)
    return None


def _clip(value: int) -> int:
    return max(-32768, min(32767, value))


def build_book(path: Union[str, "os.PathLike[str]"], settings: Optional[BuildSettings] = None,
               workers: int = 1, rounds: Optional[int] = None,
               max_positions: Optional[int] = None, time_limit: Optional[float] = None,
               progress: Optional[bool] = None, backend: str = "local",
               ray_address: Optional[str] = None) -> Book:
    """Learn a book into ``path`` (going on from the book there, if any) and return it.
    See :class:`BookBuilder` and :class:`BuildSettings`; the searches run on ``workers``
    local processes, or as Ray tasks (``backend="ray"``, a local Ray or the cluster at
    ``ray_address``), with the same book either way.  ``progress`` prints a line per
    round on stderr (default: when stderr is a terminal)."""
    show = sys.stderr.isatty() if progress is None else progress
    builder = BookBuilder(settings, path, workers,
                          (lambda t: print(t, file=sys.stderr, flush=True)) if show else None,
                          backend, ray_address)
    builder.run(rounds, max_positions, time_limit)
    builder.save()
    return builder.book()


__all__ = ["BuildSettings", "BookBuilder", "build_book"]
