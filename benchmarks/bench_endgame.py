"""Endgame solver benchmark: the FFO suites, the threads' speed-up, and solve times by
empties on self-play positions, with the portable C yardstick's perft(11) from the same run.

    python3 benchmarks/bench_endgame.py                 # FFO #20-#39 and #40-#49, 1 thread
    python3 benchmarks/bench_endgame.py --threads 1,2   # and the speed-up of 2 threads
    python3 benchmarks/bench_endgame.py --threads 1,2 --interleave  # the same, position by
                                                        # position in turn (noisy machines)
    python3 benchmarks/bench_endgame.py --suite 1-19    # a quick check
    python3 benchmarks/bench_endgame.py --by-empties    # seconds per solve by empties
    python3 benchmarks/bench_endgame.py --pace          # nodes that settle the outcome
    python3 benchmarks/bench_endgame.py --pass-pace     # nodes of the first selective pass
    python3 benchmarks/bench_endgame.py --passes 20-24  # each selective pass against exact
    python3 benchmarks/bench_endgame.py --presearch     # with and without the first pass
    python3 benchmarks/bench_endgame.py --against OLD/src --rounds 2   # before/after, in turn
    python3 benchmarks/bench_endgame.py --suite 40-49 --perft-each --rounds 3  # the ratio
                                                        # to perft(11) run beside each solve

``--pace`` measures what ``endgame_by_time`` assumes (cythello.search.endgame.play): the
nodes within which an outcome solve of held-out PUCT self-play positions finishes, by
empties (a fresh solver each), and the fit of their 75th percentile; ``--pass-pace`` the
same for the first selective pass (73 %), what ``selective_empties`` assumes.
``--presearch`` solves each position of a suite without and with the selective pass that
an exact solve from ``PRESEARCH_EMPTIES`` empties runs first (cythello.search.endgame.solve),
one after the other.  ``--against OLD/src`` solves each position with this checkout's
solver and with another checkout's (its ``src`` built in place), a process each, in turn,
alternating which goes first: a before/after ratio that holds on a noisy machine.
``--perft-each`` runs the yardstick's perft(11) before each position and after the last,
and counts each solve's time in units of the perft(11) runs on either side of it: their
sum is the suite's time over perft(11) even where the machine's speed drifts during the
run (its neighbours' load), which one perft(11) at the start does not see.

Every score is checked against the one the .obf file lists.  The suite's time divided by
the yardstick's perft(11) time makes results comparable across machines.  Edax 4.6's
published time for FFO #20-#39 on one thread of an i7-9700 is 2.1-2.6 s (the README of
github.com/okuhara/edax-reversi-AVX; another CPU, never run here).
"""
import argparse
import importlib
import json
import math
import statistics
import subprocess
import sys
import time
from pathlib import Path

from _reference import reference, yardstick

import cythello as cy
from cythello.search.internals import SOLVER_BUILD, Solver

# The drivers' module (the package's name ``solve`` is the function).
solve_module = importlib.import_module("cythello.search.endgame.solve")

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
HELDOUT = Path(__file__).resolve().parent / "data" / "heldout.txt"
HELDOUT_DEEP = Path(__file__).resolve().parent / "data" / "heldout-puct-deep.txt"

SUITES = {"1-19": ("fforum-1-19.obf", None), "20-39": ("fforum-20-39.obf", None),
          "40-49": ("fforum-40-59.obf", 10), "40-59": ("fforum-40-59.obf", None)}


def _right(result, pos):
    """Whether a solve found the score and one of the best moves the .obf file lists."""
    return result.score == pos.best_score and result.best_move in pos.best_moves()


def _in_turn(keys, i):
    """``keys`` rotated by ``i``: the order of the i-th position's solves, so that each
    goes first as often as the others and a machine's drift falls on all alike."""
    k = i % len(keys)
    return keys[k:] + keys[:k]


def _suite(name):
    """The positions of FFO suite ``name`` (a key of SUITES), in the file's order."""
    path, count = SUITES[name]
    return list(cy.read_obf(DATA / path))[:count]


def run_suite(name, threads, verbose):
    positions = _suite(name)
    solver = Solver(threads=threads)
    total_nodes, total_time, wrong = 0, 0.0, 0
    for i, pos in enumerate(positions):
        start = time.perf_counter()
        r = cy.solve(pos.board, solver=solver)
        elapsed = time.perf_counter() - start
        ok = _right(r, pos)
        wrong += not ok
        total_nodes += r.nodes
        total_time += elapsed
        if verbose:
            print(f"  {i + 1:>3} {pos.board.empties():>3} empties {r.score:>+4} "
                  f"{r.best_move_name:>4} {'ok' if ok else 'WRONG'} {r.nodes:>14,} nodes "
                  f"{elapsed:>8.3f} s {r.nodes / elapsed / 1e6 if elapsed else 0:>6.1f} M/s",
                  flush=True)
    return total_time, total_nodes, wrong, len(positions)


def run_interleaved(name, thread_counts, verbose):
    """Each position of a suite solved by a solver of each thread count in turn (the
    order rotating from one position to the next), so that a shared machine's changes of
    speed fall on all of them alike; returns {threads: (seconds, nodes, wrong)}."""
    positions = _suite(name)
    solvers = {t: Solver(threads=t) for t in thread_counts}
    totals = {t: [0.0, 0, 0] for t in thread_counts}
    for i, pos in enumerate(positions):
        line = []
        for t in _in_turn(thread_counts, i):
            start = time.perf_counter()
            r = cy.solve(pos.board, solver=solvers[t])
            elapsed = time.perf_counter() - start
            ok = _right(r, pos)
            totals[t][0] += elapsed
            totals[t][1] += r.nodes
            totals[t][2] += not ok
            line.append(f"{t}t {elapsed:7.3f} s{'' if ok else ' WRONG'}")
        if verbose:
            print(f"  {i + 1:>3} {pos.board.empties():>3} empties {pos.best_score:>+4}  "
                  + "  ".join(line), flush=True)
    return {t: tuple(v) for t, v in totals.items()}


def run_perft_each(name, threads, rounds, verbose):
    """The suite's time in units of perft(11), each solve's seconds divided by the mean of
    the yardstick's perft(11) seconds just before and just after it, summed; once a round
    (a fresh solver each round).  Returns the number of wrong solves, or None without the
    yardstick."""
    positions = _suite(name)
    wrong = 0
    sums = []
    with yardstick() as run:
        if run is None:
            return None
        for k in range(rounds):
            solver = Solver(threads=threads)
            before = run(0.01)["perft11_s"]
            units = seconds = perft_total = 0.0
            for i, pos in enumerate(positions):
                start = time.perf_counter()
                r = cy.solve(pos.board, solver=solver)
                elapsed = time.perf_counter() - start
                after = run(0.01)["perft11_s"]
                ok = _right(r, pos)
                wrong += not ok
                beside = (before + after) / 2
                units += elapsed / beside
                seconds += elapsed
                perft_total += beside
                if verbose:
                    print(f"  {i + 1:>3} {pos.board.empties():>3} empties {r.score:>+4} "
                          f"{'ok' if ok else 'WRONG'} {elapsed:8.3f} s, perft(11) "
                          f"{before:.3f}/{after:.3f} s: {elapsed / beside:6.2f}x", flush=True)
                before = after
            sums.append(units)
            print(f"  round {k + 1}: {seconds:.2f} s, {units:.1f}x perft(11) beside each "
                  f"solve (perft(11) {perft_total / len(positions):.3f} s on average)",
                  flush=True)
    print(f"FFO #{name}, {threads} thread(s), {rounds} round(s): "
          f"{statistics.median(sums):.1f}x perft(11) by the median round "
          f"(rounds {', '.join(f'{u:.1f}' for u in sums)}); {wrong or 'none'} wrong")
    return wrong


# One worker per build: reads a position's index on stdin, answers [seconds, nodes, right]
# (right as _right judges it; the worker imports only the build it measures).
WORKER = r"""
import json, sys, time
sys.path.insert(0, sys.argv[1])
import cythello as cy
from cythello.search.internals import Solver
positions = list(cy.read_obf(sys.argv[2]))
if sys.argv[3] != "all":
    positions = positions[:int(sys.argv[3])]
print(len(positions), flush=True)
for line in sys.stdin:
    pos = positions[int(line)]
    start = time.perf_counter()
    r = cy.solve(pos.board, solver=Solver(threads=int(sys.argv[4])))
    seconds = time.perf_counter() - start
    right = r.score == pos.best_score and r.best_move in pos.best_moves()
    print(json.dumps([seconds, r.nodes, right]), flush=True)
"""

def against(other, name, threads, rounds):
    """This checkout's solver and the one under ``other`` (another checkout's ``src``, built
    in place) in lockstep: each position solved by one and then the other, a process each,
    the order alternating, so that a shared machine's changes of speed fall on both alike;
    a fresh Solver per solve.  Returns the wrong scores."""
    path, count = SUITES[name]
    builds = {"this": ROOT / "src", "against": Path(other).resolve()}
    workers = {key: subprocess.Popen(
        [sys.executable, "-c", WORKER, str(src), str(DATA / path),
         "all" if count is None else str(count), str(threads)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for key, src in builds.items()}
    size = min(int(w.stdout.readline()) for w in workers.values())   # both: one file
    totals = {key: [0.0, 0, 0] for key in builds}
    turn = 0
    for _ in range(rounds):
        for i in range(size):
            for key in _in_turn(["this", "against"], turn):
                workers[key].stdin.write(f"{i}\n")
                workers[key].stdin.flush()
                seconds, nodes, right = json.loads(workers[key].stdout.readline())
                totals[key][0] += seconds
                totals[key][1] += nodes
                totals[key][2] += not right
            turn += 1
    for w in workers.values():
        w.stdin.close()
        w.wait()
    print(f"FFO #{name}, {threads} thread(s), {rounds} round(s) in lockstep:")
    for key, (seconds, nodes, wrong) in totals.items():
        print(f"  {key} ({builds[key]}): {seconds:.2f} s, {nodes:,} nodes, {wrong or 'none'} wrong")
    print(f"  against/this: {totals['against'][0] / totals['this'][0]:.3f}x "
          f"(above 1: this checkout is the faster)", flush=True)
    return totals["this"][2] + totals["against"][2]


def presearch_ab(name, threads, perft):
    """Each position of a suite solved without and with the exact solve's first selective
    pass, one after the other (the order alternating, a solver each), so that a machine's
    drift falls on both; returns the wrong scores."""
    positions = _suite(name)
    solvers = {False: Solver(threads=threads), True: Solver(threads=threads)}
    seconds = {False: 0.0, True: 0.0}
    nodes = {False: 0, True: 0}
    wrong = 0
    presearch_from = solve_module.PRESEARCH_EMPTIES
    try:
        for i, pos in enumerate(positions):
            for with_pass in _in_turn([False, True], i):
                solve_module.PRESEARCH_EMPTIES = presearch_from if with_pass else 65
                start = time.perf_counter()
                r = cy.solve(pos.board, solver=solvers[with_pass])
                seconds[with_pass] += time.perf_counter() - start
                nodes[with_pass] += r.nodes
                wrong += not _right(r, pos)
    finally:
        solve_module.PRESEARCH_EMPTIES = presearch_from
    print(f"FFO #{name}, {threads} thread(s), {len(positions)} positions, "
          f"{len(positions) * 2 - wrong}/{len(positions) * 2} solves correct:")
    for with_pass in (False, True):
        ratio = f", {seconds[with_pass] / perft:.1f}x perft(11)" if perft else ""
        print(f"  {'with' if with_pass else 'without':>7} the first pass: "
              f"{nodes[with_pass]:,} nodes in {seconds[with_pass]:.2f} s{ratio}")
    print(f"  with/without: {nodes[True] / nodes[False]:.2f}x the nodes, "
          f"{seconds[False] / seconds[True]:.2f}x as fast", flush=True)
    return wrong


def by_empties():
    """Seconds per exact and per outcome-only solve, by empties, on the held-out self-play
    positions (the kind a game meets): what endgame_empties can afford."""
    rows = [line.rsplit(" ", 1) for line in HELDOUT.read_text().splitlines() if line.strip()]
    boards = {}
    for text, _ in rows:
        b = cy.Board(text)
        boards.setdefault(b.empties(), []).append(b)
    solver = Solver()
    print(f"{'empties':>8} {'n':>4} {'exact mean':>11} {'exact max':>10} {'outcome mean':>13}")
    for e in sorted(boards):
        exact, outcome = [], []
        for b in boards[e][:20]:
            t = time.perf_counter()
            cy.solve(b, solver=solver)
            exact.append(time.perf_counter() - t)
            t = time.perf_counter()
            cy.solve_outcome(b, solver=Solver())
            outcome.append(time.perf_counter() - t)
        print(f"{e:>8} {len(exact):>4} {statistics.mean(exact):>10.3f}s {max(exact):>9.3f}s "
              f"{statistics.mean(outcome):>12.3f}s", flush=True)


def pace(per_count=40, first_pass=False):
    """Nodes an outcome solve (``first_pass``: the first selective pass) needs by empties
    (median, 75th and 90th percentiles) on the deep held-out positions, the fit of the 75th
    percentile against endgame_play's, and this machine's nodes per second."""
    from cythello.search.endgame import solve_selective
    from cythello.search.endgame.play import (
        OUTCOME_GROWTH,
        OUTCOME_NODES_AT_20,
        PASS_GROWTH,
        PASS_NODES_AT_20,
    )
    assumed = (PASS_NODES_AT_20, PASS_GROWTH) if first_pass else (OUTCOME_NODES_AT_20,
                                                                  OUTCOME_GROWTH)

    def measure(b):
        if first_pass:
            return solve_selective(b, solver=Solver(), widths=[1.1])[0].nodes
        return cy.solve_outcome(b, solver=Solver()).nodes
    boards = {}
    for line in HELDOUT_DEEP.read_text().splitlines():
        if line.strip():
            b = cy.Board(line.rsplit(" ", 1)[0])
            boards.setdefault(b.empties(), []).append(b)
    print(f"{'empties':>8} {'n':>4} {'median':>12} {'75 %':>12} {'90 %':>12} {'M nodes/s':>10}")
    points = []
    for e in sorted(boards):
        nodes, seconds = [], 0.0
        for b in boards[e][:per_count]:
            start = time.perf_counter()
            nodes.append(measure(b))
            seconds += time.perf_counter() - start
        nodes.sort()
        q = [nodes[min(len(nodes) - 1, int(p * len(nodes)))] for p in (0.5, 0.75, 0.9)]
        points.append((e, q[1]))
        print(f"{e:>8} {len(nodes):>4} {q[0]:>12,} {q[1]:>12,} {q[2]:>12,} "
              f"{sum(nodes) / seconds / 1e6:>10.1f}", flush=True)
    # Least squares of log(nodes) on empties.
    n = len(points)
    mx = sum(e for e, _ in points) / n
    my = sum(math.log(v) for _, v in points) / n
    slope = (sum((e - mx) * (math.log(v) - my) for e, v in points)
             / sum((e - mx) ** 2 for e, _ in points))
    at20 = math.exp(my + slope * (20 - mx))
    print(f"75 % fit: {at20 / 1e6:.2f} M nodes at 20 empties, x{math.exp(slope):.2f} an empty "
          f"(endgame_play assumes {assumed[0] / 1e6:.2f} M, x{assumed[1]:.2f})")


def passes(low, high):
    """Each selective pass alone (an empty table each) against the exact solve, on the
    positions of ``low``-``high`` empties with every move's exact score (the
    endgame-accuracy set and FFO #20-#59): time, nodes, the discs its move gives away,
    how often its move is a best one, and its score's error."""
    from cythello.search.endgame._solver import SELECTIVE_PASSES
    files = [ROOT / "benchmarks" / "data" / "endgame-16-24.obf", DATA / "fforum-20-39.obf",
             DATA / "fforum-40-59.obf"]
    positions = [p for f in files for p in cy.read_obf(f)
                 if low <= p.board.empties() <= high]
    widths = [t for t, _ in SELECTIVE_PASSES] + [None]
    totals = {t: [0.0, 0, 0, 0, 0] for t in widths}
    for pos in positions:
        best = pos.best_score
        for t in widths:
            solver = Solver()
            solver.reserve(pos.board.empties())
            start = time.perf_counter()
            score, move, _ = solver.solve(pos.board, -64, 64, probcut=t)
            row = totals[t]
            row[0] += time.perf_counter() - start
            row[1] += solver.nodes
            row[2] += best - pos.scores[move]
            row[3] += pos.scores[move] == best
            row[4] += abs(score - best)
    n = len(positions)
    print(f"{n} positions of {low}-{high} empties; each pass alone, from an empty table")
    print(f"{'pass':>6} {'seconds':>9} {'x exact':>8} {'M nodes':>9} {'discs lost':>11} "
          f"{'best moves':>11} {'score error':>12}")
    exact_time = totals[None][0]
    for (t, row), (_, percent) in zip(totals.items(), [*SELECTIVE_PASSES, (None, 100)]):
        label = f"{percent}%" if t is not None else "exact"
        print(f"{label:>6} {row[0]:>9.2f} {row[0] / exact_time:>8.2f} {row[1] / 1e6:>9.1f} "
              f"{row[2] / n:>11.2f} {row[3]:>6}/{n:<4} {row[4] / n:>12.2f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", action="append", choices=list(SUITES),
                    help="suites to run (default: 20-39 and 40-49)")
    ap.add_argument("--threads", default="1", help="thread counts to run, e.g. 1,2")
    ap.add_argument("--quiet", action="store_true", help="no line per position")
    ap.add_argument("--interleave", action="store_true",
                    help="solve each position with every thread count in turn (a fairer "
                         "speed-up on a shared, noisy machine) instead of suite by suite")
    ap.add_argument("--by-empties", action="store_true",
                    help="solve times by empties on held-out self-play positions instead")
    ap.add_argument("--pace", action="store_true",
                    help="nodes that settle the outcome by empties instead")
    ap.add_argument("--pass-pace", action="store_true",
                    help="nodes of the first selective pass by empties instead")
    ap.add_argument("--passes", metavar="LOW-HIGH",
                    help="each selective pass against the exact solve, on positions of "
                         "LOW-HIGH empties, instead")
    ap.add_argument("--against", metavar="OTHER_SRC",
                    help="this checkout's solver against another checkout's src (built in "
                         "place), each position solved by both in turn, a process each, "
                         "at each --threads count")
    ap.add_argument("--perft-each", action="store_true",
                    help="the yardstick's perft(11) beside each solve: the suite's time in "
                         "its units on a machine whose speed drifts")
    ap.add_argument("--rounds", type=int, default=1,
                    help="times through each suite, with --against or --perft-each")
    ap.add_argument("--presearch", action="store_true",
                    help="each position without and with the exact solve's first "
                         "selective pass, one after the other")
    args = ap.parse_args()
    if args.passes:
        low, _, high = args.passes.partition("-")
        passes(int(low), int(high or low))
        return 0
    if args.pace or args.pass_pace:
        pace(first_pass=args.pass_pace)
        return 0
    if args.by_empties:
        by_empties()
        return 0
    thread_counts = [int(t) for t in args.threads.split(",")]
    if args.against:
        if not (Path(args.against) / "cythello").is_dir():
            print(f"bench_endgame: {args.against} holds no cythello package", file=sys.stderr)
            return 2
        wrong = sum(against(args.against, suite, threads, args.rounds)
                    for suite in args.suite or ["40-49"] for threads in thread_counts)
        return 1 if wrong else 0
    if args.perft_each:
        results = [run_perft_each(suite, threads, args.rounds, not args.quiet)
                   for suite in args.suite or ["40-49"] for threads in thread_counts]
        if None in results:
            print("bench_endgame: --perft-each needs the yardstick, its source "
                  "(benchmarks/yardstick) and a C compiler", file=sys.stderr)
            return 2
        return 1 if sum(results) else 0
    ref = reference(2.0)
    perft = ref["perft11_s"] if ref else None
    print(f"solver build: {SOLVER_BUILD}; yardstick perft(11): "
          f"{perft:.3f} s" if perft else "yardstick: not available")
    failures = 0
    base = {}
    for suite in args.suite or ["20-39", "40-49"]:
        if args.interleave:
            print(f"FFO #{suite}, threads {args.threads} interleaved:")
            totals = run_interleaved(suite, thread_counts, not args.quiet)
            first = thread_counts[0]
            for threads, (seconds, nodes, wrong) in totals.items():
                failures += wrong
                ratio = f", {seconds / perft:.1f}x perft(11)" if perft else ""
                print(f"  {threads} thread(s): {wrong or 'none'} wrong, {nodes:,} nodes in "
                      f"{seconds:.2f} s ({nodes / seconds / 1e6:.1f} M nodes/s){ratio}, "
                      f"speed-up {totals[first][0] / seconds:.2f}x against {first}",
                      flush=True)
            continue
        for threads in thread_counts:
            if args.presearch:
                failures += presearch_ab(suite, threads, perft)
                continue
            print(f"FFO #{suite}, {threads} thread(s):")
            seconds, nodes, wrong, n = run_suite(suite, threads, not args.quiet)
            failures += wrong
            ratio = f", {seconds / perft:.1f}x perft(11)" if perft else ""
            speedup = ""
            if threads == 1:
                base[suite] = seconds
            elif suite in base:
                speedup = f", speed-up {base[suite] / seconds:.2f}x"
            print(f"  total: {n - wrong}/{n} correct, {nodes:,} nodes in {seconds:.2f} s "
                  f"({nodes / seconds / 1e6:.1f} M nodes/s){ratio}{speedup}", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
