"""Opening books: positions of the opening, unique up to symmetry, valued by search.

    >>> from cythello.book import default_book
    >>> book = default_book()                    # the book cythello ships (loaded once)
    >>> book.moves(Board())                      # BookMove(move, value in discs, in_book)
    >>> book.choose(board, variety=2.0, rng=random.Random(7))

A player plays from one with the ``book`` setting (``MCTSPlayer(book="default")``); books
are learned with :func:`build_book` (``cythello book build``), stored in ``.cybook`` files
(:mod:`cythello.book.file`).
"""
from ..errors import BookError
from .build import BookBuilder, BuildSettings, build_book
from .store import Book, BookEntry, BookMove, default_book, load_book

__all__ = ["Book", "BookEntry", "BookMove", "BookError", "BookBuilder", "BuildSettings",
           "build_book", "default_book", "load_book"]
