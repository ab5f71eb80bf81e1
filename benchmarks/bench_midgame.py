"""The midgame alpha-beta search's speed on fixed middle-game positions (30-44 empties):
time and nodes to each depth, full width, for the search (PVS, iterative deepening,
transposition table, ordering) beside the plain fixed-depth alpha-beta it replaced
(``reference_search``, the same scores), and the depth iterative deepening reaches in a
given time; with ``--probcut``, the selective searches (Multi-ProbCut at each t) beside
them: their time and nodes, and how often their move and score differ from the full-width
search's at the same depth.  One core, one run; the yardstick's perft(11) beside
cythello's anchors the machine's speed.

    python benchmarks/bench_midgame.py                      # depths 6, 8, 10; 1 s
    python benchmarks/bench_midgame.py --depths 8,10,12 --plain-up-to 8
    python benchmarks/bench_midgame.py --depths 8,10,12,14 --plain-up-to 10 --probcut 1.1,1.5,2
    python benchmarks/bench_midgame.py --depths 8 --plain-up-to 0 --table-bits 16,18,20 \
        --probcut 1.5 --seconds 1,4          # the table's size: the depth reached in time
    python benchmarks/bench_midgame.py --depths 8 --plain-up-to 0 --probcut 1.5 --seconds 1 \
        --player 0.25,1                      # the player's time a move: used, overrun
    python benchmarks/bench_midgame.py --against /tmp/old/src --depths 10,12 --probcut 1.5
                  # before / after: each depth's time over the positions, with this code and
                  # another checkout's (built) in turn, in fresh processes, --rounds times;
                  # then the depth each reaches in --seconds

The positions (``data/midgame-30-44.txt``) were made once by ``--make-positions``:
games of two AlphaBetaPlayer(depth=2) from 30 random 8-ply openings (seed 1), each
stopped at a random 30-44 empties.
"""
from __future__ import annotations

import argparse
import os
import random
import statistics
import subprocess
import sys
import time
from pathlib import Path

import _reference

import cythello as cy
from cythello.eval.weights import default_weights
from cythello.search.internals import MidgameSearch, deepen, reference_search
from cythello.search.internals import midgame_search as search

DATA = Path(__file__).with_name("data") / "midgame-30-44.txt"


def make_positions(count: int = 30, seed: int = 1) -> None:
    rng = random.Random(seed)
    player = cy.AlphaBetaPlayer(depth=2, endgame_empties=0)
    lines = []
    while len(lines) < count:
        board = cy.Board()
        for _ in range(8):
            board.push(rng.choice(list(board.legal_moves)))
        stop_at = rng.randint(30, 44)
        while board.empties() > stop_at and not board.is_game_over():
            board.push(player.choose_move(board))
        if not board.is_game_over() and not board.must_pass():
            lines.append(board.board_string())
    DATA.write_text("\n".join(lines) + "\n")
    print(f"wrote {len(lines)} positions to {DATA}")


# One timing for --against, in a fresh process with a checkout's package on its path: the
# seconds a depth-``depth`` search (probcut "" for full width) takes over the positions.
# With a depth of 0, the mean depth iterative deepening reaches in ``seconds`` instead.
PROBE = """
import sys, time
import cythello as cy
from cythello.eval.weights import default_weights
from cythello.search.internals import deepen, midgame_search as search
depth, probcut = int(sys.argv[1]), (float(sys.argv[2]) if sys.argv[2] else None)
boards = [cy.Board(line) for line in open(sys.argv[3]).read().splitlines() if line.strip()]
weights = default_weights()
search(boards[0], 4, weights)
if depth == 0:
    reached = [deepen(b, weights, seconds=float(sys.argv[4]), probcut=probcut)["depth"]
               for b in boards]
    print(sum(reached) / len(reached))
    raise SystemExit
start = time.perf_counter()
for board in boards:
    search(board, depth, weights, probcut)
print(time.perf_counter() - start)
"""


def against(src: Path, depths: list[int], cuts: list[float], rounds: int, full_up_to: int,
            times: list[float]) -> None:
    """Each depth's time over the positions (full width to ``full_up_to``), with this
    checkout's code and ``src``'s in turn (fresh processes, so that both see the same
    load), medians of ``rounds``; then the mean depth reached in each of ``times``."""
    here = Path(__file__).resolve().parent.parent / "src"
    n = len([line for line in DATA.read_text().splitlines() if line.strip()])

    def seconds(tree: Path, depth: int, probcut: str, limit: float = 0.0) -> float:
        out = subprocess.run([sys.executable, "-c", PROBE, str(depth), probcut, str(DATA),
                              str(limit)],
                             env=dict(os.environ, PYTHONPATH=str(tree)), check=True,
                             capture_output=True, text=True)
        return float(out.stdout)

    print(f"{'search':>12} {'depth':>5} {'this ms':>9} {'against ms':>10} {'this/against':>12}"
          f"  (a position, medians of {rounds})")
    for t in [""] + [f"{c:g}" for c in cuts]:
        for depth in depths:
            if not t and depth > full_up_to:
                continue
            runs = {"this": [], "against": []}
            for _ in range(rounds):
                runs["this"].append(seconds(here, depth, t))
                runs["against"].append(seconds(src, depth, t))
            ours, theirs = (statistics.median(runs[k]) for k in ("this", "against"))
            print(f"{'full width' if not t else 'probcut ' + t:>12} {depth:>5} "
                  f"{ours / n * 1000:>9.1f} {theirs / n * 1000:>10.1f} {ours / theirs:>12.2f}",
                  flush=True)
    for t in [""] + [f"{c:g}" for c in cuts]:
        for limit in times:
            reached = {"this": [], "against": []}
            for _ in range(rounds):
                reached["this"].append(seconds(here, 0, t, limit))
                reached["against"].append(seconds(src, 0, t, limit))
            print(f"{'full width' if not t else 'probcut ' + t:>12}: depth reached in "
                  f"{limit:g} s, this {statistics.median(reached['this']):.2f}, against "
                  f"{statistics.median(reached['against']):.2f} (medians of {rounds})",
                  flush=True)


def timed(fn, *args):
    start = time.perf_counter()
    out = fn(*args)
    return time.perf_counter() - start, out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--depths", default="6,8,10")
    ap.add_argument("--plain-up-to", type=int, default=10,
                    help="the deepest depth the plain alpha-beta is timed at (slow)")
    ap.add_argument("--seconds", default="1", help="times for iterative deepening")
    ap.add_argument("--probcut", default="",
                    help="Multi-ProbCut t values to time beside the full-width search")
    ap.add_argument("--full-up-to", type=int, default=99,
                    help="the deepest depth the full-width search is timed at")
    ap.add_argument("--table-bits", default="",
                    help="table sizes (bits) to compare by the depth reached in --seconds, "
                         "with the first --probcut (the engine player's search)")
    ap.add_argument("--player", default="",
                    help="seconds a move: how the AlphaBetaPlayer (with the first --probcut) "
                         "uses a fixed time a move on each position")
    ap.add_argument("--against", type=Path,
                    help="another checkout's src/ (built): time --depths (full width and "
                         "each --probcut) with it and with this code in turn")
    ap.add_argument("--rounds", type=int, default=5, help="timings of each, with --against")
    ap.add_argument("--make-positions", action="store_true")
    args = ap.parse_args()
    if args.make_positions:
        make_positions()
        return
    if args.against:
        against(args.against, [int(d) for d in args.depths.split(",")],
                [float(t) for t in args.probcut.split(",") if t], args.rounds,
                args.full_up_to, [float(s) for s in args.seconds.split(",") if s])
        return
    boards = [cy.Board(line) for line in DATA.read_text().split("\n") if line.strip()]
    weights = default_weights()
    search(boards[0], 4, weights)                 # the table's pages, faulted in once
    ref = _reference.reference(1.0)
    perft_s, _ = timed(cy.perft, cy.Board(), 11)
    print(f"{len(boards)} positions, {min(b.empties() for b in boards)}-"
          f"{max(b.empties() for b in boards)} empties; perft(11) {perft_s:.2f} s, the "
          f"yardstick's {ref['perft11_s']:.2f} s ({_reference.ratio(perft_s, ref['perft11_s'])})"
          if ref else f"{len(boards)} positions; perft(11) {perft_s:.2f} s (no yardstick)")
    cuts = [float(t) for t in args.probcut.split(",") if t]
    print(f"{'depth':>5} {'search ms':>10} {'nodes':>10} {'Mn/s':>5} "
          f"{'plain ms':>10} {'nodes':>11} {'Mn/s':>5} {'speed-up':>8}")
    full_by_depth = {}
    for depth in (int(d) for d in args.depths.split(",")):
        if depth > args.full_up_to:
            continue
        ours = [timed(search, b, depth, weights) for b in boards]
        full_by_depth[depth] = [out for _, out in ours]
        t_ours = statistics.mean(t for t, _ in ours)
        n_ours = statistics.mean(out[2] for _, out in ours)
        line = (f"{depth:>5} {t_ours * 1000:>10.1f} {n_ours:>10,.0f} "
                f"{n_ours / t_ours / 1e6:>5.2f}")
        if depth <= args.plain_up_to:
            plain = [timed(reference_search, b, depth, weights) for b in boards]
            t_plain = statistics.mean(t for t, _ in plain)
            n_plain = statistics.mean(out[2] for _, out in plain)
            assert all(a[1][0] == b[1][0] for a, b in zip(ours, plain)), "scores differ"
            line += (f" {t_plain * 1000:>10.1f} {n_plain:>11,.0f} "
                     f"{n_plain / t_plain / 1e6:>5.2f} {t_plain / t_ours:>7.1f}x")
        print(line, flush=True)
    if cuts:
        print(f"\nMulti-ProbCut: {'t':>4} {'depth':>5} {'ms':>8} {'nodes':>10} {'Mn/s':>5} "
              f"{'other move':>10} {'mean |dscore|':>13} {'max':>5}  (against full width)")
    for t in cuts:
        for depth in (int(d) for d in args.depths.split(",")):
            runs = [timed(search, b, depth, weights, t) for b in boards]
            t_cut = statistics.mean(x for x, _ in runs)
            n_cut = statistics.mean(out[2] for _, out in runs)
            line = (f"{'':>14} {t:>4g} {depth:>5} {t_cut * 1000:>8.1f} {n_cut:>10,.0f} "
                    f"{n_cut / t_cut / 1e6:>5.2f}")
            full = full_by_depth.get(depth)
            if full:
                moved = sum(out[1] != f[1] for (_, out), f in zip(runs, full))
                diffs = [abs(out[0] - f[0]) for (_, out), f in zip(runs, full)]
                line += (f" {moved:>4}/{len(boards):<5} {statistics.mean(diffs):>13.2f} "
                         f"{max(diffs):>5.1f}")
            print(line, flush=True)
    print()
    for seconds in (float(s) for s in args.seconds.split(",")):
        for t in [None] + cuts:
            runs = [deepen(b, weights, seconds=seconds, probcut=t) for b in boards]
            depths = [r["depth"] for r in runs]
            print(f"in {seconds:g} s, {'full width' if t is None else f'probcut {t:g}'}: "
                  f"depth {statistics.mean(depths):.1f} on average "
                  f"(min {min(depths)}, max {max(depths)}), "
                  f"{statistics.mean(r['nodes'] / r['elapsed'] for r in runs) / 1e6:.2f} Mn/s, "
                  f"longest {max(r['elapsed'] for r in runs):.2f} s", flush=True)
        for bits in (int(b) for b in args.table_bits.split(",") if b):
            engine = MidgameSearch(weights, bits)
            depths = [depth_in(engine, b, seconds, cuts[0] if cuts else None)
                      for b in boards]
            print(f"in {seconds:g} s, table of 2^{bits} buckets "
                  f"({(2 << bits) * 32 >> 20} MB): depth {statistics.mean(depths):.2f} on "
                  f"average (min {min(depths)}, max {max(depths)})", flush=True)
    for seconds in (float(s) for s in args.player.split(",") if s):
        player_time(boards, seconds, cuts[0] if cuts else None)


def player_time(boards, seconds, probcut):
    """The player's time a move on each position (a fixed time a move: it searches until
    the time is up, and plays a move the unfinished depth proved better): the seconds it
    took, the most beyond its limit, the depth it finished, and how often the unfinished
    depth changed its move."""
    player = cy.AlphaBetaPlayer(time_limit=seconds, probcut=probcut)
    runs, changed = [], 0
    for board in boards:
        runs.append(player.search(board))
        changed += player._alphabeta.search.improved > 0     # the backend's search
    used = [r.elapsed for r in runs]
    print(f"player, {seconds:g} s a move{'' if probcut is None else f', probcut {probcut:g}'}:"
          f" {statistics.mean(used):.3f} s used on average, longest {max(used):.3f} s "
          f"({(max(used) - seconds) * 1000:+.0f} ms), depth "
          f"{statistics.mean(r.depth for r in runs):.1f} finished, the move changed by the "
          f"unfinished depth in {changed}/{len(boards)}", flush=True)


def depth_in(engine, board, seconds, probcut):
    """The deepest iteration ``engine`` finishes on ``board`` within ``seconds`` (a fresh
    table date each position: nothing carried over)."""
    engine.begin(board, probcut)
    end = time.perf_counter() + seconds
    depth = 0
    while depth < 60:
        left = end - time.perf_counter()
        if left <= 0 or not engine.iterate(depth + 1, seconds=left):
            break
        depth += 1
    return depth


if __name__ == "__main__":
    main()
