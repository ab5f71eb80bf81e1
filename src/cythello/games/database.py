"""A database of games a user can query: load WTHOR, GGF and transcript files, filter by
player, tournament, year and opening, and ask what was played in a position.

    db = GameDatabase.open("wthor/")               # every .wtb (and .ggf, .txt) there
    db.stats("f5d6c3")                              # the moves played after f5 d6 c3
    db.filter(player="Tamenori", year=(2000, 2009)).games_at("f5f6")

A filtered database is a view of the same games (and the same index).  The position index
is built the first time a position is asked for and saved beside the files (or in the
user's cache folder where that folder cannot be written), and used again while the games
are the same ones.
"""
from __future__ import annotations

import hashlib
import os
import stat
import sys
from pathlib import Path
from typing import Iterable, Iterator, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._checks import check_int
from ..core._board import Board, transform_square
from ..core._replay import PLY_BITS, positions_at
from ..errors import SettingsError
from ..records.game import GameRecord
from ..records.ggf import write_ggf
from ..records.position import board_from_text
from ..records.wthor import expand
from ..squares import PASS
from .index import GamesIndexError, PositionIndex
from .stats import MoveStat, PositionStats
from .table import SUFFIXES, UNKNOWN, GameTable, _Builder, load_table

_PathLike = Union[str, "os.PathLike[str]"]
Years = Union[int, Tuple[int, int], range, None]

INDEX_NAME = "cythello-games.index"

# _FROM_FRAME[s][m]: the square x of a position with transform_square(x, s) == m, i.e. a
# move seen in a game whose position is the asked one transformed by symmetry s.
_FROM_FRAME = np.zeros((8, 65), np.uint8)
for _s in range(8):
    for _x in range(64):
        _FROM_FRAME[_s, transform_square(_x, _s)] = _x
    _FROM_FRAME[_s, PASS] = PASS


def cache_folder() -> Path:
    """Where indexes go whose games' folder cannot be written: ``$CYTHELLO_CACHE``, else
    the platform's user cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``; on Windows
    ``%LOCALAPPDATA%``), in a ``cythello`` folder."""
    if os.environ.get("CYTHELLO_CACHE"):
        return Path(os.environ["CYTHELLO_CACHE"])
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "cythello"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "cythello"


def default_index_path(sources: Sequence[_PathLike], files: Sequence[Path]) -> Path:
    """Beside the games: ``cythello-games.index`` in a folder given as the one source, else
    a name for this set of files beside the first; in the cache folder when that folder
    cannot be written."""
    names = "\n".join(str(p.resolve()) for p in files).encode()
    tag = hashlib.sha1(names).hexdigest()
    if len(sources) == 1 and Path(os.fspath(sources[0])).is_dir():
        folder, name = Path(os.fspath(sources[0])), INDEX_NAME
    else:
        folder, name = files[0].parent, f"cythello-games-{tag[:10]}.index"
    if _writable(folder):
        return folder / name
    return cache_folder() / f"games-{tag[:16]}.index"


def _writable(folder: Path) -> bool:
    """Whether files may be added to ``folder``: the process may write there and the
    folder is not marked read-only (root may write anywhere; a folder without write bits
    says its owner wants nothing added, and is left alone)."""
    try:
        mode = folder.stat().st_mode
    except OSError:
        return False
    return os.access(folder, os.W_OK) and bool(stat.S_IMODE(mode) & 0o222)


class _Shared:
    """What the views of one database share: the games, the index and where it lives."""

    def __init__(self, table: GameTable, index_path: Optional[Path]) -> None:
        self.table = table
        self.index_path = index_path
        self.index: Optional[PositionIndex] = None
        self.index_state = "not built yet"

    def get_index(self) -> PositionIndex:
        if self.index is not None:
            return self.index
        path = self.index_path
        why = ""
        if path is not None and path.exists():
            try:
                self.index = PositionIndex.load(path, self.table)
                self.index_state = f"loaded from {path}"
                return self.index
            except GamesIndexError as exc:
                why = f" ({exc})"
        self.index = PositionIndex.build(self.table)
        self.index_state = "built in memory" + why
        if path is not None:
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                self.index.save(path)
                self.index_state = f"built and saved to {path}{why}"
            except (OSError, GamesIndexError) as exc:
                self.index_state = f"built in memory; not saved: {exc}{why}"
        return self.index


class GameDatabase:
    """Games, their players and tournaments, and a position index over them.

    ``len(db)`` games, ``db[i]`` the i-th as a :class:`~cythello.records.game.GameRecord`,
    iteration gives them all (lazily); ``problems`` lists, a line each, what could not be
    read (``skipped`` counts the games left out)."""

    def __init__(self, shared: _Shared, rows: Optional[np.ndarray] = None) -> None:
        self._shared = shared
        self._rows = rows               # the games of this view, sorted; None: all

    # -- making one ---------------------------------------------------------------------------

    @classmethod
    def open(cls, *sources: _PathLike, index: Union[str, _PathLike, None] = "auto"
             ) -> "GameDatabase":
        """The games of files, folders and glob patterns (``.wtb`` WTHOR, ``.ggf`` GGF,
        ``.txt`` a transcript a line).  ``index``: ``"auto"`` keeps the position index
        beside the files (see :func:`default_index_path`), a path keeps it there, ``None``
        keeps it in memory only."""
        if not sources:
            raise SettingsError("a games database needs at least one file or folder")
        files = expand(sources, SUFFIXES)
        table = load_table(files)
        if index is None:
            path = None
        elif isinstance(index, str) and index == "auto":
            path = default_index_path(sources, files)
        else:
            path = Path(os.fspath(index))
        return cls(_Shared(table, path))

    @classmethod
    def from_records(cls, records: Iterable[GameRecord]) -> "GameDatabase":
        """A database of games in memory (its index is never saved)."""
        builder = _Builder()
        builder.records(Path("<memory>"), enumerate(records))
        return cls(_Shared(builder.table(), None))

    # -- the games ----------------------------------------------------------------------------

    @property
    def table(self) -> GameTable:
        """The columns of every game (this view's rows: :meth:`rows`)."""
        return self._shared.table

    def rows(self) -> np.ndarray:
        """The numbers of this view's games in :attr:`table`."""
        if self._rows is None:
            return np.arange(len(self._shared.table))
        return self._rows

    def __len__(self) -> int:
        return len(self._shared.table) if self._rows is None else len(self._rows)

    def __getitem__(self, i: int) -> GameRecord:
        n = len(self)
        i = check_int("game number", i, -(1 << 62), 1 << 62)
        if not -n <= i < n:
            raise IndexError(f"game {i} of a database of {n:,} games")
        return self._shared.table.record(int(self.rows()[i]))

    def __iter__(self) -> Iterator[GameRecord]:
        yield from self._shared.table.records(self.rows())

    def __repr__(self) -> str:
        return f"<GameDatabase: {len(self):,} games>"

    @property
    def problems(self) -> List[str]:
        return self._shared.table.problems

    @property
    def skipped(self) -> int:
        return self._shared.table.skipped

    @property
    def index_state(self) -> str:
        """Where the position index came from: not built yet, loaded, built (and saved)."""
        return self._shared.index_state

    @property
    def index_path(self) -> Optional[Path]:
        return self._shared.index_path

    def index(self) -> PositionIndex:
        """The position index (loaded or built now, the first time)."""
        return self._shared.get_index()

    # -- queries ------------------------------------------------------------------------------

    def _view(self, mask: np.ndarray) -> "GameDatabase":
        return GameDatabase(self._shared, self.rows()[mask])

    def filter(self, *, player: Optional[str] = None, black: Optional[str] = None,
               white: Optional[str] = None, tournament: Optional[str] = None,
               year: Years = None, opening: Union[str, Board, None] = None
               ) -> "GameDatabase":
        """The games that match every criterion given: names as parts of the name, any
        case (``player``: either colour); ``year`` one year or an inclusive ``(first,
        last)``; ``opening`` a position (a transcript such as ``"f5d6c3"``, a board string
        or a Board) the games passed through, up to symmetry."""
        table = self._shared.table
        rows = self.rows()
        mask = np.ones(len(rows), bool)

        def names(column: np.ndarray, names: List[str], part: str) -> np.ndarray:
            if not isinstance(part, str):
                raise TypeError(f"a name to look for is a str, not {type(part).__name__}")
            wanted = part.casefold()
            hit = np.array([wanted in n.casefold() for n in names] or [False], bool)
            found: np.ndarray = hit[column[rows]]
            return found

        if player is not None:
            mask &= names(table.black, table.players, player) | names(
                table.white, table.players, player)
        if black is not None:
            mask &= names(table.black, table.players, black)
        if white is not None:
            mask &= names(table.white, table.players, white)
        if tournament is not None:
            mask &= names(table.tournament, table.tournaments, tournament)
        if year is not None:
            first, last = _years(year)
            years = table.year[rows]
            mask &= (years >= first) & (years <= last)
        view = self._view(mask)
        if opening is not None:
            view = view.games_at(opening)
        return view

    def _through(self, position: Union[str, Board]) -> Tuple[Board, np.ndarray, np.ndarray,
                                                               np.ndarray, np.ndarray]:
        """The position asked for (a forced pass played) and, for each game of this view
        through it: the game, the move number there, the symmetry from the position to
        the game's, and the mover's colour."""
        board = position.copy(stack=False) if isinstance(position, Board) else \
            board_from_text(position)
        if not isinstance(board, Board):
            raise TypeError("a position is a Board or a str")
        if board.must_pass():
            board.push(PASS)
        table = self._shared.table
        empty = np.zeros(0, np.int64)
        if board.is_game_over():
            return board, empty, empty, empty, empty
        own, opp = board.position()
        entries = self.index().lookup(own, opp)
        games = (entries >> PLY_BITS).astype(np.int64)
        plies = (entries & ((1 << PLY_BITS) - 1)).astype(np.int16)
        if self._rows is not None:
            inside = np.isin(games, self._rows, assume_unique=False)
            games, plies = games[inside], plies[inside]
        g_own, g_opp, colour = positions_at(table.moves, table.start_black, table.start_white,
                                            table.start_turn, games, plies)
        sym = np.full(len(games), -1, np.int64)
        for s in range(8):
            p, o = board.transform(s).position()
            sym[(sym < 0) & (g_own == np.uint64(p)) & (g_opp == np.uint64(o))] = s
        found = sym >= 0                       # the rest: another position's key
        order = np.argsort(games[found], kind="stable")
        return (board, games[found][order], plies[found][order].astype(np.int64),
                sym[found][order], colour[found][order].astype(np.int64))

    def games_at(self, position: Union[str, Board]) -> "GameDatabase":
        """The games of this view that passed through ``position`` (up to symmetry; a
        game is counted once however often it did)."""
        _, games, _, _, _ = self._through(position)
        return GameDatabase(self._shared, np.unique(games))

    def stats(self, position: Union[str, Board] = "", players: int = 3) -> PositionStats:
        """What this view's games played in ``position`` (a transcript, a board string or
        a Board; default the start), up to symmetry, the moves named in the position's own
        frame: each move's games, wins, draws and losses and mean score for the side that
        played it, and its ``players`` most frequent players."""
        players = check_int("players", players, 0, 1 << 20)
        board, games, plies, sym, colour = self._through(position)
        table = self._shared.table
        # A game counts once in a position it passed through twice (a transposition back is
        # impossible in Othello: discs only grow) -- so every match is its own game.
        played = plies < table.played[games]
        g, ply, s, c = games[played], plies[played], sym[played], colour[played]
        moves = _FROM_FRAME[s, table.moves[g, ply]].astype(np.int64)
        sign = np.where(c == 0, 1, -1)
        result = table.result[g].astype(np.int64)
        known = result != UNKNOWN
        score = sign * result
        theory = table.theoretical[g].astype(np.int64)
        theory_known = theory != UNKNOWN
        mover = np.where(c == 0, table.black[g], table.white[g])
        stats = []
        for move in np.unique(moves).tolist():
            at = moves == move
            k = at & known
            t = at & theory_known
            who, count = np.unique(mover[at], return_counts=True)
            top = np.lexsort((who, -count))[:players]
            stats.append(MoveStat(
                int(move), int(at.sum()), int((score[k] > 0).sum()),
                int((score[k] == 0).sum()), int((score[k] < 0).sum()),
                float(score[k].mean()) if k.any() else None,
                float((sign[t] * theory[t]).mean()) if t.any() else None,
                tuple((table.players[int(who[i])], int(count[i])) for i in top)))
        stats.sort(key=lambda m: (-m.games, m.move))
        return PositionStats(board, len(games), tuple(stats))

    # -- out ----------------------------------------------------------------------------------

    def transcripts(self) -> Iterator[str]:
        """Each game as a transcript (``f5d6c3…``)."""
        for game in self:
            yield game.transcript()

    def write_ggf(self, path: _PathLike) -> int:
        """Write this view's games to a GGF file, a game a line; returns how many."""
        games = [game.to_ggf() for game in self]
        write_ggf(os.fspath(path), games)
        return len(games)

    def write_games(self, path: _PathLike) -> int:
        """Write this view's games to a games file (``.npz``, :mod:`cythello.games.store`:
        every column kept, ~40 bytes a game); returns how many."""
        from .store import STORED, write_games
        table, rows = self._shared.table, self.rows()
        write_games(path, {name: table.columns[name][rows] for name in STORED},
                    table.players, table.tournaments)
        return len(rows)

    def write_transcripts(self, path: _PathLike) -> int:
        """Write this view's games to a text file, a transcript a line."""
        from .._files import write_atomic
        lines = list(self.transcripts())
        write_atomic(path, "".join(t + "\n" for t in lines).encode(), "transcript file",
                     OSError)
        return len(lines)


def _years(year: Years) -> Tuple[int, int]:
    if isinstance(year, range):
        if year.step != 1 or not len(year):
            raise SettingsError(f"a range of years counts up by one: {year}")
        return year.start, year.stop - 1
    if isinstance(year, tuple) and len(year) == 2:
        first, last = (check_int("year", y, 0, 9999) for y in year)
        if first > last:
            raise SettingsError(f"the first year {first} is after the last {last}")
        return first, last
    y = check_int("year", year, 0, 9999)
    return y, y


