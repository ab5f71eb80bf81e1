"""``cythello book``: learn an opening book (build, extend, learn from games) and look
into one (show, stats)."""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any, Iterator, List, Optional, Tuple

from .._files import read_text
from ..core._board import Board
from ..errors import BookError
from .common import add_position, position_from_args, say
from .games import DATABASE_MOVES, add_database_options, quoted_database


def _settings(args: argparse.Namespace, base: Any) -> Any:
    from dataclasses import replace
    changes = {k: v for k, v in (("plies", args.plies), ("depth", args.depth),
                                 ("margin", args.margin), ("window", args.window),
                                 ("probcut", args.probcut))
               if v is not None}
    return replace(base, **changes)


def _backend(args: argparse.Namespace) -> Tuple[str, Optional[str]]:
    return ("ray", args.ray or None) if args.ray is not None else ("local", None)


def _progress(text: str) -> None:
    say(text, sys.stderr)


def _ticker(done: int, todo: int, seconds: float) -> None:
    """On a terminal, a line that follows a round: its lines done and the time left."""
    left = seconds / done * (todo - done) if done else 0.0
    sys.stderr.write(f"\r\033[K  {done}/{todo} lines of this round, about "
                     f"{left / 60:.0f} min left" if done < todo else "\r\033[K")
    sys.stderr.flush()


def _builder(args: argparse.Namespace, path: Path) -> Any:
    """A builder of the book in ``path`` (read once: its settings come from its header),
    or of a new one; the options given change the settings."""
    from ..book import BookBuilder
    builder = BookBuilder(None, path, args.workers, _progress, *_backend(args),
                          ticker=_ticker if sys.stderr.isatty() else None)
    builder.settings = _settings(args, builder.settings)
    return builder


def _grow(args: argparse.Namespace, new: bool) -> int:
    path = Path(args.book)
    if new and path.exists():
        raise BookError(f"{path} exists: 'cythello book extend {path}' goes on with it")
    if not new and not path.exists():
        raise BookError(f"{path} does not exist: 'cythello book build {path}' starts a book")
    builder = _builder(args, path)
    before = len(builder.positions)
    try:
        builder.run(args.rounds, args.positions, args.time)
    except KeyboardInterrupt:
        raise KeyboardInterrupt(
            f"{path} keeps its last finished round; 'cythello book extend {path}' goes on"
            if path.exists() else "no round had finished: nothing was written") from None
    builder.save()
    say(f"{path}: {len(builder.positions):,} positions ({len(builder.positions) - before:,} "
        f"new), {builder.rounds} rounds")
    return 0


def cmd_build(args: argparse.Namespace) -> int:
    return _grow(args, new=True)


def cmd_extend(args: argparse.Namespace) -> int:
    return _grow(args, new=False)


def _positions_of(path: Path) -> Iterator[Board]:
    """Every position of the games in ``path``: a GGF file, a self-play run directory, or
    a text file of transcripts (one game a line, e.g. ``f5d6c3d3c4``)."""
    if path.is_dir():
        from ..selfplay import load
        data = load(path)
        for black, white, turn in zip(data["black"], data["white"], data["turn"]):
            yield Board.from_bitboards(int(black), int(white), int(turn))
        return
    text = read_text(path, "games file", BookError)
    if "(;" in text:
        from ..records.ggf import iter_games
        for game in iter_games(text):
            yield from _line_positions(game.board())
        return
    for number, line in enumerate(text.splitlines(), 1):
        if line.strip() and not line.lstrip().startswith("#"):
            try:
                yield from _line_positions(Board.from_transcript(line.strip()))
            except ValueError as exc:
                raise BookError(f"{path}, line {number}: {exc}") from None


def _line_positions(board: Board) -> Iterator[Board]:
    """The positions of a game, from its start to the end."""
    start = board.root()
    yield start.copy(stack=False)
    for move in board.move_stack:
        start.push(move)
        yield start.copy(stack=False)


def cmd_learn(args: argparse.Namespace) -> int:
    path = Path(args.book)
    builder = _builder(args, path)
    boards: List[Board] = [b for games in args.games for b in _positions_of(Path(games))]
    added = builder.learn(boards)
    builder.save()
    say(f"{path}: {added:,} positions learned from {len(args.games)} file(s), "
        f"{len(builder.positions):,} in the book")
    return 0


def _open(args: argparse.Namespace) -> Any:
    from ..book import Book, default_book
    return default_book() if args.book in (None, "default") else Book.load(args.book)


def cmd_show(args: argparse.Namespace) -> int:
    book = _open(args)
    board = position_from_args(args)
    entry = book.entry(board)
    database = quoted_database(args, board)
    if entry is None:
        say(f"{board.board_string()}: not in the book ({len(book):,} positions)")
        if database is not None:
            say("games database: " + database.table(DATABASE_MOVES))
        return 1
    say(f"{board.board_string()}: {entry.value:+.2f} discs for "
        f"{'black' if board.turn == 0 else 'white'} to move (searched at depth {entry.depth})")
    for move in book.moves(board):
        where = "book" if move.in_book else "leaf" if move.move == entry.leaf_move else "end"
        say(f"  {move.name:4} {move.value:+7.2f}  {where}")
    if database is not None:
        say("games database: " + database.table(DATABASE_MOVES))
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    book = _open(args)
    stats = book.stats()
    build = stats["header"].get("build", {})
    say(f"{book.source or 'book'}: {stats['positions']:,} positions, "
        f"{stats['bytes'] / 2**20:.2f} MB in memory, {stats['leaves']:,} with a leaf")
    if isinstance(build, dict) and build:
        say("built with " + ", ".join(f"{k}={v}" for k, v in sorted(build.items())))
    say("positions by ply: " + " ".join(f"{p}:{n}" for p, n in stats["by_ply"].items()))
    return 0


def _add_growth_options(p: argparse.ArgumentParser, defaults: str) -> None:
    p.add_argument("--plies", type=int, help=f"deepest book positions, in moves from the "
                                             f"start ({defaults} 16)")
    p.add_argument("--depth", type=int, help=f"alpha-beta depth valuing each position's "
                                             f"moves ({defaults} 8)")
    p.add_argument("--margin", type=float, help=f"discs: follow moves within this of the "
                                                f"best ({defaults} 2)")
    p.add_argument("--window", type=float, help=f"discs: the losses one side may take along "
                                                f"a line ({defaults} 4)")
    p.add_argument("--probcut", type=float, help="Multi-ProbCut's width in standard deviations "
                   "for those searches (e.g. 1.5: much deeper in the same time; "
                   f"{defaults} none: full width)")
    p.add_argument("--workers", type=int, default=1, help="worker processes (default: 1); "
                   "the book is the same with any number")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="search on Ray (a local Ray, or the cluster at ADDRESS)")


def _add_budget(p: argparse.ArgumentParser) -> None:
    p.add_argument("--positions", type=int, help="stop once the book has this many positions")
    p.add_argument("--rounds", type=int, help="rounds of deviations to run")
    p.add_argument("--time", type=float, help="seconds; stop after the lines in progress "
                                              "(the book is then not reproducible)")


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "book", help="learn an opening book, or look into one",
        description="Opening books: positions of the opening (unique up to symmetry) with "
                    "the value of their moves, learned by search.  Players use one with "
                    "--book (or book=... in the Python API).")
    books = p.add_subparsers(dest="book_command", metavar="ACTION", required=True,
                             help="build, extend, learn, show or stats")
    growth = (
        ("build", "learn a new book", "Learn a book from the start position by rounds of "
         "deviations (see cythello.book.build); saved after every round, so an interrupted "
         "build goes on with 'extend'.", "the book file to write (.cybook)", "default:",
         cmd_build),
        ("extend", "go on learning a book", "More rounds of deviations, with the book's "
         "settings unless given.", "the book file", "default: the book's,", cmd_extend),
        ("learn", "add the positions of played games", "Add every position of the games "
         "(up to the book's plies), each searched, to the book.", "the book file (made "
         "when missing)", "default: the book's,", cmd_learn),
    )
    for name, short, description, book_help, defaults, func in growth:
        g = books.add_parser(name, help=short, description=description)
        g.add_argument("book", help=book_help)
        if name == "learn":
            g.add_argument("games", nargs="+", help="GGF files, self-play run directories, "
                                                    "or text files of transcripts (one a line)")
        else:
            _add_budget(g)
        _add_growth_options(g, defaults)
        g.set_defaults(func=func)
    s = books.add_parser("show", help="a position's book moves and values",
                         description="The book's moves in a position (default: the start), "
                                     "each with its value in discs for the side to move and "
                                     "whether the book goes on after it; with --db, what the "
                                     "games database's players chose there.")
    add_position(s)
    s.add_argument("--book", help="a book file (default: the shipped book)")
    add_database_options(s, required=False)
    s.set_defaults(func=cmd_show)
    st = books.add_parser("stats", help="size and shape of a book",
                          description="How many positions the book holds, the memory they "
                                      "take, how many have a leaf, the settings it was built "
                                      "with and its positions by ply.")
    st.add_argument("--book", help="a book file (default: the shipped book)")
    st.set_defaults(func=cmd_stats)


__all__ = ["add_parser"]
