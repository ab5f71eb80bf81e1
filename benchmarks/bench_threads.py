"""Thread scaling of the search: iterations/s of the expert preset's search (evaluated
leaves, minimax backups) of a midgame position by thread count, for one shared tree
(``parallel="tree"``), a tree per thread (``"root"``) and hybrids (several shared trees of
a few threads each, searched at once, as a player would merge them at the root), and a
sweep of the shared tree's batching (hot-node threshold, flush interval, whether a
thread's selection sees its own batched updates) at the largest
thread count; then the PUCT search's simulations/s (``PUCTPlayer(threads=n)`` guided by
the shipped pattern evaluation, one shared tree) by thread count; with ``--search levels``
the expert level's PUCT and the alpha-beta player's lazy SMP.  Meant for a many-core
machine; the cores' cache round trip is printed before and after (a virtual machine's
cores can move).

    python3 benchmarks/bench_threads.py --threads 1,2,4,8,16 --seconds 1.5
    python3 benchmarks/bench_threads.py --threads 1,2 --no-sweep       # two cores
    python3 benchmarks/bench_threads.py --threads 1,2 --search puct
    python3 benchmarks/bench_threads.py --threads 1,2 --search levels --seconds 1  # expert, alpha-beta
    python3 benchmarks/bench_threads.py ... --json out.json            # the rows, for notes
"""
import argparse
import json
import threading
import time

from _reference import core_round_trip_ns

import cythello as cy
from cythello.nn import PatternEvaluator
from cythello.search.internals import SearchTree, shared_tree_tuning
from cythello.search.settings import DEFAULT_MAX_NODES
from cythello.search.uct import SearchSettings

MIDGAME = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")


def round_trip_line():
    trip = core_round_trip_ns()
    return ("core-to-core round trip: " + (f"{trip:.0f} ns" if trip else "n/a (no C compiler)")
            + " (a shared tree's scaling depends on it)")


def rate(trees, threads_each, seconds, board=MIDGAME):
    """Iterations/s of ``trees`` trees searched at once for ``seconds``, each shared by
    ``threads_each`` threads (trees=threads, threads_each=1: root parallel), each with the
    node cap a player gives it (recycled when full); and the root visits' spread, as the
    share of the most visited root move (a sign of the threads piling into one line)."""
    settings = SearchSettings.preset("expert", iterations=None, time_limit=seconds,
                                     threads=threads_each, seed=1,
                                     max_nodes=DEFAULT_MAX_NODES * threads_each)
    forest = [SearchTree(board, settings.replace(seed=1 + i)) for i in range(trees)]
    done = [0] * trees
    deadline = time.monotonic() + seconds

    def work(i):
        done[i] = forest[i].run(None, deadline)[0]

    start = time.perf_counter()
    workers = [threading.Thread(target=work, args=(i,)) for i in range(trees)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    elapsed = time.perf_counter() - start
    visits = {}
    for tree in forest:
        for child in tree.child_stats():
            visits[child.move] = visits.get(child.move, 0) + child.visits
    return {"it_s": sum(done) / elapsed, "nodes": sum(t.nodes for t in forest),
            "top_share": max(visits.values()) / max(1, sum(visits.values()))}


def layouts(threads):
    """(name, trees, threads per tree) for a thread count: shared, root, and the hybrids
    of 2, 4 and 8 threads a tree that differ from both."""
    out = [("tree", 1, threads)]
    if threads > 1:
        out.append(("root", threads, 1))
    for group in (2, 4, 8):
        if 1 < group < threads and threads % group == 0:
            out.append((f"{threads // group}x{group}", threads // group, group))
    return out


def scaling(thread_counts, seconds, rows):
    print(f"{'threads':>8}{'layout':>8}{'it/s':>13}{'speed-up':>10}{'per thread':>11}"
          f"{'top move':>10}")
    base = None
    for threads in thread_counts:
        for name, trees, each in layouts(threads):
            r = rate(trees, each, seconds)
            base = base or r["it_s"]
            rows.append({"table": "scaling", "threads": threads, "layout": name, **r})
            print(f"{threads:>8}{name:>8}{r['it_s']:>13,.0f}{r['it_s'] / base:>9.2f}x"
                  f"{r['it_s'] / base / threads:>10.0%}{r['top_share']:>10.0%}", flush=True)
    return base


def puct_scaling(thread_counts, seconds, rows):
    """PUCT simulations/s by thread count: a player's timed search of the midgame
    position (its chunks of C work and the Python between them included)."""
    print(f"PUCT (pattern evaluation), one shared tree (the player's default node cap, "
          f"recycled when full):\n{'threads':>8}{'sims/s':>13}{'speed-up':>10}"
          f"{'per thread':>11}{'top move':>10}{'nodes':>12}{'recycled':>10}")
    base = None
    for threads in thread_counts:
        player = cy.PUCTPlayer(PatternEvaluator(), time_limit=seconds, threads=threads)
        result = player.search(MIDGAME)
        sims = result.iterations / result.elapsed
        base = base or sims
        top = max(m.visits for m in result.moves) / max(1, result.root_visits)
        rows.append({"table": "puct", "threads": threads, "sims_s": sims,
                     "nodes": result.nodes, "top_share": top, "recycled": player.recycled})
        print(f"{threads:>8}{sims:>13,.0f}{sims / base:>9.2f}x{sims / base / threads:>10.0%}"
              f"{top:>10.0%}{result.nodes:>12,}{player.recycled:>10}", flush=True)


def level_scaling(thread_counts, seconds, rows):
    """The searches as the levels and the alpha-beta player run them, by thread count: the
    expert's PUCT (depth-2 leaf searches, ``level_player("expert", threads=n)``) in
    simulations/s, and ``AlphaBetaPlayer(threads=n)`` (lazy SMP) in nodes/s and the depth it
    finished, each a timed search of the midgame position and of two balanced openings
    (fresh players; beside: the most a search ran past its time, and the seconds from
    ``stop()``, called from another thread 0.3 s into a 30 s search, to its return)."""
    from cythello.openings import balanced_openings
    from cythello.players import level_player
    boards = [MIDGAME] + list(balanced_openings(2, seed=5))
    makers = {"expert (PUCT, depth-2 leaves)": (
                  lambda n, t: level_player("expert", seed=1, time_limit=t, threads=n),
                  "sims/s", lambda r: r.iterations),
              "alpha-beta (lazy SMP, ProbCut 1.5)": (
                  lambda n, t: cy.AlphaBetaPlayer(time_limit=t, threads=n),
                  "nodes/s", lambda r: r.nodes)}
    for name, (make, unit, work) in makers.items():
        print(f"{name}, {seconds:g} s a search of {len(boards)} positions:\n{'threads':>8}"
              f"{unit:>13}{'speed-up':>10}{'per thread':>11}{'depth':>7}{'overrun':>9}"
              f"{'stop':>8}")
        base = None
        for threads in thread_counts:
            done = elapsed = depth = over = 0.0
            for board in boards:
                result = make(threads, seconds).search(board)
                done += work(result)
                elapsed += result.elapsed
                depth += result.depth or 0
                over = max(over, result.elapsed - seconds)
            speed = done / elapsed
            base = base or speed
            stop = stop_latency(make(threads, 30.0))
            rows.append({"table": name, "threads": threads, "rate": speed,
                         "depth": depth / len(boards), "overrun_s": over, "stop_s": stop})
            print(f"{threads:>8}{speed:>13,.0f}{speed / base:>9.2f}x"
                  f"{speed / base / threads:>10.0%}{depth / len(boards):>7.1f}"
                  f"{over * 1000:>7.0f}ms{stop * 1000:>6.0f}ms", flush=True)


def stop_latency(player, after=0.3):
    """Seconds from ``player.stop()``, called from another thread ``after`` s into a
    search of the midgame position, to the search's return."""
    stopped = []
    timer = threading.Timer(after, lambda: (stopped.append(time.monotonic()), player.stop()))
    timer.start()
    player.search(MIDGAME)
    returned = time.monotonic()
    timer.join()
    return returned - stopped[0]


def sweep(threads, seconds, base, rows):
    """The shared tree at ``threads`` threads with other batching constants."""
    print(f"shared tree, {threads} threads, by hot-node threshold (visits a thread), flush "
          "interval (iterations) and whether selection sees the thread's own batch:")
    print(f"{'hot':>6}{'flush':>7}{'own':>5}{'it/s':>13}{'speed-up':>10}{'top move':>10}")
    try:
        for hot in (32, 128, 512, 2048):
            for flush in (16, 64, 256):
                for own in (True, False):
                    shared_tree_tuning(hot, flush, own)
                    r = rate(1, threads, seconds)
                    rows.append({"table": "sweep", "threads": threads, "hot": hot,
                                 "flush": flush, "own": own, **r})
                    print(f"{hot:>6}{flush:>7}{'yes' if own else 'no':>5}"
                          f"{r['it_s']:>13,.0f}{r['it_s'] / base:>9.2f}x"
                          f"{r['top_share']:>10.0%}", flush=True)
    finally:
        shared_tree_tuning()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", default="1,2", help="thread counts (default: 1,2)")
    ap.add_argument("--seconds", type=float, default=1.5, help="each measurement's time")
    ap.add_argument("--no-sweep", action="store_true", help="no sweep of the batching")
    ap.add_argument("--search", choices=("uct", "puct", "both", "levels", "all"),
                    default="both",
                    help="which search's scaling: the UCT tree, PUCT with depth-1 leaves "
                         "(both: these two, the default), the expert's PUCT and the "
                         "alpha-beta player (levels), or all")
    ap.add_argument("--json", help="also write the rows to this file")
    args = ap.parse_args()
    counts = [int(t) for t in args.threads.split(",")]
    rows = []
    print(round_trip_line(), flush=True)
    if args.search in ("uct", "both", "all"):
        base = scaling(counts, args.seconds, rows)
        if not args.no_sweep and max(counts) > 1:
            sweep(max(counts), args.seconds, base, rows)
        again = rate(1, 1, args.seconds)["it_s"]
        print(f"one thread again: {again:,.0f} it/s ({again / base:.2f}x the first)")
    if args.search in ("puct", "both", "all"):
        puct_scaling(counts, args.seconds, rows)
    if args.search in ("levels", "all"):
        level_scaling(counts, args.seconds, rows)
    print(round_trip_line())
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
