"""``cythello solve``: exact scores of positions or of whole ``.obf`` suites."""
from __future__ import annotations

import argparse
import sys
import time
from typing import Any, List, Optional

from .._cores import THREADS_CAP
from ..errors import SettingsError
from ..records.obf import ObfPosition, parse_obf_line, read_obf
from ..records.position import board_from_text
from ..search.endgame import EndgamePass, SolveAborted, SolveResult, solve, solve_selective
from ..search.endgame._solver import Solver
from ..search.settings import check_time
from .common import StatusLine, say, threads_option

DEFAULT_TIME = 60.0
# Beyond this many empties an exact solve takes hours (30 empties: minutes to an hour on
# one core here; each empty more about 3-4 times that).
HOPELESS_EMPTIES = 34


class _SolveProgress:
    """What a long solve has proven so far (``update`` is its ``on_step``), as its status
    line says it."""

    def __init__(self, label: str) -> None:
        self.label, self.start = label, time.monotonic()
        self.known: Optional[SolveResult] = None

    def update(self, known: SolveResult) -> None:
        self.known = known

    def text(self) -> str:
        k = self.known
        bounds = (f", score in [{k.lower:+d}, {k.upper:+d}], best so far {k.best_move_name}"
                  if k is not None else "")
        return f"{self.label}: {time.monotonic() - self.start:.0f} s{bounds}"


def cmd_solve(args: argparse.Namespace) -> int:
    """``cythello solve``: exact scores of positions or of a whole ``.obf`` suite, checked
    against the scores the file lists."""
    limit = check_time(args.time, "--time")
    positions: List[ObfPosition] = []
    for item in list(args.positions) + list(args.board or []):
        if item.endswith(".obf"):
            positions.extend(read_obf(item))
        elif ";" in item:
            positions.append(parse_obf_line(item))       # keeps the listed scores
        else:
            positions.append(ObfPosition(board_from_text(
                item, "solve reads .obf files; a game file is for cythello analyse")))
    if not positions:
        raise SettingsError("give positions (board strings, OBF lines, transcripts) or .obf files")
    if args.passes:
        return _solve_by_passes(positions, limit, Solver(threads=threads_option(args.threads)))
    say(f"{'#':>3} {'empties':>7} {'score':>6} {'move':>5} {'expected':>8} "
        f"{'nodes':>13} {'seconds':>8}")
    nodes, seconds, checked, correct, aborted = 0, 0.0, 0, 0, 0
    solver = Solver(threads=threads_option(args.threads))
    for i, pos in enumerate(positions, 1):
        if pos.board.is_game_over():
            outcome = pos.board.outcome()
            assert outcome is not None
            say(f"{i:>3} {0:>7} {outcome.score_for(pos.board.turn):>+6} {'-':>5}  game over")
            continue
        if pos.board.empties() > HOPELESS_EMPTIES:
            # Said at once, on or off a terminal: such a solve ends only by --time.
            print(f"cythello solve: #{i} has {pos.board.empties()} empties; an exact solve "
                  f"from more than {HOPELESS_EMPTIES} takes hours to ages, so it will stop "
                  f"after {limit:g} s with the bounds it has", file=sys.stderr, flush=True)
        progress = _SolveProgress(f"#{i}")
        try:
            with StatusLine(progress.text, interval=0.5):
                r = solve(pos.board, time_limit=limit, solver=solver, on_step=progress.update)
        except SolveAborted as exc:
            aborted += 1
            p = exc.partial
            nodes += p.nodes
            seconds += p.elapsed
            say(f"{i:>3} {pos.board.empties():>7} {'?':>6} {'?':>5} {'':>8} {p.nodes:>13,} "
                f"{p.elapsed:>8.3f}  out of time: {p.proven()}")
            continue
        nodes += r.nodes
        seconds += r.elapsed
        expected = ""
        if pos.scores:
            checked += 1
            ok = r.score == pos.best_score and r.best_move in pos.best_moves()
            correct += ok
            expected = f"{pos.best_score:+d}" + ("" if ok else " WRONG")
        say(f"{i:>3} {pos.board.empties():>7} {r.score:>+6} {r.best_move_name:>5} "
            f"{expected:>8} {r.nodes:>13,} {r.elapsed:>8.3f}")
    rate = nodes / seconds / 1e6 if seconds else 0.0
    say(f"{len(positions) - aborted} solved, {aborted} out of time; "
        + (f"{correct}/{checked} match the listed scores; " if checked else "")
        + f"{nodes:,} nodes in {seconds:.2f} s ({rate:.1f} M nodes/s)")
    # Status 1 when the job was not done: a score that differs from the file's, or a
    # position left unsolved.
    return 1 if (checked and correct < checked) or aborted else 0


def _solve_by_passes(positions: List[ObfPosition], limit: float, solver: Solver) -> int:
    """``--passes``: each position by the selective passes (73 % ... 99 %), the
    win/draw/loss search and the exact solve, a line a pass as it ends, as the classic
    engines print them; the exact score is checked against the file's where it lists one.
    Status 1 when a position's exact pass did not finish or its score differs."""
    say(f"{'#':>3} {'empties':>7} {'pass':>6} {'score':>9} {'move':>5} {'nodes':>13} "
        f"{'seconds':>8}")
    unfinished = wrong = 0
    for i, pos in enumerate(positions, 1):
        if pos.board.is_game_over():
            say(f"{i:>3} {0:>7}  game over")
            continue

        def line(p: EndgamePass, i: int = i, pos: ObfPosition = pos) -> None:
            note = "" if p.finished else "  (cut short: its move's score so far)"
            if p.exact and p.finished and pos.scores:
                note = "" if p.score == pos.best_score else f"  WRONG: {pos.best_score:+d}"
            say(f"{i:>3} {pos.board.empties():>7} {p.label:>6} {p.score_text:>9} "
                f"{p.best_move_name:>5} {p.nodes:>13,} {p.elapsed:>8.3f}{note}")

        try:
            passes = solve_selective(pos.board, time_limit=limit, solver=solver,
                                     on_pass=line, wld=True)
        except SolveAborted as exc:
            say(f"{i:>3} {pos.board.empties():>7}  out of time before the first pass: "
                f"{exc.partial.nodes:,} nodes")
            unfinished += 1
            continue
        last = passes[-1]
        unfinished += not (last.exact and last.finished)
        wrong += bool(last.exact and last.finished and pos.scores
                      and last.score != pos.best_score)
    say(f"{len(positions) - unfinished} solved exactly, {unfinished} not within "
        f"{limit:g} s" + (f", {wrong} differ from the listed scores" if wrong else ""))
    return 1 if unfinished or wrong else 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser("solve", help="solve endgames exactly",
                       description="Exact scores and best moves, e.g. of an .obf test suite "
                                   "(the listed scores are checked).  A position that runs "
                                   "out of time reports the bounds proven so far.  The exit "
                                   "status is 1 if a score differs from the file's or a "
                                   "position ran out of time.")
    p.add_argument("positions", nargs="*",
                   help=".obf files, board strings, OBF lines or transcripts")
    p.add_argument("--board", action="append", metavar="STRING",
                   help="a position as a board string (for one starting with '-'); repeatable")
    p.add_argument("--time", type=float, default=DEFAULT_TIME,
                   help="seconds per position at most (default: %(default)g)")
    p.add_argument("--threads", metavar="N",
                   help="threads sharing each solve (default: auto, the cores this process "
                        f"may run on, at most {THREADS_CAP})")
    p.add_argument("--passes", action="store_true",
                   help="show the selective passes (@73%% ... @99%%), the win/draw/loss "
                        "search (WLD) and the exact solve, a line each, as they end")
    p.set_defaults(func=cmd_solve)
