"""WTHOR: the French Othello Federation's database of tournament games, in the small binary
format Zebra, Edax, NTest, Sensei and Cassio read (the format is described in the docs'
"Games database" page).

A year's ``.wtb`` file is a 16-byte header and 68 bytes a game: the tournament's and both
players' numbers (indices into ``WTH.TRN`` and ``WTH.JOU``), black's discs at the end,
black's discs under perfect play from a fixed number of empties (the "theoretical
score"), and the 60 moves as ``10 * row + column`` (passes not recorded).  The readers
here turn a file into arrays at once (``read_wtb``) and games into
:class:`~cythello.records.game.GameRecord` lazily (``iter_wthor``), the moves replayed in C
(:mod:`cythello.core._replay`) with the passes put in.

Damage is reported, not fatal for a collection: a file that is not a WTHOR game file is a
:class:`WthorError` naming it; a header whose count disagrees with the file's size reads
the whole records there are and says so in ``problems``; a game with an illegal move is
left out and named there too.
"""
from __future__ import annotations

import glob
import os
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._files import read_regular_file
from ..core._board import Board
from ..core._replay import END, replay
from ..errors import InvalidBoardError
from ..squares import square_name
from .game import GameRecord

_PathLike = Union[str, "os.PathLike[str]"]

HEADER_BYTES = 16
GAME_BYTES = 68
PLAYER_BYTES = 20            # a WTH.JOU record: the name, NUL-padded
TOURNAMENT_BYTES = 26        # a WTH.TRN record
MAX_FILE = 1 << 28           # 256 MiB: about 4 M games in one file (a year has ~6,000)
NOT_A_SQUARE = 254           # a move byte that names no square: an illegal move
START_BLACK = 0x0000000810000000
START_WHITE = 0x0000001008000000


class WthorError(InvalidBoardError):
    """A file that is not a readable WTHOR file (too short, a foreign header, a board size
    other than 8x8), named in the message."""


@dataclass(frozen=True)
class WthorHeader:
    """The 16-byte header of a WTHOR file."""

    created: Optional[date]       # when the file was written (None if not a real date)
    games: int                    # N1: games in a .wtb (0 in .JOU/.TRN)
    names: int                    # N2: names in a .JOU/.TRN (0 in a .wtb)
    year: int                     # the year of the games (.wtb)
    board_size: int               # P1: 0 or 8 for 8x8
    kind: int                     # P2: 0 for a normal game file
    depth: int                    # P3: the theoretical score's number of empties


@dataclass
class WthorGames:
    """One ``.wtb`` file's games as arrays (one entry a game, in the file's order):
    ``moves`` holds squares 0-63, ``END`` after the last move and ``NOT_A_SQUARE`` for a
    byte that names none; ``problems`` says what did not agree (a header count)."""

    path: str
    header: WthorHeader
    tournament: np.ndarray
    black: np.ndarray
    white: np.ndarray
    black_discs: np.ndarray
    theoretical_discs: np.ndarray
    moves: np.ndarray
    problems: List[str] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.moves)


def parse_header(data: bytes, where: str) -> WthorHeader:
    """The header of a WTHOR file's bytes (``where`` names the file in errors)."""
    if len(data) < HEADER_BYTES:
        raise WthorError(f"{where} is not a WTHOR file: {len(data)} bytes, shorter than the "
                         f"{HEADER_BYTES}-byte header")
    h = data[:HEADER_BYTES]
    try:
        created: Optional[date] = date(h[0] * 100 + h[1], h[2], h[3])
    except ValueError:
        created = None
    return WthorHeader(created, int.from_bytes(h[4:8], "little"),
                       int.from_bytes(h[8:10], "little"), int.from_bytes(h[10:12], "little"),
                       h[12], h[13], h[14])


def _body(path: _PathLike, record: int, what: str) -> Tuple[WthorHeader, np.ndarray,
                                                             List[str]]:
    """The header and the whole records of a WTHOR file; the count is the file's size,
    whatever the header claims (so a header that claims 4 G records allocates nothing)."""
    where = f"{what} {os.fspath(path)}"
    data = read_regular_file(path, MAX_FILE, where, WthorError)
    header = parse_header(data, where)
    problems: List[str] = []
    whole, rest = divmod(len(data) - HEADER_BYTES, record)
    claimed = header.games if record == GAME_BYTES else header.names
    if claimed != whole or rest:
        extra = f" and {rest} bytes more" if rest else ""
        problems.append(f"{os.fspath(path)}: the header says {claimed:,} records but the file "
                        f"holds {whole:,} whole ones{extra}; the {whole:,} are read")
    body = np.frombuffer(data, np.uint8, whole * record, HEADER_BYTES).reshape(whole, record)
    return header, body, problems


def squares_of(codes: np.ndarray) -> np.ndarray:
    """WTHOR move bytes (``10 * row + column``, 0 for none) as squares: ``END`` for 0,
    ``NOT_A_SQUARE`` for a byte that names no square."""
    codes = np.asarray(codes, dtype=np.uint8)
    row, col = codes // 10, codes % 10
    good = (row >= 1) & (row <= 8) & (col >= 1) & (col <= 8)
    squares = np.where(good, (row.astype(np.int16) - 1) * 8 + col - 1, NOT_A_SQUARE)
    squares = np.where(codes == 0, END, squares).astype(np.uint8)
    # Nothing after the first END is a move: a record padded with junk ends there.
    ended = np.maximum.accumulate(squares == END, axis=1)
    return np.where(ended, END, squares).astype(np.uint8)


def codes_of(squares: Sequence[int]) -> bytes:
    """Squares (passes left out) as the 60 move bytes of a WTHOR record."""
    out = bytearray(60)
    for i, sq in enumerate(squares):
        out[i] = 10 * (sq // 8 + 1) + sq % 8 + 1
    return bytes(out)


def read_wtb(path: _PathLike) -> WthorGames:
    """A ``.wtb`` file's games as arrays (a :class:`WthorError` if it is not one)."""
    header, body, problems = _body(path, GAME_BYTES, "WTHOR game file")
    if header.names:
        raise WthorError(f"{os.fspath(path)} holds {header.names:,} names, not games (a "
                         "WTH.JOU or WTH.TRN file, not a .wtb)")
    if header.board_size not in (0, 8):
        raise WthorError(f"WTHOR game file {os.fspath(path)} is for a {header.board_size}x"
                         f"{header.board_size} board; cythello reads 8x8 games")
    if header.kind != 0:
        raise WthorError(f"WTHOR file {os.fspath(path)} is not a game file (its header's "
                         f"type byte is {header.kind}, a solitaire or other file)")
    words = body[:, :6].copy().view("<u2")
    return WthorGames(os.fspath(path), header, words[:, 0].astype(np.int32),
                      words[:, 1].astype(np.int32), words[:, 2].astype(np.int32),
                      body[:, 6].copy(), body[:, 7].copy(), squares_of(body[:, 8:]), problems)


def _names(path: _PathLike, record: int, what: str) -> Tuple[List[str], List[str]]:
    _, body, problems = _body(path, record, what)
    names = [bytes(row).split(b"\0", 1)[0].decode("latin-1").strip() for row in body]
    return names, problems


def read_players(path: _PathLike) -> List[str]:
    """The players' names of a ``WTH.JOU`` file, by number (8-bit text read as Latin-1)."""
    return _names(path, PLAYER_BYTES, "WTHOR players file")[0]


def read_tournaments(path: _PathLike) -> List[str]:
    """The tournaments' names of a ``WTH.TRN`` file, by number."""
    return _names(path, TOURNAMENT_BYTES, "WTHOR tournaments file")[0]


def expand(sources: Iterable[_PathLike], suffixes: Tuple[str, ...]) -> List[Path]:
    """Files from paths, folders (their files with one of ``suffixes``, sorted) and glob
    patterns, each once, in the order given; a source that names nothing is an error."""
    out: List[Path] = []
    for source in sources:
        text = os.fspath(source)
        path = Path(text)
        if path.is_dir():
            found = sorted(p for p in path.iterdir()
                           if p.is_file() and p.suffix.lower() in suffixes)
        elif path.exists():
            found = [path]
        elif glob.has_magic(text):
            found = [Path(p) for p in sorted(glob.glob(text)) if Path(p).is_file()]
        else:
            raise FileNotFoundError(2, "no such file or folder", text)
        if not found:
            raise WthorError(f"{text}: no game files there ({', '.join(suffixes)})")
        out.extend(p for p in found if p not in out)
    return out


def names_beside(path: Path) -> Tuple[List[str], List[str]]:
    """``WTH.JOU``'s and ``WTH.TRN``'s names in the folder of ``path`` (any case of the
    names; empty lists where a file is missing)."""
    found: Dict[str, Path] = {p.name.upper(): p for p in path.parent.iterdir()
                              if p.is_file()}
    players = read_players(found["WTH.JOU"]) if "WTH.JOU" in found else []
    tournaments = read_tournaments(found["WTH.TRN"]) if "WTH.TRN" in found else []
    return players, tournaments


def _name(names: List[str], number: int, what: str) -> str:
    return names[number] if 0 <= number < len(names) else f"{what} {number}"


def iter_wthor(*sources: _PathLike, problems: Optional[List[str]] = None
               ) -> Iterator[GameRecord]:
    """The games of WTHOR files (paths, folders, globs), lazily, in file order, with the
    players' and tournaments' names from the ``WTH.JOU`` and ``WTH.TRN`` beside each file
    (a number stands in for a missing name).  A file that is not a WTHOR file, a header
    that disagrees with its file, a game with an illegal move: one line each in
    ``problems`` (when given; else such a file raises :class:`WthorError` and such a game
    is skipped silently), the rest still read."""
    beside: Dict[Path, Tuple[List[str], List[str]]] = {}
    for path in expand(sources, (".wtb",)):
        try:
            games = read_wtb(path)
        except WthorError as exc:
            if problems is None:
                raise
            problems.append(str(exc))
            continue
        if problems is not None:
            problems.extend(games.problems)
        if path.parent not in beside:
            beside[path.parent] = names_beside(path)
        players, tournaments = beside[path.parent]
        n = len(games)
        walk = replay(games.moves, np.full(n, START_BLACK, np.uint64),
                      np.full(n, START_WHITE, np.uint64), np.zeros(n, np.uint8), passes=True)
        depth = games.header.depth or None
        for g in range(n):
            if walk["illegal"][g]:
                if problems is not None:
                    problems.append(illegal_move_line(path.name, g, games.moves[g],
                                                      int(walk["played"][g])))
                continue
            moves = tuple(walk["with_passes"][g, :walk["length"][g]].tolist())
            theoretical = int(games.theoretical_discs[g])
            yield GameRecord(
                moves, Board(), _name(players, int(games.black[g]), "player"),
                _name(players, int(games.white[g]), "player"),
                _name(tournaments, int(games.tournament[g]), "tournament"),
                games.header.year or None, 2 * int(games.black_discs[g]) - 64,
                2 * theoretical - 64 if depth else None, depth, f"{path.name}, game {g + 1}")


def illegal_move_line(file: str, game: int, squares: np.ndarray, played: int) -> str:
    """The one line that names a skipped game's illegal move (``game`` counts from 0)."""
    sq = int(squares[played])
    name = "a byte naming no square" if sq >= 64 else square_name(sq)
    return f"{file}, game {game + 1}: move {played + 1} ({name}) is illegal; game skipped"
