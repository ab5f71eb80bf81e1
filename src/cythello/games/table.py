"""The games of a database as columns: one NumPy array a field, one entry a game, the names
(players, tournaments, source files) in lists the columns number into.

Every source is read into the same columns -- WTHOR files (``.wtb``, with the ``WTH.JOU``
and ``WTH.TRN`` beside them), GGF files of one game or many (``.ggf``: GGS archives,
NBoard's saved games) and transcript lists (``.txt``: a game a line) and cythello's own games files (``.npz``, :mod:`.store`:
self-play kept as games) -- so the index, the
filters and the statistics never ask where a game came from.  Moves are kept without
passes, 60 bytes a game (as WTHOR keeps them); the C replay puts the passes back.  A game
that cannot be replayed is left out and named in ``problems``; a file that cannot be read
at all is named there too, and the rest is read.
"""
from __future__ import annotations

import os
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, Iterator, List, Optional, Tuple, Union

import numpy as np

from .._files import read_text
from ..core._board import Board
from ..core._replay import END, replay
from ..errors import InvalidBoardError
from ..records.game import GameRecord
from ..records.ggf import parse_game
from ..records.wthor import (
    START_BLACK,
    START_WHITE,
    WthorError,
    expand,
    illegal_move_line,
    names_beside,
    read_wtb,
)
from ..squares import PASS
from .store import GamesFileError, read_games

_PathLike = Union[str, "os.PathLike[str]"]

SUFFIXES = (".wtb", ".ggf", ".txt", ".npz")
UNKNOWN = -128            # a result or theoretical score the record does not give

_COLUMNS = {
    "moves": np.uint8, "start_black": np.uint64, "start_white": np.uint64,
    "start_turn": np.uint8, "played": np.int16, "black": np.int32, "white": np.int32,
    "tournament": np.int32, "year": np.int16, "result": np.int8, "theoretical": np.int8,
    "theoretical_empties": np.int8, "source": np.int32, "record": np.int32,
}


@dataclass
class GameTable:
    """The columns (see ``_COLUMNS``): ``moves`` (N, 60) squares, ``END`` after the last;
    the start position; ``played``, the number of moves; the players', tournament's and
    source file's numbers; ``year`` (0: unknown); black's ``result`` and ``theoretical``
    disc differences (``UNKNOWN`` when not given); ``record``, the game's number in its
    file (from 0)."""

    columns: Dict[str, np.ndarray]
    players: List[str] = field(default_factory=list)
    tournaments: List[str] = field(default_factory=list)
    sources: List[str] = field(default_factory=list)
    problems: List[str] = field(default_factory=list)
    skipped: int = 0

    def __len__(self) -> int:
        return len(self.columns["played"])

    def __getattr__(self, name: str) -> np.ndarray:
        try:
            column: np.ndarray = self.__dict__["columns"][name]
        except KeyError:
            raise AttributeError(name) from None
        return column

    def digest(self) -> str:
        """A checksum of the games themselves (moves and starts), for an index to prove it
        was built from them."""
        crc = 0
        for name in ("moves", "start_black", "start_white", "start_turn", "played"):
            crc = zlib.crc32(np.ascontiguousarray(self.columns[name]).tobytes(), crc)
        return f"{len(self)}:{crc:08x}"

    def record(self, g: int) -> GameRecord:
        """Game ``g`` as a :class:`GameRecord` (passes put in)."""
        return next(self.records(np.array([g])))

    def records(self, rows: np.ndarray, chunk: int = 4096) -> Iterator[GameRecord]:
        """The games ``rows`` as records, lazily, replayed ``chunk`` games at a time."""
        c = self.columns

        def known(value: int) -> Optional[int]:
            return None if value == UNKNOWN else value

        for at in range(0, len(rows), chunk):
            part = rows[at:at + chunk]
            walk = replay(c["moves"][part], c["start_black"][part], c["start_white"][part],
                          c["start_turn"][part], passes=True)
            fields = [c[name][part].tolist() for name in (
                "start_black", "start_white", "start_turn", "black", "white", "tournament",
                "year", "result", "theoretical", "theoretical_empties", "source", "record")]
            for j, (b, w, t, pb, pw, tn, year, result, theory, depth, source, number) in \
                    enumerate(zip(*fields)):
                yield GameRecord(
                    tuple(walk["with_passes"][j, :walk["length"][j]].tolist()),
                    Board.from_bitboards(b, w, t), self.players[pb], self.players[pw],
                    self.tournaments[tn], year or None, known(result), known(theory),
                    depth if depth > 0 else None,
                    f"{Path(self.sources[source]).name}, game {number + 1}")


class _Builder:
    """Collects games into columns, numbering names as they come."""

    def __init__(self) -> None:
        self.parts: Dict[str, List[np.ndarray]] = {name: [] for name in _COLUMNS}
        self.players: Dict[str, int] = {}
        self.tournaments: Dict[str, int] = {}
        self.sources: List[str] = []
        self.problems: List[str] = []
        self.skipped = 0

    def number(self, names: Dict[str, int], name: str) -> int:
        return names.setdefault(name, len(names))

    def add(self, **columns: np.ndarray) -> None:
        for name, dtype in _COLUMNS.items():
            self.parts[name].append(np.asarray(columns[name], dtype=dtype))

    def table(self) -> GameTable:
        columns = {}
        for name, dtype in _COLUMNS.items():
            parts = self.parts[name]
            empty = np.zeros((0, 60) if name == "moves" else 0, dtype)
            columns[name] = np.concatenate(parts) if parts else empty
        return GameTable(columns, list(self.players), list(self.tournaments), self.sources,
                         self.problems, self.skipped)

    # -- the sources ------------------------------------------------------------------------

    def wthor(self, path: Path) -> None:
        games = read_wtb(path)
        self.problems.extend(games.problems)
        n = len(games)
        black = np.full(n, START_BLACK, np.uint64)
        white = np.full(n, START_WHITE, np.uint64)
        turn = np.zeros(n, np.uint8)
        walk = replay(games.moves, black, white, turn)
        bad = np.flatnonzero(walk["illegal"])
        for g in bad.tolist():
            self.problems.append(illegal_move_line(path.name, g, games.moves[g],
                                                   int(walk["played"][g])))
        self.skipped += len(bad)
        keep = np.logical_not(walk["illegal"])
        players, tournaments = names_beside(path)
        # The file's numbers, mapped to the database's own through the names beside it.
        def mapped(numbers: np.ndarray, names: List[str], into: Dict[str, int],
                   what: str) -> np.ndarray:
            wanted = np.unique(numbers)
            table = {int(k): self.number(into, names[k] if 0 <= k < len(names)
                                         else f"{what} {k}") for k in wanted.tolist()}
            return np.array([table[int(k)] for k in numbers.tolist()], np.int32)
        depth = games.header.depth
        theoretical = 2 * games.theoretical_discs.astype(np.int16) - 64
        self.add(moves=games.moves[keep], start_black=black[keep], start_white=white[keep],
                 start_turn=turn[keep], played=walk["played"][keep],
                 black=mapped(games.black[keep], players, self.players, "player"),
                 white=mapped(games.white[keep], players, self.players, "player"),
                 tournament=mapped(games.tournament[keep], tournaments, self.tournaments,
                                   "tournament"),
                 year=np.full(int(keep.sum()), games.header.year, np.int16),
                 result=2 * games.black_discs[keep].astype(np.int16) - 64,
                 theoretical=theoretical[keep] if depth else np.full(int(keep.sum()), UNKNOWN),
                 theoretical_empties=np.full(int(keep.sum()), depth),
                 source=np.full(int(keep.sum()), len(self.sources)),
                 record=np.flatnonzero(keep))
        self.sources.append(os.fspath(path))

    def records(self, path: Path, records: Iterable[Tuple[int, GameRecord]]) -> None:
        """Games already read as records (GGF, transcripts); ``records`` gives each with
        its number in the file."""
        rows: Dict[str, List[object]] = {name: [] for name in _COLUMNS}
        for number, game in records:
            squares = [m for m in game.moves if m != PASS]
            moves = np.full(60, END, np.uint8)
            moves[:len(squares)] = squares
            for name, value in (
                    ("moves", moves), ("start_black", game.start.black),
                    ("start_white", game.start.white), ("start_turn", game.start.turn),
                    ("played", len(squares)),
                    ("black", self.number(self.players, game.black)),
                    ("white", self.number(self.players, game.white)),
                    ("tournament", self.number(self.tournaments, game.tournament)),
                    ("year", game.year or 0),
                    ("result", UNKNOWN if game.result is None else game.result),
                    ("theoretical", UNKNOWN if game.theoretical is None else game.theoretical),
                    ("theoretical_empties", game.theoretical_empties or 0),
                    ("source", len(self.sources)), ("record", number)):
                rows[name].append(value)
        if rows["played"]:
            self.add(**{name: np.array(values, dtype=_COLUMNS[name]).reshape(
                (-1, 60) if name == "moves" else -1) for name, values in rows.items()})
        self.sources.append(os.fspath(path))

    def stored(self, path: Path) -> None:
        """A games file (:mod:`.store`); games whose moves do not replay are left out,
        as for WTHOR files."""
        columns, players, tournaments = read_games(path)
        walk = replay(columns["moves"], columns["start_black"], columns["start_white"],
                      columns["start_turn"])
        bad = walk["illegal"] | (walk["played"] != columns["played"])
        for g in np.flatnonzero(bad).tolist():
            self.problems.append(f"{path.name}, game {g + 1}: its moves do not replay from "
                                 "its start; game skipped")
        self.skipped += int(bad.sum())
        keep = np.logical_not(bad)
        player_map = np.array([self.number(self.players, name) for name in players], np.int32)
        tournament_map = np.array([self.number(self.tournaments, name)
                                   for name in tournaments], np.int32)
        picked = {name: column[keep] for name, column in columns.items()}
        for name in ("black", "white"):
            picked[name] = player_map[picked[name]]
        picked["tournament"] = tournament_map[picked["tournament"]]
        self.add(**picked, source=np.full(int(keep.sum()), len(self.sources)),
                 record=np.flatnonzero(keep))
        self.sources.append(os.fspath(path))

    def ggf(self, path: Path) -> None:
        text = read_text(path, "GGF file", InvalidBoardError)

        def games() -> Iterable[Tuple[int, GameRecord]]:
            pos, number = 0, 0
            while True:
                start = text.find("(;", pos)
                if start < 0:
                    return
                end = text.find(";)", start)
                if end < 0:
                    self.problem(path, number, "unterminated GGF game (no ';)')")
                    return
                pos = end + 2
                try:
                    game = GameRecord.from_ggf(parse_game(text[start:pos]))
                    if len(game.moves) - game.moves.count(PASS) > 60:
                        raise InvalidBoardError("more than 60 moves")
                    yield number, game
                except ValueError as exc:
                    self.problem(path, number, str(exc))
                number += 1

        self.records(path, games())

    def transcripts(self, path: Path) -> None:
        text = read_text(path, "transcript file", InvalidBoardError)

        def games() -> Iterable[Tuple[int, GameRecord]]:
            number = 0
            for line in text.splitlines():
                body = line.split("#", 1)[0].split("%", 1)[0].split(";", 1)[0].strip()
                if not body:
                    continue
                try:
                    yield number, GameRecord.from_board(Board.from_transcript(body))
                except ValueError as exc:
                    self.problem(path, number, str(exc))
                number += 1

        self.records(path, games())

    def problem(self, path: Path, number: int, why: str) -> None:
        self.problems.append(f"{path.name}, game {number + 1}: {why}; game skipped")
        self.skipped += 1


def load_table(sources: Iterable[_PathLike]) -> GameTable:
    """Every game of ``sources`` (files, folders, glob patterns): ``.wtb`` as WTHOR,
    ``.ggf`` as GGF, ``.npz`` as a games file (:mod:`.store`), anything else as a transcript list.  A file that cannot be read is a
    line in ``problems`` (``skipped`` counts the games left out); a source that names no
    file at all is an error."""
    builder = _Builder()
    for path in expand(sources, SUFFIXES):
        suffix = path.suffix.lower()
        try:
            if suffix == ".wtb":
                builder.wthor(path)
            elif suffix == ".npz":
                builder.stored(path)
            elif suffix == ".ggf":
                builder.ggf(path)
            else:
                builder.transcripts(path)
        except (WthorError, InvalidBoardError, GamesFileError) as exc:
            builder.problems.append(f"{exc}; file skipped")
    return builder.table()
