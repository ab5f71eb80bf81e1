"""Search benchmark: MCTS iterations/s (start and midgame, one thread), bytes per node,
tree overhead against bare playouts, and the scaling of root- and tree-parallel search with
the thread count (``bench_threads.py``'s table; that script also sweeps the shared tree's
batching on a many-core machine), beside the portable-C yardstick's minimal UCT from the
same run.

    python3 benchmarks/bench_search.py [--seconds 2] [--threads 1,2]
    python3 benchmarks/bench_search.py --options-only    # it/s and bytes per node by option
    python3 benchmarks/bench_search.py --by-time 1,5,30,60   # long searches: pool and memory
    python3 benchmarks/bench_search.py --by-time 1,5,30,60 --search puct   # the same, PUCT

The scaling table searches the midgame position with the expert preset's settings
(evaluated leaves, minimax backups), where the iteration is what a player spends its time
on.
"""
import argparse
import json
import resource
import subprocess
import sys
import time

from _reference import ratio, reference
from bench_threads import scaling

import cythello as cy
from cythello.eval import default_weights
from cythello.nn import PatternEvaluator
from cythello.search.internals import (
    AMAF_BYTES_PER_NODE,
    NODE_BYTES,
    TABLE_BYTES_PER_NODE,
    SearchTree,
)
from cythello.search.settings import DEFAULT_MAX_NODES
from cythello.search.uct import SearchSettings

MIDGAME = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")


def iterations_per_second(board, seconds, rollout="random"):
    tree = SearchTree(board, SearchSettings.preset("classic", seed=1, rollout=rollout,
                                                   max_nodes=50_000_000))
    start = time.perf_counter()
    done, _ = tree.run(None, time.monotonic() + seconds)
    return done / (time.perf_counter() - start)


def playouts_per_second(board, seconds, policy="random"):
    n, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        cy.random_playouts(board, 1000, seed=n, policy=policy)
        n += 1000
    return n / (time.perf_counter() - start)


# The search options, each on top of the presets' settings, with their bytes per node.
OPTIONS = [("none", {}, NODE_BYTES),
           ("transpositions", {"transpositions": True}, NODE_BYTES + TABLE_BYTES_PER_NODE),
           ("rave 300", {"rave": 300.0}, NODE_BYTES + AMAF_BYTES_PER_NODE),
           ("widening 1", {"widening": 1.0}, NODE_BYTES),
           ("progressive bias 1", {"progressive_bias": 1.0}, NODE_BYTES)]


def options_table(seconds):
    """Midgame it/s of one thread with each option, bytes per node, and for transpositions
    the share of expansions that found their position already expanded."""
    print(f"{'option':<22}{'it/s':>12}{'vs none':>9}{'bytes/node':>12}{'transpositions':>16}")
    base = None
    settings = dict(eval_weights=default_weights(), leaf_eval=1.0, minimax_weight=0.7,
                    exploration=1.0, max_nodes=20_000_000)
    for name, option, node_bytes in OPTIONS:
        tree = SearchTree(MIDGAME, seed=1, **settings, **option)
        start = time.perf_counter()
        done, _ = tree.run(None, time.monotonic() + seconds)
        rate = done / (time.perf_counter() - start)
        base = base or rate
        share = (f"{tree.links / (tree.links + tree.expansions):.1%}"
                 if tree.transpositions else "")
        print(f"{name:<22}{rate:>12,.0f}{rate / base:>8.2f}x{node_bytes:>12g}{share:>16}",
              flush=True)


def time_overrun_ms(threads, searches=20):
    """How far past a 100 ms limit searches end (median, max), in milliseconds."""
    player = cy.MCTSPlayer.preset("classic", time_limit=0.1, threads=threads, seed=1)
    over = []
    for _ in range(searches):
        start = time.monotonic()
        player.search(MIDGAME)
        over.append((time.monotonic() - start - 0.1) * 1000)
    return sorted(over)[len(over) // 2], max(over)


def one_search(seconds, recycle, max_nodes=None, search="expert"):
    """The expert preset's search (or PUCT guided by the pattern evaluation) of the
    midgame position for ``seconds`` (no iteration cap, as ``--time`` gives it), in this
    process: what it ran, and the process's peak memory (run in a fresh process for
    each)."""
    nodes = {"max_nodes": max_nodes} if max_nodes else {}
    if search == "puct":
        player = cy.PUCTPlayer(PatternEvaluator(), time_limit=seconds, seed=1,
                               recycle=recycle, **nodes)
    else:
        player = cy.MCTSPlayer.preset("expert", time_limit=seconds, iterations=None, seed=1,
                                      recycle=recycle, **nodes)
    result = player.search(MIDGAME)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    recycled = player.recycled if search == "puct" else player._trees[0].recycled
    return {"iterations": result.iterations, "elapsed": result.elapsed, "nodes": result.nodes,
            "reason": str(result.stop_reason), "recycled": recycled,
            "rss_mb": peak / (2**20 if sys.platform == "darwin" else 2**10),
            "best": result.best_move_name,
            "best_share": result.moves[0].visits / max(1, result.root_visits)}


def by_time_table(times, search="expert"):
    """Long searches with and without recycling: the iterations a search gets for its
    time, its nodes, why it stopped, and the process's peak memory (each in a fresh
    process, one after another)."""
    what = "PUCT, pattern evaluation" if search == "puct" else "expert preset"
    print(f"{what}, one thread, midgame position, {DEFAULT_MAX_NODES:,}"
          " nodes a tree (96 MB):")
    print(f"{'time':>6}{'recycle':>9}{'iterations':>13}{'searched s':>12}{'it/s':>11}"
          f"{'nodes':>11}{'recycled':>10}{'stop':>11}{'peak RSS':>10}{'best':>6}")
    for seconds in times:
        # Recycling, stopping when full, and (for the cost of recycling) a pool ten times
        # larger.
        for recycle, nodes in ((True, None), (False, None), (True, 10 * DEFAULT_MAX_NODES)):
            out = subprocess.run([sys.executable, __file__, "--one-search", str(seconds),
                                  "1" if recycle else "0", str(nodes or 0), search],
                                 capture_output=True, text=True, check=True)
            r = json.loads(out.stdout)
            mode = ("on" if recycle else "off") + (" 10x" if nodes else "")
            print(f"{seconds:>5g}s{mode:>9}{r['iterations']:>13,}"
                  f"{r['elapsed']:>12.2f}{r['iterations'] / r['elapsed']:>11,.0f}"
                  f"{r['nodes']:>11,}{r['recycled']:>10}{r['reason']:>11}"
                  f"{r['rss_mb']:>8.0f}MB{r['best']:>6}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--threads", default="1,2", help="thread counts for the scaling table")
    ap.add_argument("--options-only", action="store_true",
                    help="only the table of search options")
    ap.add_argument("--by-time", metavar="SECONDS,...",
                    help="only the table of long searches (e.g. 1,5,30,60)")
    ap.add_argument("--search", choices=("expert", "puct"), default="expert",
                    help="--by-time: the expert preset or PUCT with the pattern evaluation")
    ap.add_argument("--one-search", nargs=4, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one_search:
        seconds, recycle, nodes, search = args.one_search
        print(json.dumps(one_search(float(seconds), recycle == "1", int(nodes) or None,
                                    search)))
        return
    if args.by_time:
        by_time_table([float(t) for t in args.by_time.split(",")], args.search)
        return
    s = args.seconds
    thread_counts = [int(t) for t in args.threads.split(",")]
    if args.options_only:
        options_table(s)
        return
    ref = reference(s) or {}
    uct_ref = ref.get("uct_iters_per_s")
    start_rate = iterations_per_second(cy.Board(), s)
    mid_rate = iterations_per_second(MIDGAME, s)
    heur_rate = iterations_per_second(cy.Board(), s, "heuristic")
    bare = playouts_per_second(cy.Board(), s)
    print(f"playout build in use: {cy.build_info()['rules_path']} "
          "(CYTHELLO_PORTABLE=1 measures the portable one)")
    print(f"{'figure':<40}{'cythello':>12}{'C reference':>14}{'ratio':>8}")
    print(f"{'MCTS iterations/s, start (random)':<40}{start_rate:>12,.0f}{uct_ref or 0:>14,.0f}"
          f"{ratio(start_rate, uct_ref):>8}")
    print(f"{'MCTS iterations/s, midgame (random)':<40}{mid_rate:>12,.0f}")
    print(f"{'MCTS iterations/s, start (heuristic)':<40}{heur_rate:>12,.0f}")
    print(f"{'bytes per node':<40}{NODE_BYTES:>12}{ref.get('uct_bytes_per_node', 0):>14}")
    print(f"{'tree overhead (1 - it/s / playouts/s)':<40}{1 - start_rate / bare:>12.1%}")
    for threads in (1, 2):
        med, worst = time_overrun_ms(threads)
        print(f"{f'100 ms limit overrun, {threads} thread(s)':<40}"
              f"{f'{med:.2f} ms median, {worst:.2f} max':>26}")
    print("\nmidgame, evaluated leaves (the presets' settings), one thread, each option:")
    options_table(s)
    print("\nmidgame, evaluated leaves (the presets' settings):")
    scaling(thread_counts, s, [])


if __name__ == "__main__":
    main()
