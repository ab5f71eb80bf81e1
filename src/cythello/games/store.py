"""Games kept as games: the columns of a :class:`~cythello.games.table.GameTable` in one
``.npz`` file, the form in which self-play at scale is stored.

A game is its start position, its moves (60 bytes, as WTHOR keeps them), its result and
the number of empties from which it was played perfectly -- about 80 bytes before
deflation, 30-50 after, where a position-by-position shard of the same game takes ~15 KB.
Millions of games fit in memory and on disk, every position can be replayed from them in
C (:func:`cythello.core._replay.positions_at`), and a run can add files to a folder run
after run.  The names (players, tournaments) travel as UTF-8 JSON in a byte array, so the
file holds nothing but plain arrays (no pickles) and is read with the same checks as
every other array file of cythello.

    write_games("games-000000.npz", table)
    GameDatabase.open("selfplay/")        # every .npz there, with WTHOR, GGF, ...
"""
from __future__ import annotations

import json
import os
from typing import Any, Dict, List, Tuple, Union

import numpy as np

from .._files import read_npz, write_npz
from ..core._replay import END

_PathLike = Union[str, "os.PathLike[str]"]

FORMAT = "cythello-games-1"
# The stored columns: every GameTable column but the source file's number and the game's
# number in it, which the reader gives (they say where a game was read from).
STORED = {
    "moves": np.uint8, "start_black": np.uint64, "start_white": np.uint64,
    "start_turn": np.uint8, "played": np.int16, "black": np.int32, "white": np.int32,
    "tournament": np.int32, "year": np.int16, "result": np.int8, "theoretical": np.int8,
    "theoretical_empties": np.int8,
}


class GamesFileError(ValueError):
    """A games file that cannot be read (or written)."""


def write_games(path: _PathLike, columns: Dict[str, np.ndarray], players: List[str],
                tournaments: List[str]) -> None:
    """``columns`` (the :data:`STORED` ones, a game an entry) and the names they number
    into, as a deflated ``.npz`` file written whole or not at all."""
    arrays: Dict[str, Any] = {}
    n = len(columns["played"])
    for name, dtype in STORED.items():
        column = np.asarray(columns[name])
        if column.shape != ((n, 60) if name == "moves" else (n,)):
            raise GamesFileError(f"column {name!r} has shape {column.shape} for {n} games")
        arrays[name] = column.astype(dtype, copy=False)
    names = {"format": FORMAT, "players": list(players), "tournaments": list(tournaments)}
    arrays["names"] = np.frombuffer(json.dumps(names).encode(), dtype=np.uint8)
    write_npz(path, arrays, "games file", GamesFileError, compress=True)


def read_games(path: _PathLike) -> Tuple[Dict[str, np.ndarray], List[str], List[str]]:
    """``(columns, players, tournaments)`` of a file :func:`write_games` wrote, every
    column and name checked (a :class:`GamesFileError` names what is wrong); the moves'
    legality is the replay's to check."""
    where = f"games file {os.fspath(path)}"
    arrays = read_npz(path, "games file", GamesFileError)
    try:
        names = json.loads(bytes(np.asarray(arrays["names"], np.uint8)).decode())
        if not isinstance(names, dict) or names.get("format") != FORMAT:
            raise ValueError(f"not a {FORMAT} file")
        players, tournaments = names["players"], names["tournaments"]
        if not all(isinstance(x, list) and all(isinstance(s, str) for s in x)
                   for x in (players, tournaments)):
            raise ValueError("its names are not lists of strings")
    except KeyError as exc:
        raise GamesFileError(f"{where} is not a games file (no {exc.args[0]!r})") from None
    except (ValueError, UnicodeDecodeError, RecursionError) as exc:
        raise GamesFileError(f"{where} is not a games file ({exc})") from None
    missing = [name for name in STORED if name not in arrays]
    if missing:
        raise GamesFileError(f"{where} lacks the column(s) {', '.join(missing)}")
    columns = {name: arrays[name] for name in STORED}
    n = len(columns["played"])
    for name, dtype in STORED.items():
        column = columns[name]
        if column.dtype != np.dtype(dtype) or \
                column.shape != ((n, 60) if name == "moves" else (n,)):
            raise GamesFileError(f"{where}: column {name!r} is {column.dtype}{column.shape}, "
                                 f"not {np.dtype(dtype)} for {n} games")
    _check_values(where, columns, len(players), len(tournaments))
    return columns, players, tournaments


def _check_values(where: str, c: Dict[str, np.ndarray], players: int,
                  tournaments: int) -> None:
    """What the replay does not check: names in range, sane starts and scores."""
    def bad(what: str, mask: np.ndarray) -> None:
        if mask.any():
            g = int(np.flatnonzero(mask)[0])
            raise GamesFileError(f"{where}, game {g + 1}: {what}")
    bad("a player number out of range", (np.minimum(c["black"], c["white"]) < 0)
        | (np.maximum(c["black"], c["white"]) >= players))
    bad("a tournament number out of range",
        (c["tournament"] < 0) | (c["tournament"] >= tournaments))
    bad("a start square holds both colours", (c["start_black"] & c["start_white"]) != 0)
    bad("a side to move other than 0 or 1", c["start_turn"] > 1)
    bad("a move count outside 0-60", (c["played"] < 0) | (c["played"] > 60))
    moves = c["moves"]
    bad("a square number above 63", ((moves > 63) & (moves != END)).any(axis=1))
    for name in ("result", "theoretical"):
        bad(f"a {name} outside -64..64", (np.abs(c[name].astype(np.int16)) > 64)
            & (c[name] != -128))
    bad("theoretical empties outside 0-60",
        (c["theoretical_empties"] < 0) | (c["theoretical_empties"] > 60))
