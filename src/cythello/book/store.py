"""An opening book in memory: its positions, found by symmetry, and the moves it knows.

A book holds positions unique up to the 8 board symmetries, each with its value (the
negamax of the moves whose positions are in the book and of its *leaf*, the best move
whose position is not, valued by a search).  A move's value is read from the position it
reaches, so the book stores no links (as Egaroucid's does not); a lookup canonicalises the
position and binary-searches the sorted records.
"""
from __future__ import annotations

import os
import random
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, NamedTuple, Optional, Union

import numpy as np

from ..core._board import Board, transform_square
from ..errors import BookError
from ..squares import square_name
from ._keys import canonical, children
from .file import NO_MOVE, RECORD, VALUE_SCALE, read_book, write_book

DEFAULT_PATH = Path(__file__).with_name("default.cybook")
# For each symmetry k, the one that undoes it (a square of the key orientation back to
# the board's): the flips are their own inverses, a transpose after a flip is not.
_INVERSE = [next(j for j in range(8) if all(
    transform_square(transform_square(s, k), j) == s for s in range(64))) for k in range(8)]


class BookMove(NamedTuple):
    """A move the book knows: its value in discs for the side to move (the final disc
    difference the book expects after it), and whether it stays in the book (False: the
    position's leaf, valued by a search; or a move that ends the game, valued exactly)."""

    move: int
    value: float
    in_book: bool

    @property
    def name(self) -> str:
        return square_name(self.move)


class BookEntry(NamedTuple):
    """A book position: its value (discs, side to move), its leaf move (in the board's
    orientation, None when every move is in the book), the leaf's value, and the depth of
    the search that valued its moves."""

    value: float
    leaf_move: Optional[int]
    leaf_value: Optional[float]
    depth: int


class Book:
    """An opening book: ``book.moves(board)``, ``book.choose(board, variety, rng)``,
    ``board in book``, ``book.entry(board)``, ``book.positions(first, last)``.  Load one
    with :meth:`load` or :func:`default_book`; :mod:`cythello.book.build` learns them."""

    def __init__(self, records: np.ndarray, header: Optional[Dict[str, Any]] = None,
                 source: str = "") -> None:
        self.records = np.ascontiguousarray(records, dtype=RECORD)
        self.header: Dict[str, Any] = dict(header or {})
        self.source = source
        # Contiguous key columns: searchsorted on a strided view copies it every call.
        self._own = np.ascontiguousarray(self.records["own"])
        self._opp = np.ascontiguousarray(self.records["opp"])
        self._value = np.ascontiguousarray(self.records["value"])

    @classmethod
    def load(cls, path: Union[str, "os.PathLike[str]"]) -> Book:
        """The book in ``path`` (a :class:`~cythello.errors.BookError` if it is none)."""
        records, header = read_book(path)
        return cls(records, header, os.fspath(path))

    def save(self, path: Union[str, "os.PathLike[str]"]) -> None:
        """Write the book to ``path``."""
        write_book(path, self.records, self.header)

    def __len__(self) -> int:
        return len(self.records)

    @property
    def nbytes(self) -> int:
        """The memory its records take."""
        return int(self.records.nbytes)

    def __repr__(self) -> str:
        return f"<Book {len(self):,} positions{' from ' + self.source if self.source else ''}>"

    # -- lookups -----------------------------------------------------------------------------

    def _index(self, own: int, opp: int) -> int:
        """The record of a canonical key, or -1."""
        i = int(np.searchsorted(self._own, np.uint64(own)))
        n = len(self._own)
        while i < n and int(self._own[i]) == own:
            if int(self._opp[i]) == opp:
                return i
            i += 1
        return -1

    def _find(self, board: Board) -> "tuple[int, int]":
        """(record index or -1, the symmetry from the board to the key)."""
        if not isinstance(board, Board):
            raise TypeError(f"a book looks up a cythello.Board, not {type(board).__name__}")
        own, opp = board.position()
        key_own, key_opp, k = canonical(own, opp)
        return self._index(key_own, key_opp), k

    def __contains__(self, board: object) -> bool:
        return isinstance(board, Board) and self._find(board)[0] >= 0

    def entry(self, board: Board) -> Optional[BookEntry]:
        """The book's record of ``board`` (any of its symmetries), or None."""
        i, k = self._find(board)
        if i < 0:
            return None
        rec = self.records[i]
        leaf = int(rec["leaf_move"])
        return BookEntry(int(rec["value"]) / VALUE_SCALE,
                         None if leaf == NO_MOVE else transform_square(leaf, _INVERSE[k]),
                         None if leaf == NO_MOVE else int(rec["leaf_value"]) / VALUE_SCALE,
                         int(rec["depth"]))

    def value(self, board: Board) -> Optional[float]:
        """The book value of ``board`` in discs for the side to move, or None."""
        found = self.entry(board)
        return None if found is None else found.value

    def moves(self, board: Board) -> List[BookMove]:
        """The moves of ``board`` the book values, best first (ties by square): those whose
        positions are in the book, the leaf, and moves that end the game.  Empty when the
        position is not in the book."""
        found = self.entry(board)
        if found is None:
            return []
        own, opp = board.position()
        out = []
        for move, child_own, child_opp, sign, exact in children(own, opp):
            if sign == 0:
                out.append(BookMove(move, float(exact), False))
                continue
            i = self._index(child_own, child_opp)
            if i >= 0:
                out.append(BookMove(move, sign * int(self._value[i]) / VALUE_SCALE, True))
            elif move == found.leaf_move and found.leaf_value is not None:
                out.append(BookMove(move, found.leaf_value, False))
        out.sort(key=lambda m: (-m.value, m.move))
        return out

    def choose(self, board: Board, variety: float = 0.0,
               rng: Optional[random.Random] = None) -> Optional[BookMove]:
        """A book move for ``board``, or None outside the book: one of the moves within
        ``variety`` discs of the best, drawn with weight ``2 * variety + 1 - loss`` (Zebra's
        rule: the best move most often, a move ``variety`` discs worse still a third as
        often); ties (variety 0) are drawn evenly.  ``rng`` makes the draw reproducible."""
        moves = self.moves(board)
        return draw_book_move(moves, variety, rng) if moves else None

    def positions(self, first: int, last: int) -> List[Board]:
        """The book's positions ``first`` to ``last`` moves from the start that its moves
        reach (moves whose positions are in the book), one board for each up to symmetry,
        nearest the start first; each board's move stack is one line of book moves to it.
        Finished games are left out.  For matches that judge a book on many of its lines
        (``benchmarks/strength.py --from-book``)."""
        if not (isinstance(first, int) and isinstance(last, int) and 0 <= first <= last):
            raise ValueError(f"book positions: moves from the start first <= last, both "
                             f"0 or more, not {first!r} to {last!r}")
        start = Board()
        root = self._find(start)[0]
        seen = {root}
        out: List[Board] = []
        level = [start] if root >= 0 else []
        for ply in range(last + 1):
            if ply >= first:
                out.extend(board for board in level if not board.is_game_over())
            if ply == last:
                break
            after = []
            for board in level:
                for known in self.moves(board):
                    if not known.in_book:
                        continue
                    child = board.copy()
                    child.push(known.move)
                    index = self._find(child)[0]
                    if index not in seen:
                        seen.add(index)
                        after.append(child)
            level = after
        return out

    def stats(self) -> Dict[str, Any]:
        """Size and shape: positions, bytes, positions per ply, leaves, the header."""
        taken = np.ascontiguousarray(self.records["own"] | self.records["opp"])
        discs = np.unpackbits(taken.view(np.uint8).reshape(-1, 8), axis=1).sum(1)
        plies = np.bincount(discs.astype(np.int64) - 4) if len(self) else np.zeros(0, int)
        return {"positions": len(self), "bytes": self.nbytes,
                "leaves": int(np.sum(self.records["leaf_move"] != NO_MOVE)),
                "by_ply": {p: int(n) for p, n in enumerate(plies) if n},
                "header": self.header}


def draw_book_move(moves: List[BookMove], variety: float,
                   rng: Optional[random.Random] = None) -> BookMove:
    """One of ``moves`` (a position's book moves, best first) within ``variety`` discs of
    the best, drawn as :meth:`Book.choose` says."""
    best = moves[0].value
    candidates = [m for m in moves if best - m.value <= variety]
    if len(candidates) == 1:
        return candidates[0]
    weights = [2 * variety + 1 - (best - m.value) for m in candidates]
    return (rng or random).choices(candidates, weights)[0]


@lru_cache(maxsize=1)
def default_book() -> Book:
    """The book cythello ships, loaded once (on first use)."""
    if not DEFAULT_PATH.exists():
        raise BookError(f"this cythello has no default opening book ({DEFAULT_PATH.name} "
                        "is missing from the package)")
    return Book.load(DEFAULT_PATH)


def load_book(value: Any) -> Optional[Book]:
    """A ``book`` setting as a book: None, ``"default"`` (loaded once per process), a book
    file, or a :class:`Book` as it is."""
    if value is None or isinstance(value, Book):
        return value
    if isinstance(value, str) and value == "default":
        return default_book()
    if isinstance(value, (str, os.PathLike)):
        return Book.load(value)
    raise TypeError(f"book must be None, 'default', a book file or a Book, "
                    f"not {type(value).__name__}")
