"""cythello as an NBoard-protocol engine (protocol version 2), for NBoard and its tools.

Input is read on its own thread so that ``ping`` interrupts a running search; every reply
line is flushed; lines the engine does not understand are ignored; bad input never ends it.
``set depth d`` sets the search budget to ``d * ITERATIONS_PER_DEPTH`` iterations (at most
``MAX_TIME`` seconds), unless the engine was started with limits of its own
(``--iterations``/``--time``), which then win.  Evaluations are the search's win rate for the side to move mapped to
disks, ``64 * (2p - 1)``; the solver's proofs give exactly +64 / 0 / -64.
"""
from __future__ import annotations

import queue
import sys
import threading
from typing import IO, Callable, List, Optional

from ..core._board import Board
from ..records.ggf import parse_game, parse_move_item
from ..search.players import MCTSPlayer, SearchResult
from ..squares import PASS, square_name
from ._io import MAX_LINE, ascii_line, command_lines

ITERATIONS_PER_DEPTH = 5_000
MAX_TIME = 30.0
NAME = "cythello"
TOO_LONG = "<a line too long>"        # stands for an overlong input line


def nboard_move(move: int) -> str:
    """A move as NBoard writes it: ``F5``, or ``PA`` for a pass."""
    return "PA" if move == PASS else square_name(move).upper()


def eval_disks(win_rate: float, proof: Optional[str] = None) -> float:
    """A win rate for the side to move as an NBoard eval in disks."""
    if proof == "win":
        return 64.0
    if proof == "loss":
        return -64.0
    if proof == "draw":
        return 0.0
    return round(64.0 * (2.0 * win_rate - 1.0), 2)


class NBoardEngine:
    """One NBoard session over a pair of text streams."""

    def __init__(self, out: IO[str] = sys.stdout, player: Optional[MCTSPlayer] = None,
                 depth: int = 4, depth_sets_budget: bool = True) -> None:
        self.out = out
        self.player = player or MCTSPlayer(rollout="heuristic")
        self.board = Board()
        self.depth = depth
        self.depth_sets_budget = depth_sets_budget
        self.contempt = 0
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
        it stops a running search at once (the command still answers); with
        ``stop_at_eof=False`` the commands read before it run in full (for scripts)."""
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
                # End of input: the GUI is gone, so whatever runs now is for nobody.
                self._pings_read += 1
                self.player.stop()
            lines.put(None)

        threading.Thread(target=reader, daemon=True, name="nboard-reader").start()
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
        """``set depth <d>``: the search budget, d × ITERATIONS_PER_DEPTH iterations."""
        depth = int(args[0])
        if not 1 <= depth <= 60:
            raise ValueError(f"depth must be 1-60, not {depth}")
        self.depth = depth
        self.send(f"set myname {NAME}{depth}")

    def cmd_game(self, args: List[str], rest: str) -> None:
        """``set game <GGF>``: the position at the end of that game."""
        self.board = parse_game(rest).board()

    def cmd_contempt(self, args: List[str], rest: str) -> None:
        """``set contempt <n>``: accepted and kept (MCTS values a draw at half a win)."""
        self.contempt = int(args[0])         # accepted; MCTS scores draws as half a win

    def cmd_move(self, args: List[str], rest: str) -> None:
        """``move <sq>[/eval[/time]]``: append a move; a forced pass is inserted."""
        self.board.push(parse_move_item(args[0]).move, implicit_pass=True)

    def cmd_ping(self, args: List[str], rest: str) -> None:
        """``ping <n>``: a running search was already stopped by the reader; ``pong n``."""
        self.send(f"pong {args[0] if args else ''}".rstrip())

    def cmd_learn(self, args: List[str], rest: str) -> None:
        """``learn``: nothing to learn into; ``learned``."""
        self.send("learned")

    def interrupted(self) -> bool:
        """Whether a ``ping`` (or ``quit``) arrived after the current command."""
        return self._pings_read > self._pings_at_start

    def _search(self) -> SearchResult:
        self.send(f"status {NAME} is thinking")
        if self.interrupted():                # answer at once: a ping is waiting
            result = self.player.search(self.board, iterations=1)
        elif self.depth_sets_budget:
            result = self.player.search(self.board, iterations=self.depth * ITERATIONS_PER_DEPTH,
                                        time_limit=MAX_TIME)
        else:
            result = self.player.search(self.board)
        self.send(f"nodestats {result.nodes} {result.elapsed:.2f}")
        return result

    def cmd_go(self, args: List[str], rest: str) -> None:
        """``go``: search and answer ``=== move/eval/time`` without playing the move."""
        moves = list(self.board.legal_moves)
        if not moves or moves == [PASS]:
            self.send("=== PA")
            return
        if len(moves) == 1:
            self.send(f"=== {nboard_move(moves[0])}/0.00/0.0")
            return
        result = self._search()
        best = next(s for s in result.moves if s.move == result.best_move)
        ev = eval_disks(best.win_rate, best.proof)
        self.send(f"=== {nboard_move(result.best_move)}/{ev:.2f}/{result.elapsed:.1f}")
        self.send(f"status {NAME} is waiting")

    def cmd_hint(self, args: List[str], rest: str) -> None:
        """``hint <n>``: ``search`` lines for the n most visited moves."""
        n = max(1, int(args[0])) if args else 1
        if self.board.is_game_over():
            self.send("status game over")
            return
        result = self._search()
        for s in result.moves[:n]:
            pv = nboard_move(s.move)
            if s.move == result.best_move and len(result.principal_variation) > 1:
                pv = "-".join(nboard_move(m) for m in result.principal_variation[:8])
            depth = "100%W" if s.proof else str(self.depth)
            self.send(f"search {pv} {eval_disks(s.win_rate, s.proof):.2f} 0 {depth} "
                      f"{s.visits}visits")
        self.send(f"status {NAME} is waiting")

    def cmd_analyze(self, args: List[str], rest: str) -> None:
        """``analyze``: ``analysis <moves made> <eval>`` for every position of the game,
        last first (a tenth of a move's budget each; finished games are scored exactly).
        A ``ping`` stops it between positions."""
        board = self.board.copy()
        budget = max(200, self.depth * ITERATIONS_PER_DEPTH // 10)
        self.send(f"status {NAME} is analysing")
        while not self.interrupted():
            made = len(board.move_stack)
            if board.is_game_over():
                outcome = board.outcome()
                assert outcome is not None
                self.send(f"analysis {made} {float(outcome.score_for(board.turn)):.2f}")
            else:
                result = self.player.search(board, iterations=budget, time_limit=MAX_TIME)
                if result.stop_reason == "stopped" or self.interrupted():
                    break
                ev = (float(result.exact_score) if result.exact_score is not None
                      else eval_disks(result.win_rate, result.proof))
                self.send(f"analysis {made} {ev:.2f}")
            if not board.move_stack:
                break
            board.pop()
        self.send(f"status {NAME} is waiting")

def main(argv: Optional[List[str]] = None, player: Optional[MCTSPlayer] = None) -> int:
    """Serve NBoard on stdin/stdout."""
    NBoardEngine(sys.stdout, player).run(sys.stdin)
    return 0
