"""Start positions for matches.

A match from the start position between two deterministic players replays one game, and
one from random openings mostly measures the openings: half of the positions four random
moves in are already worth more than 3.5 discs to one side, and at cythello's strength the
favoured side converts them.  So matches start by default from **balanced openings**: the
shipped set holds every position 8 moves from the start (one per symmetry class) that
cythello's own depth-20 alpha-beta search values within 2 discs of even, made
reproducibly by :mod:`cythello.openings.make` (the XOT idea; the command is in the file's
header).  Each opening is played twice, each player black once.

- :func:`balanced_openings`: the shipped set, in a seeded order (``within=1``: the closest);
- :func:`random_openings`: distinct positions after random moves, as before;
- :func:`read_openings`: a file of openings, one a line: a transcript (the XOT format), a
  board string or an OBF line, optionally followed by the position's value in discs;
- :func:`openings_for`: any of these by name, as the command line takes them.
"""
from __future__ import annotations

import functools
import io
import os
import random
from pathlib import Path
from typing import Iterator, List, Optional, Set, Tuple, Union

from .._checks import check_int, check_number
from .._files import read_text
from ..core._board import Board
from ..errors import InvalidBoardError, SettingsError
from ..records.position import board_from_text

__all__ = ["BALANCED_FILE", "OPENINGS_HELP", "balanced_openings", "random_openings",
           "read_openings", "read_opening_values", "openings_for", "describe_openings"]

BALANCED_FILE = Path(__file__).with_name("balanced.txt")
OPENINGS_HELP = ("'balanced' (the shipped balanced 8-move openings, the default), "
                 "'random' or 'random:PLIES' (random openings, 4 plies unless given), "
                 "'start' (every game from the start position), or a file of openings "
                 "(transcripts, board strings or OBF lines, one a line)")


def _split_value(line: str) -> Tuple[str, Optional[float]]:
    """A line's position text and the value that may follow it (a signed number)."""
    head, _, last = line.rstrip().rpartition(" ")
    if head and last[:1] in "+-0123456789":
        try:
            return head, float(last)
        except ValueError:
            pass
    return line, None


def read_opening_values(path: Union[str, "os.PathLike[str]"], limit: Optional[int] = None
                        ) -> List[Tuple[Board, Optional[float]]]:
    """Start positions from a file, each with the value the file gives it (None if none):
    one a line, a transcript (``f5d6c3d3``, the XOT format), a board string or an OBF
    line, optionally followed by a space and the position's value in discs for the side
    to move; lines starting ``#`` or ``%`` are comments.  A finished game is no opening
    (an error naming its line).  ``limit``: the first that many openings, the lines after
    them not read (a match of 10 pairs reads 10 lines of a million)."""
    out: List[Tuple[Board, Optional[float]]] = []
    # As every record reader: a regular file of bounded size, UTF-8 (a BOM dropped).
    text = read_text(path, "openings file", InvalidBoardError)
    for n, line in enumerate(_lines(text), 1):
        if limit is not None and len(out) >= limit:
            break
        if line.strip() and not line.lstrip().startswith(("%", "#")):
            position, value = _split_value(line.strip())
            try:
                board = board_from_text(position)
            except ValueError as exc:
                raise InvalidBoardError(f"{os.fspath(path)}, line {n}: {exc}") from None
            if board.is_game_over():
                raise InvalidBoardError(f"{os.fspath(path)}, line {n}: the game is over in "
                                        f"that position, so no game can start from it")
            out.append((board, value))
    if not out:
        raise InvalidBoardError(f"no openings in {os.fspath(path)}")
    return out


def _lines(text: str) -> Iterator[str]:
    """The lines of ``text`` one at a time (splitlines() would make them all at once), any
    of ``\\n``, ``\\r\\n`` or ``\\r`` ending one."""
    for line in io.StringIO(text, newline=None):
        yield line.rstrip("\n")


def read_openings(path: Union[str, "os.PathLike[str]"], limit: Optional[int] = None
                  ) -> List[Board]:
    """Start positions from a file (the forms of :func:`read_opening_values`)."""
    return [board for board, _ in read_opening_values(path, limit)]


@functools.lru_cache(maxsize=1)
def _balanced() -> Tuple[Tuple[Board, float], ...]:
    found = read_opening_values(BALANCED_FILE)
    if any(value is None for _, value in found):
        raise InvalidBoardError(f"{BALANCED_FILE}: an opening without its value")
    return tuple((board, float(value)) for board, value in found)   # type: ignore[arg-type]


def balanced_openings(count: Optional[int] = None, seed: Optional[int] = 0,
                      within: Optional[float] = None) -> List[Board]:
    """``count`` of the shipped balanced openings (all of them by default), in an order
    drawn by ``seed`` (None: the file's order, by transcript), only those within
    ``within`` discs of even if given (the set's bound is 2).  Copies: a caller may push
    moves on them."""
    found = _balanced()
    if within is not None:
        within = check_number("within", within, 0, 64)
        found = tuple(item for item in found if abs(item[1]) <= within)
    boards = [board for board, _ in found]
    if seed is not None:
        random.Random(check_int("seed", seed, 0, 2 ** 63)).shuffle(boards)
    if count is not None:
        check_int("count", count, 0, len(boards))
        boards = boards[:count]
    return [board.copy() for board in boards]


def random_openings(count: int, plies: int, seed: int = 0) -> List[Board]:
    """Distinct positions after ``plies`` random moves from the start (fewer if the moves
    run out of new positions)."""
    rng = random.Random(seed)
    seen: Set[str] = set()                  # board strings: a Board is not a key
    out: List[Board] = []
    attempts = 0
    while len(out) < count and attempts < count * 100:
        attempts += 1
        b = Board()
        for _ in range(plies):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(rng.choice(moves))
        if not b.is_game_over() and b.board_string() not in seen:
            seen.add(b.board_string())
            out.append(b)
    return out


def describe_openings(spec: str) -> str:
    """A name of :func:`openings_for` in words: ``balanced``, ``random 6-ply``, ``start``,
    or the file's name."""
    if spec == "random" or spec.startswith("random:"):
        return f"random {spec.partition(':')[2] or '4'}-ply"
    return spec


def openings_for(spec: str, pairs: int, seed: Optional[int] = 0) -> Optional[List[Board]]:
    """The openings a match of ``pairs`` pairs of games starts from, by name (see
    :data:`OPENINGS_HELP`): None for ``'start'``.  ``seed`` draws the order of the balanced
    set and the random openings.  A name that is no keyword is a file."""
    check_int("pairs", pairs, 0, 10 ** 9)
    seed = 0 if seed is None else seed
    if spec == "balanced":
        return balanced_openings(seed=seed)
    if spec == "start":
        return None
    if spec == "random" or spec.startswith("random:"):
        plies_text = spec.partition(":")[2] or "4"
        try:
            plies = int(plies_text)
        except ValueError:
            raise SettingsError(f"openings 'random:PLIES' needs a number of plies, not "
                                f"{plies_text!r}") from None
        check_int("random openings' plies", plies, 0, 20)
        return random_openings(max(1, pairs), plies, seed)
    return read_openings(spec, limit=max(1, pairs))

