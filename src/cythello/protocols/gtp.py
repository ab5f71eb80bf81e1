"""cythello as a GTP (version 2) engine, with the Othello command set of Edax's GTP mode and
GoGui's ``gogui-rules_*`` commands so GoGui can show an Othello board.

Moves use Othello names (``f5``, ``pass``); colours are ``black``/``b``/``white``/``w``.
``genmove`` budgets its time from a game clock when the controller gave one: ``time_left``
sets a colour's clock; after ``time_settings`` alone the engine keeps each colour's clock
itself (main time, then Canadian byo-yomi), counting the time its own moves take, and
``clear_board`` starts a new game's clocks.  Without a clock the player's own limits hold.
"""
from __future__ import annotations

import queue
import sys
import threading
import time
from typing import IO, Callable, Dict, List, Optional, Tuple

from .._version import __version__
from ..core._board import Board
from ..errors import IllegalMoveError, InvalidMoveError
from ..search.clock import ByoYomiClock
from ..search.engine import EnginePlayer
from ..search.uct import MCTSPlayer
from ..squares import BLACK, PASS, WHITE, parse_move, square_name
from ._io import MAX_LINE, ascii_line, command_lines

NAME = "cythello"


class GtpError(Exception):
    """A command failed; the message goes back as ``? message``."""


def _colour(text: str) -> int:
    t = text.lower()
    if t in ("b", "black"):
        return BLACK
    if t in ("w", "white"):
        return WHITE
    raise GtpError(f"invalid color {text!r}")


def _is_quit(raw: str) -> bool:
    """Whether a command line is ``quit`` (with or without an id)."""
    words = clean_line(raw).split()
    if words and words[0].isascii() and words[0].isdigit():
        words = words[1:]
    return words[:1] == ["quit"]


def clean_line(raw: str) -> str:
    """GTP input rules: drop control characters but HT and LF, HT to space, ``#`` comments."""
    line = "".join(" " if ch == "\t" else ch for ch in raw if ch == "\t" or ord(ch) >= 32)
    return line.split("#", 1)[0].strip()


class GtpEngine:
    """One GTP session.  ``handle(line)`` returns the full reply (or None for no command)."""

    def __init__(self, player: Optional[EnginePlayer] = None, ponder: bool = False,
                 limits: Optional[Tuple[Optional[int], Optional[float]]] = None) -> None:
        self.player = player or MCTSPlayer(rollout="heuristic")
        # The command line's (iterations, seconds), which win over the controller's clock
        # (the clock still caps them, so the engine never loses on time); None: the clock
        # gives the time, the player's own iteration cap (a level's) stays.
        self.limits = limits
        # Think on the opponent's time: after each genmove, until the next command that
        # searches (MCTSPlayer.ponder).
        self.ponder = ponder
        self.board = Board()
        # time_settings' clock at the start of a game (None: no time limit), and each
        # colour's clock now.
        self.time_control: Optional[ByoYomiClock] = None
        self.clocks: Dict[int, ByoYomiClock] = {}
        self.quit = False
        # The player's stop count when the command now served was read (set by run): a
        # stop since then (a quit read behind it) ends its search at once.
        self._stops_seen: Optional[int] = None
        self.commands: Dict[str, Callable[[List[str]], str]] = {
            "protocol_version": lambda a: "2",
            "name": lambda a: NAME,
            "version": lambda a: __version__,
            "known_command": self.cmd_known_command,
            "list_commands": lambda a: "\n".join(self.commands),
            "quit": self.cmd_quit,
            "boardsize": self.cmd_boardsize,
            "clear_board": self.cmd_clear_board,
            "komi": lambda a: "",
            "play": self.cmd_play,
            "genmove": self.cmd_genmove,
            "undo": self.cmd_undo,
            "time_settings": self.cmd_time_settings,
            "time_left": self.cmd_time_left,
            "set_game": self.cmd_set_game,
            "list_games": lambda a: "Othello",
            "showboard": lambda a: "\n" + str(self.board),
            "gogui-rules_game_id": lambda a: "Othello",
            "gogui-rules_board_size": lambda a: "8",
            "gogui-rules_board": self.cmd_rules_board,
            "gogui-rules_legal_moves": self.cmd_rules_legal_moves,
            "gogui-rules_side_to_move": lambda a: "white" if self.board.turn else "black",
            "gogui-rules_final_result": self.cmd_rules_final_result,
            "cythello-book_moves": self.cmd_book_moves,
        }

    # -- protocol ----------------------------------------------------------------------------

    def handle(self, raw: str) -> Optional[str]:
        """One command line in, the whole reply out (``=``/``?``, id echoed, blank line)."""
        line = clean_line(raw)
        if not line:
            return None
        words = line.split()
        ident = ""
        if words[0].isascii() and words[0].isdigit():
            ident, words = words[0], words[1:]
            if not words:
                return f"?{ident} missing command\n\n"
        name, args = words[0], words[1:]
        handler = self.commands.get(name)
        if handler is None:
            return f"?{ident} unknown command\n\n"
        try:
            result = handler(args)
        except (GtpError, IllegalMoveError, InvalidMoveError, ValueError, IndexError) as exc:
            return f"?{ident} {ascii_line(str(exc))}\n\n"
        return f"={ident} {result}".rstrip(" ") + "\n\n"

    def run(self, inp: IO[str] = sys.stdin, out: IO[str] = sys.stdout) -> None:
        """Serve commands until ``quit`` or end of input.  Input is read on its own thread,
        so that ``quit`` or the end of input (the controller is gone) stops a running
        ``genmove`` at once instead of when its search ends: the move found so far is
        answered, and so is every command read before the quit, without searching."""
        # Each line travels with the player's stop count when it was read: a genmove is
        # stopped by a quit (or end of input) read after it, even before its search began.
        lines: "queue.Queue[Optional[Tuple[Optional[str], int]]]" = queue.Queue()

        def reader() -> None:
            try:
                for raw in command_lines(inp):
                    stops = self.player.stops
                    if raw is not None and _is_quit(raw):
                        self.player.stop()
                    lines.put((raw, stops))
                self.player.stop()              # end of input: nobody waits for answers
            finally:
                lines.put(None)                 # whatever happened, the loop ends

        threading.Thread(target=reader, daemon=True, name="gtp-reader").start()
        try:
            while True:
                item = lines.get()
                if item is None:
                    return
                raw, self._stops_seen = item
                reply = (f"? line longer than {MAX_LINE:,} characters\n\n" if raw is None
                         else self.handle(raw))
                if reply is not None:
                    out.write(reply)
                    out.flush()
                if self.quit:
                    return
        finally:
            self._stops_seen = None
            self.player.stop_pondering()

    # -- commands ----------------------------------------------------------------------------

    def cmd_known_command(self, args: List[str]) -> str:
        """``known_command <name>``: true or false."""
        return "true" if args and args[0] in self.commands else "false"

    def cmd_quit(self, args: List[str]) -> str:
        """``quit``: reply, then end the session."""
        self.quit = True
        return ""

    def cmd_boardsize(self, args: List[str]) -> str:
        """``boardsize 8``: anything else is unacceptable."""
        if not args or args[0] != "8":
            raise GtpError("unacceptable size")
        return ""

    def cmd_clear_board(self, args: List[str]) -> str:
        """``clear_board``: back to the start position."""
        self.board = Board()
        self._start_clocks()
        return ""

    def cmd_set_game(self, args: List[str]) -> str:
        """``set_game Othello`` (Quarry's multi-game extension)."""
        if not args or args[0].lower() != "othello":
            raise GtpError("unsupported game")
        return ""

    def _pass_if_forced(self, colour: int) -> None:
        if self.board.turn != colour and self.board.must_pass():
            self.board.push(PASS)

    def cmd_play(self, args: List[str]) -> str:
        """``play <color> <move>``: a forced pass of the other colour is inserted."""
        if len(args) != 2:
            raise GtpError("syntax: play <color> <move>")
        colour = _colour(args[0])
        move = parse_move(args[1])
        forced_pass = self.board.turn != colour and self.board.must_pass()
        if self.board.turn != colour and not forced_pass:
            raise GtpError("wrong color")
        try:
            # With the other colour's forced pass inserted; a failed push changes nothing.
            self.board.push(move, implicit_pass=forced_pass)
        except IllegalMoveError:
            raise GtpError("illegal move") from None
        return ""

    def _start_clocks(self) -> None:
        self.clocks = ({} if self.time_control is None
                       else {BLACK: self.time_control, WHITE: self.time_control})

    def cmd_genmove(self, args: List[str]) -> str:
        """``genmove <color>``: search (within the clock), play and answer the move."""
        if len(args) != 1:
            raise GtpError("syntax: genmove <color>")
        colour = _colour(args[0])
        self._pass_if_forced(colour)
        if self.board.is_game_over():
            return "pass"
        if self.board.turn != colour:
            raise GtpError("wrong color")
        moves = list(self.board.legal_moves)
        clock = self.clocks.get(colour)
        started = time.monotonic()
        if len(moves) == 1:
            move = moves[0]
        elif clock is not None:
            # The player budgets from the clock itself (and may extend in unsettled spots);
            # a cap of its own (a level's) still holds.
            iterations, seconds = self.limits or (None, None)
            move = self.player.search(self.board, iterations=iterations, time_limit=seconds,
                                      clock=clock.clock(),
                                      stops_seen=self._stops_seen).best_move
        else:
            move = self.player.search(self.board, stops_seen=self._stops_seen).best_move
        if clock is not None:
            self.clocks[colour] = clock.after(time.monotonic() - started)
        self.board.push(move)
        if self.ponder:
            self.player.ponder(self.board)
        return square_name(move)

    def cmd_book_moves(self, args: List[str]) -> str:
        """``cythello-book_moves``: the opening book's moves of the position, best first,
        one a line (``f5 +0.50 book``; ``searched`` for the book's searched move that
        leaves it); empty outside the book.  genmove plays one of them, without a
        search, while the game is in the player's book."""
        book = self.player.book
        if book is None:
            return ""
        return "\n".join(f"{square_name(m.move)} {m.value:+.2f} "
                         f"{'book' if m.in_book else 'searched'}"
                         for m in book.moves(self.board))

    def cmd_undo(self, args: List[str]) -> str:
        """``undo``: take back the last move (and a pass before it)."""
        if not self.board.move_stack:
            raise GtpError("cannot undo")
        self.board.pop()
        if self.board.move_stack and self.board.peek() == PASS:
            self.board.pop()                 # a pass is never a move of its own in GTP
        return ""

    def cmd_time_settings(self, args: List[str]) -> str:
        """``time_settings <main> <byo-yomi time> <byo-yomi stones>``: both clocks start
        afresh.  As GTP defines them: byo-yomi time without stones means no time limit,
        byo-yomi stones without time no byo-yomi."""
        main, byo, stones = (float(args[0]), float(args[1]), int(args[2]))
        if not (0 <= main <= 1e9 and 0 <= byo <= 1e9 and 0 <= stones <= 1000):
            raise GtpError("time settings out of range")
        if byo > 0 and stones == 0:
            self.time_control = None
        else:
            self.time_control = ByoYomiClock.start(main, byo, stones if byo > 0 else 0)
        self._start_clocks()
        return ""

    def cmd_time_left(self, args: List[str]) -> str:
        """``time_left <color> <seconds> <stones>``: the controller's clock of ``color``
        (``stones`` 0: in main time, else the moves left in the byo-yomi period), which
        replaces the engine's own."""
        colour = _colour(args[0])
        seconds, stones = float(args[1]), int(args[2])
        if not (0 <= seconds <= 1e9 and 0 <= stones <= 1000):
            raise GtpError("time left out of range")
        # The period's length from time_settings (for the periods after this one), else
        # the controller's figures.
        period = self.time_control or ByoYomiClock(0.0, seconds if stones else 0.0, stones)
        self.clocks[colour] = ByoYomiClock(
            seconds if stones == 0 else 0.0, period.period, period.stones,
            seconds if stones else 0.0, stones)
        return ""

    def cmd_rules_board(self, args: List[str]) -> str:
        """``gogui-rules_board``: rows 1-8 of ``X``, ``O`` and ``.``."""
        rows = []
        for r in range(8):
            rows.append(" ".join(
                "X" if self.board.piece_at(r * 8 + c) == BLACK else
                "O" if self.board.piece_at(r * 8 + c) == WHITE else "." for c in range(8)))
        return "\n" + "\n".join(rows)

    def cmd_rules_legal_moves(self, args: List[str]) -> str:
        """``gogui-rules_legal_moves``: the legal moves, ``pass`` when forced."""
        return " ".join(square_name(m) for m in self.board.legal_moves)

    def cmd_rules_final_result(self, args: List[str]) -> str:
        """``gogui-rules_final_result``: ``B+n``, ``W+n``, ``0`` or ``unknown``."""
        outcome = self.board.outcome()
        if outcome is None:
            return "unknown"
        if outcome.winner is None:
            return "0"
        return f"{'B' if outcome.winner == BLACK else 'W'}+{abs(outcome.score)}"


def main(argv: Optional[List[str]] = None, player: Optional[EnginePlayer] = None) -> int:
    """Serve GTP on stdin/stdout."""
    GtpEngine(player).run(sys.stdin, sys.stdout)
    return 0
