"""GGF (Generic Game Format, as used by GGS and NBoard): read and write Othello games.

``(;GM[Othello]PB[black]PW[white]RE[+12.000]BO[8 <64 squares> *]B[f5//1.2]W[d6/-1.50];)``
-- ``BO`` uses ``*`` for black and ``O`` for white; a move item is ``square[/eval[/time]]``
with ``PA`` for a pass.  Unknown tags are kept and a leading ``1``/``2`` before ``(;`` is
skipped, but a record that is malformed (an unterminated tag, text between tags, a cut
off board) is refused with :class:`~cythello.errors.InvalidBoardError`, never read as some
other position.  Parsing takes time linear in the text.  Writing emits passes explicitly,
as GGS and Edax do.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Dict, Iterator, List, Optional, Sequence

from .._files import read_text, write_atomic
from ..core._board import Board
from ..errors import IllegalMoveError, InvalidBoardError, InvalidMoveError
from ..squares import BLACK, parse_move, record_move


@dataclass
class GgfMove:
    move: int
    eval: Optional[float] = None       # in disks, for the player who moved
    time: Optional[float] = None       # seconds

    def to_item(self) -> str:
        """``f5``, ``f5/1.50`` or ``f5/1.50/2.3``: the text inside ``B[…]``."""
        name = record_move(self.move)
        ev = "" if self.eval is None else f"{self.eval:.2f}"
        tm = "" if self.time is None else f"{self.time:g}"
        return name + (f"/{ev}/{tm}" if tm else f"/{ev}" if ev else "")


@dataclass
class GgfGame:
    """A game record: the start board, the moves (passes included), and the other tags."""

    start: Board = field(default_factory=Board)
    moves: List[GgfMove] = field(default_factory=list)
    tags: Dict[str, str] = field(default_factory=dict)

    @property
    def black(self) -> str:
        """Black's name (``PB``)."""
        return self.tags.get("PB", "")

    @property
    def white(self) -> str:
        """White's name (``PW``)."""
        return self.tags.get("PW", "")

    def board(self) -> Board:
        """The position after every move, its stack holding the game."""
        board = self.start.copy(stack=False)
        for i, item in enumerate(self.moves):
            try:                               # tolerate records that leave passes out
                board.push(item.move, implicit_pass=True)
            except IllegalMoveError:
                raise IllegalMoveError(f"GGF move {i + 1} ({item.to_item()}) is illegal") from None
        return board

    @classmethod
    def from_board(cls, board: Board, black: str = "", white: str = "",
                   evals: Optional[Sequence[Optional[float]]] = None,
                   times: Optional[Sequence[Optional[float]]] = None, skip: int = 0,
                   **tags: str) -> "GgfGame":
        """A record of ``board``'s move stack, from the position before its first move, or
        with ``skip`` from the position after its first ``skip`` moves (a match's opening,
        which neither player chose: the record starts where their game did, as GGS records
        an XOT game).  ``evals`` and ``times`` belong to the last moves of the stack when
        they are fewer (a match's times are those of the moves played after its opening)."""
        full = board.move_stack
        if not 0 <= skip <= len(full):
            raise ValueError(f"skip must be 0-{len(full)}, not {skip}")
        start = board.root()
        for move in full[:skip]:
            start.push(move)
        start = start.copy(stack=False)
        stack = full[skip:]

        def aligned(values: Optional[Sequence[Optional[float]]], what: str
                    ) -> List[Optional[float]]:
            values = list(values or [])
            if len(values) > len(stack):
                raise ValueError(f"{len(values)} {what} for {len(stack)} moves")
            return [None] * (len(stack) - len(values)) + values

        game = cls(start, [GgfMove(m, e, t) for m, e, t in
                                  zip(stack, aligned(evals, "evals"), aligned(times, "times"))])
        game.tags.update({"GM": "Othello", "PC": "cythello", "PB": black, "PW": white, "TY": "8"})
        game.tags.update(tags)
        outcome = board.outcome()
        game.tags["RE"] = "?" if outcome is None else f"{outcome.score:+d}.000"
        return game

    def to_ggf(self) -> str:
        """The game as one ``(;GM[Othello]…;)`` record, passes written as ``PA``."""
        parts = ["(;GM[Othello]"]
        for key, value in self.tags.items():
            if key not in ("GM", "BO"):
                parts.append(f"{key}[{value}]")
        parts.append(f"BO[8 {_board_field(self.start)}]")
        colour = self.start.turn
        for item in self.moves:
            parts.append(("B" if colour == BLACK else "W") + f"[{item.to_item()}]")
            colour ^= 1
        parts.append(";)")
        return "".join(parts)


def _board_field(board: Board) -> str:
    s = board.board_string()
    cells = s[:64].replace("X", "*")
    rows = " ".join(cells[i:i + 8] for i in range(0, 64, 8))
    return rows + (" *" if board.turn == BLACK else " O")


def _parse_bo(value: str) -> Board:
    text = value.strip()
    if not text.startswith("8"):
        raise InvalidBoardError(f"GGF board must be 8x8: BO[{value}]")
    cells = [ch for ch in text[1:] if not ch.isspace()]
    if len(cells) != 65:
        raise InvalidBoardError(f"GGF board needs 64 squares and a side to move: BO[{value}]")
    table = {"*": "X", "X": "X", "x": "X", "b": "X", "B": "X",
             "O": "O", "o": "O", "w": "O", "W": "O", "-": "-", ".": "-"}
    try:
        squares = "".join(table[ch] for ch in cells[:64])
        side = table[cells[64]]
    except KeyError as exc:
        raise InvalidBoardError(f"unexpected character {exc.args[0]!r} in BO[{value}]") from None
    if side == "-":
        raise InvalidBoardError(f"GGF board has no side to move: BO[{value}]")
    return Board(f"{squares} {side}")


def parse_move_item(value: str) -> GgfMove:
    """``f5``, ``F5/-1.50``, ``d3//0.01`` or ``PA`` (also NBoard's ``move`` argument)."""
    if not isinstance(value, str):
        raise TypeError(f"a GGF move item is a str like 'f5/1.5', not {type(value).__name__}")
    fields = value.strip().split("/")
    move = parse_move(fields[0])
    ev = tm = None
    try:
        if len(fields) > 1 and fields[1].strip():
            ev = float(fields[1])
        if len(fields) > 2 and fields[2].strip():
            tm = float(fields[2])
    except ValueError:
        raise InvalidMoveError(f"bad eval or time in move item {value!r}") from None
    return GgfMove(move, ev, tm)


def _tags(body: str) -> Iterator["tuple[str, str]"]:
    """The ``KEY[value]`` items of a record's body, in order, in one linear pass."""
    i, n = 0, len(body)
    while i < n:
        if body[i].isspace():
            i += 1
            continue
        j = i
        while j < n and "A" <= body[j] <= "Z":
            j += 1
        if j == i or j >= n or body[j] != "[":
            snippet = body[i:i + 20]
            raise InvalidBoardError(f"malformed GGF: expected a tag like KEY[value] at "
                                    f"{snippet!r}")
        close = body.find("]", j + 1)
        if close < 0:
            raise InvalidBoardError(f"malformed GGF: tag {body[i:j]}[ is never closed")
        yield body[i:j], body[j + 1:close]
        i = close + 1


def parse_game(text: str) -> GgfGame:
    """One ``(;…;)`` game."""
    if not isinstance(text, str):
        raise TypeError(f"a GGF game is a str, not {type(text).__name__}")
    body = text.strip()
    start = body.find("(;")
    end = body.rfind(";)")
    if start < 0 or end < start:
        raise InvalidBoardError("a GGF game is enclosed in '(;' and ';)'")
    if body[start + 2:end].count("(;") or body[end + 2:].strip():
        raise InvalidBoardError("malformed GGF: text after the end of the game")
    game = GgfGame(tags={})
    saw_board = False
    for key, value in _tags(body[start + 2:end]):
        if key in ("B", "W"):
            game.moves.append(parse_move_item(value))
        elif key == "BO":
            game.start = _parse_bo(value)
            saw_board = True
        else:
            game.tags[key] = value
    if game.tags.get("GM", "Othello").lower() != "othello":
        raise InvalidBoardError(f"not an Othello game: GM[{game.tags['GM']}]")
    if not saw_board:
        game.start = Board()
    game.board()                                 # validate the moves now, not later
    return game


def iter_games(text: str) -> Iterator[GgfGame]:
    """Every game in a text holding one or many (possibly prefixed by ``1``/``2``)."""
    pos = 0
    while True:
        start = text.find("(;", pos)
        if start < 0:
            return
        end = text.find(";)", start)
        if end < 0:
            raise InvalidBoardError("unterminated GGF game (no ';)')")
        yield parse_game(text[start:end + 2])
        pos = end + 2


def read_ggf(path: str) -> List[GgfGame]:
    """Every game in a ``.ggf`` file (UTF-8, a byte-order mark allowed)."""
    return list(iter_games(read_text(path, "GGF file", InvalidBoardError)))


def write_ggf(path: str, games: List[GgfGame]) -> None:
    """Write games to a file, one record per line (whole or not at all; a device or FIFO
    is written through); a path that cannot be written is an ``OSError`` naming it."""
    text = "".join(game.to_ggf() + "\n" for game in games)
    write_atomic(path, text.encode("utf-8"), "GGF file", OSError)
