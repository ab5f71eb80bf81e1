"""cythello as an NBoard-protocol engine (protocol version 2), for NBoard and its tools.

Input is read on its own thread so that ``ping`` interrupts a running search; every reply
line is flushed; lines the engine does not understand are ignored; bad input never ends it.

Budget: ``set depth d`` (NBoard's level, 1-60) gives ``level_iterations(d)`` iterations,
growing geometrically so that the top levels search for as long as the clock allows; the
game clock (``TI`` in ``set game``, less the time of the moves made) caps every search
so that the engine never loses on time; limits given on the command line
(``--iterations``/``--time``) win over both.

Evaluations are final disc differences for the side to move: the exact score once the
solver has it, else the learned evaluation's minimax value from the search (or, for a
player without the evaluation, the win rate mapped onto discs; see
:attr:`~cythello.search.players.MoveStats.discs`).  The depth of a ``search`` line is what
the search reached (the length of its principal variation), ``100%`` for an exact solve and
``100%W`` for a proven win, draw or loss; its free text is the effort (``1234nodes``,
``800visits``), then where the value comes from in the words ``cythello analyse`` uses
(:class:`~cythello.search.states.ValueKind`: ``exact``, ``proven``, ``book``,
``alpha-beta``, ``minimax``, ``win rate``).
"""
from __future__ import annotations

import queue
import sys
import threading
from typing import IO, Callable, List, Optional

from ..core._board import Board
from ..records.ggf import parse_game, parse_move_item
from ..search.clock import MAX_CLOCK, Clock, parse_ggf_clock
from ..search.engine import EnginePlayer
from ..search.results import MoveStats, SearchResult
from ..search.states import StopReason
from ..search.uct import MCTSPlayer
from ..squares import PASS, record_move
from ._io import MAX_LINE, ascii_line, command_lines

ITERATIONS_PER_DEPTH = 5_000        # at level 1; each level adds a quarter more
MAX_TIME = 30.0                     # seconds a search may take without a clock
FORCED_MOVE_ITERATIONS = 2_000      # a forced move's quick look, for its evaluation
NAME = "cythello"
TOO_LONG = "<a line too long>"      # stands for an overlong input line


def level_iterations(depth: int) -> int:
    """The iterations of NBoard level ``depth``: 5,000 at level 1, a quarter more per level
    (about 110,000 at 15, 2.4 M at 29, 1.2 G at 57: the top levels run until the time cap
    or the clock stops them)."""
    return int(ITERATIONS_PER_DEPTH * 1.25 ** (depth - 1))


def level_for_iterations(iterations: int) -> int:
    """The lowest level whose budget reaches ``iterations`` (for clients that think in
    iterations)."""
    depth = 1
    while depth < 60 and level_iterations(depth) < iterations:
        depth += 1
    return depth


def nboard_move(move: int) -> str:
    """A move as NBoard writes it: ``F5``, or ``PA`` for a pass."""
    return record_move(move, upper=True)


def depth_label(stats: MoveStats, result: SearchResult) -> str:
    """The depth field of a ``search`` line: what the search really reached."""
    if stats.score is not None:
        return "100%"
    if stats.proof is not None:
        return "100%W"
    if result.depth_text is not None:                # an alpha-beta search: its depth
        return result.depth_text
    return str(max(1, len(result.principal_variation)))


def _seconds_used(time: Optional[float]) -> float:
    """A move's time as the clock counts it: one the record gets wrong (missing, negative,
    not a number, absurd) counts nothing."""
    seconds = time or 0.0
    return seconds if 0.0 < seconds < MAX_CLOCK else 0.0


class NBoardEngine:
    """One NBoard session over a pair of text streams."""

    def __init__(self, out: IO[str] = sys.stdout, player: Optional[EnginePlayer] = None,
                 depth: int = 4, depth_sets_budget: bool = True, ponder: bool = False) -> None:
        self.out = out
        self.player = player or MCTSPlayer(rollout="heuristic")
        # Think while idle: after each move or new game, the position reached is searched
        # in the background until the next search (MCTSPlayer.ponder); a ping stops it, the
        # next move starts it again, the tree carried over.
        self.ponder = ponder
        self.board = Board()
        self.depth = depth
        self.depth_sets_budget = depth_sets_budget
        self.contempt = 0
        # The game clock from "set game" (TI): seconds per player and increment, and the
        # time each colour has used so far (move times from the record and "move").
        self.clock_main: Optional[float] = None
        self.clock_increment = 0.0
        self.used = [0.0, 0.0]
        # Why there is no position to search (a 'set game' that failed), or None.
        self.board_problem: Optional[str] = None
        self._write_lock = threading.Lock()
        # Pings read so far, and how many had been read when the current command began:
        # a long command stops once a later ping has arrived.
        self._pings_read = 0
        self._pings_at_start = 0

    # -- output ------------------------------------------------------------------------------

    def send(self, line: str) -> None:
        """Write one line and flush it (NBoard reads nothing until the buffer is flushed)."""
        with self._write_lock:
            self.out.write(ascii_line(line, limit=MAX_LINE) + "\n")
            self.out.flush()

    # -- the loop ----------------------------------------------------------------------------

    def run(self, inp: IO[str] = sys.stdin, stop_at_eof: bool = True) -> None:
        """Serve until end of input or ``quit``.  End of input means the GUI is gone, so
        the search running then stops at once, and commands still queued are answered
        without searching (a script that wants full answers keeps the input open until it
        has read them).  ``stop_at_eof=False`` runs every command read in full."""
        # Each line travels with the number of pings read before it: a command is
        # interrupted by the pings read after it, even those read before it began.
        lines: "queue.Queue[Optional[tuple[str, int]]]" = queue.Queue()

        def reader() -> None:
            for raw in command_lines(inp):
                if raw is None:
                    lines.put((TOO_LONG, self._pings_read))
                    continue
                line = raw.strip()
                pings_before = self._pings_read
                if line.split(" ", 1)[0] in ("ping", "quit"):
                    self._pings_read += 1
                    self.player.stop()          # interrupt a search at once
                lines.put((line, pings_before))
            if stop_at_eof:
                # End of input: the GUI is gone (NBoard never sends quit), so what runs or
                # waits now is for nobody: it is answered at once, as after a ping.
                self._pings_read += 1
                self.player.stop()
            lines.put(None)

        threading.Thread(target=reader, daemon=True, name="nboard-reader").start()
        try:
            self._serve(lines)
        finally:
            self.player.stop_pondering()

    def _serve(self, lines: "queue.Queue[Optional[tuple[str, int]]]") -> None:
        while True:
            item = lines.get()
            if item is None or item[0] == "quit":
                return
            line, self._pings_at_start = item
            if line is TOO_LONG:
                self.send(f"status error: a line longer than {MAX_LINE:,} characters was "
                          f"ignored")
                continue
            try:
                self.handle(line)
            except Exception as exc:  # never die on bad input
                self.send(ascii_line(f"status error: {type(exc).__name__}: {exc}"))

    def handle(self, line: str) -> None:
        """Dispatch one command line; unknown commands are ignored, as the protocol asks."""
        skip = 1 if line.split()[:1] == ["set"] else 0      # "set depth" is "depth"
        parts = line.split(None, skip + 1)
        if len(parts) <= skip:
            return
        cmd = parts[skip]
        rest = parts[skip + 1] if len(parts) > skip + 1 else ""
        args = rest.split()
        handler: Optional[Callable[[List[str], str], None]] = getattr(self, f"cmd_{cmd}", None)
        if handler is not None:
            handler(args, rest)

    # -- commands ----------------------------------------------------------------------------

    def cmd_nboard(self, args: List[str], rest: str) -> None:
        """``nboard <version>``: start of the session."""
        self.send(f"set myname {NAME}")

    def cmd_depth(self, args: List[str], rest: str) -> None:
        """``set depth <d>``: the search budget, :func:`level_iterations` of ``d``."""
        depth = int(args[0])
        if not 1 <= depth <= 60:
            raise ValueError(f"depth must be 1-60, not {depth}")
        self.depth = depth
        self.send(f"set myname {NAME}{depth}")

    def cmd_game(self, args: List[str], rest: str) -> None:
        """``set game <GGF>``: the position at the end of that game, and its clock.  A game
        that cannot be read leaves the engine without a position (``go`` and ``hint`` then
        say so instead of answering for the position before); a clock that cannot be
        read is ignored with a status line, and the game is kept."""
        self.board_problem = "the last 'set game' could not be read"
        game = parse_game(rest)
        board = game.board()
        main: Optional[float] = None
        increment, used = 0.0, [0.0, 0.0]
        if game.tags.get("TI"):
            try:
                main, increment = parse_ggf_clock(game.tags["TI"])
            except ValueError as exc:
                self.send(ascii_line(f"status clock ignored: {exc}"))
                main, increment = None, 0.0
        if main is not None:
            replay = game.start.copy(stack=False)
            for item in game.moves:
                if item.move != PASS and replay.must_pass():
                    replay.push(PASS)                      # a pass the record left out
                used[replay.turn] += _seconds_used(item.time)
                replay.push(item.move)
        self.board, self.clock_main, self.clock_increment, self.used = board, main, increment, used
        self.board_problem = None
        self._ponder()

    def _no_position(self) -> bool:
        """Say so and answer nothing when the GUI's last game was refused."""
        if self.board_problem is None:
            return False
        self.send(f"status error: no position to search: {self.board_problem}")
        return True

    def cmd_contempt(self, args: List[str], rest: str) -> None:
        """``set contempt <n>``: accepted and kept (MCTS values a draw at half a win)."""
        self.contempt = int(args[0])         # accepted; MCTS scores draws as half a win

    def cmd_move(self, args: List[str], rest: str) -> None:
        """``move <sq>[/eval[/time]]``: append a move (a forced pass is inserted) and charge
        its time to the mover's clock."""
        if self.board_problem is not None:
            raise ValueError(f"no position to play on: {self.board_problem}")
        item = parse_move_item(args[0])
        self.board.push(item.move, implicit_pass=True)
        mover = self.board.turn ^ 1
        self.used[mover] += _seconds_used(item.time)
        self._ponder()

    def _ponder(self) -> None:
        """With pondering on, search the position reached while the GUI does not ask."""
        if self.ponder and not self.interrupted():
            self.player.ponder(self.board)

    def clock(self) -> Optional[Clock]:
        """The side to move's clock, when the GUI gave one."""
        if self.clock_main is None:
            return None
        colour = self.board.turn
        moves_made = self.board.ply // 2                       # increments earned, roughly
        left = self.clock_main + self.clock_increment * moves_made - self.used[colour]
        return Clock(min(max(0.0, left), MAX_CLOCK), self.clock_increment)

    def cmd_ping(self, args: List[str], rest: str) -> None:
        """``ping <n>``: a running search was already stopped by the reader; ``pong n``."""
        self.send(f"pong {args[0] if args else ''}".rstrip())

    def cmd_learn(self, args: List[str], rest: str) -> None:
        """``learn``: nothing to learn into; ``learned``."""
        self.send("learned")

    def interrupted(self) -> bool:
        """Whether a ``ping`` (or ``quit``) arrived after the current command."""
        return self._pings_read > self._pings_at_start

    def _search(self, board: Optional[Board] = None, fraction: float = 1.0) -> SearchResult:
        """Search the current position (or ``board``) within the level, the clock and the
        command line's limits; ``fraction`` of the level's budget (analysis uses less)."""
        board = board or self.board
        self.send(f"status {NAME} is thinking")
        # Read before the check: a ping that the reader sees after it (and stops the player
        # for) still stops the search below.
        stops = self.player.stops
        if self.interrupted():                # answer at once: a ping is waiting
            result = self.player.search(board, iterations=1, solve=False)
        elif not self.depth_sets_budget:
            result = self.player.search(board, stops_seen=stops)   # the command line's limits
        else:
            iterations = max(200, int(level_iterations(self.depth) * fraction))
            result = self.player.search(board, iterations=iterations, time_limit=MAX_TIME,
                                        clock=self.clock(), stops_seen=stops)
        if result.stop_reason == StopReason.BOOK:
            self._send_book(board, 64)              # says where the move came from
        self.send(f"nodestats {result.nodes} {result.elapsed:.2f}")
        return result

    def _send_book(self, board: Board, n: int) -> bool:
        """``book`` lines for the ``n`` best book moves of ``board``; False when it is not
        in the player's book."""
        book = self.player.book
        entry = book.entry(board) if book is not None else None
        if book is None or entry is None:
            return False
        for m in book.moves(board)[:n]:
            kind = "book" if m.in_book else "searched"
            self.send(f"book {nboard_move(m.move)} {m.value:.2f} 0 {entry.depth} {kind}")
        return True

    def cmd_go(self, args: List[str], rest: str) -> None:
        """``go``: search and answer ``=== move/eval/time`` without playing the move."""
        if self._no_position():
            return
        moves = list(self.board.legal_moves)
        if not moves or moves == [PASS]:
            self.send("=== PA")
            return
        if len(moves) == 1:
            # No choice to make, but the evaluation graph still wants a value: a quick look.
            result = self.player.search(self.board, iterations=FORCED_MOVE_ITERATIONS,
                                        time_limit=0.2)
        else:
            result = self._search()
        ev = result.discs
        field = f"{ev:.2f}" if ev is not None else ""
        self.send(f"=== {nboard_move(result.best_move)}/{field}/{result.elapsed:.1f}")
        self.send(f"status {NAME} is waiting")

    def cmd_hint(self, args: List[str], rest: str) -> None:
        """``hint <n>``: ``search`` lines for the n best moves."""
        n = max(1, int(args[0])) if args else 1
        if self._no_position():
            return
        if self.board.is_game_over():
            self.send("status game over")
            return
        if self._send_book(self.board, n):
            self.send(f"status {NAME} is waiting")
            return
        result = self._search()
        for s in result.moves[:n]:
            pv = nboard_move(s.move)
            if s.move == result.best_move and len(result.principal_variation) > 1:
                pv = "-".join(nboard_move(m) for m in result.principal_variation[:8])
            ev = s.discs
            if ev is None:
                continue                          # never searched: nothing to say about it
            effort = f"{result.nodes}nodes" if result.depth is not None else f"{s.visits}visits"
            kind = result.value_kind(s)
            self.send(f"search {pv} {ev:.2f} 0 {depth_label(s, result)} {effort} {kind}")
        self.send(f"status {NAME} is waiting")

    def cmd_analyze(self, args: List[str], rest: str) -> None:
        """``analyze``: ``analysis <moves made> <eval>`` for every position of the game,
        last first (a tenth of a move's budget each; finished games are scored exactly).
        A ``ping`` stops it between positions."""
        board = self.board.copy()
        self.send(f"status {NAME} is analysing")
        while not self.interrupted():
            made = len(board.move_stack)
            if board.is_game_over():
                outcome = board.outcome()
                assert outcome is not None
                self.send(f"analysis {made} {float(outcome.score_for(board.turn)):.2f}")
            else:
                result = self._search(board, fraction=0.1)
                if result.stop_reason == "stopped" or self.interrupted():
                    break
                if result.discs is not None:
                    self.send(f"analysis {made} {result.discs:.2f}")
            if not board.move_stack:
                break
            board.pop()
        self.send(f"status {NAME} is waiting")


def main(argv: Optional[List[str]] = None, player: Optional[EnginePlayer] = None) -> int:
    """Serve NBoard on stdin/stdout."""
    NBoardEngine(sys.stdout, player).run(sys.stdin)
    return 0
