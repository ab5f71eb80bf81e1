"""The opening book: its size, load and lookup times, and how well its values agree with
deeper searches.

    python3 benchmarks/bench_book.py                      # the shipped book
    python3 benchmarks/bench_book.py --book my.cybook --sample 100 --depth 12
    python3 benchmarks/bench_book.py --book d12.cybook --depth 16 --probcut 2   # a deeper book

For ``--sample`` book positions (drawn with ``--seed``, spread over the plies), the book's
value is compared with an alpha-beta search ``--depth`` plies deep with the learned
evaluation (the deeper reference), next to the value of the same search at the book's own
leaf depth (and with the book's own Multi-ProbCut): the mean absolute difference in discs of
each.  ``--probcut`` makes the reference selective too, for books whose leaves are already
deep (a 16-ply search at t = 2 is about as accurate as full width, far faster).  A book's negamax over searched
lines should agree with the deeper search better than one search at its leaf depth does.
"""
import argparse
import random
import sys
import time

from cythello import Board
from cythello.book import Book, default_book
from cythello.eval.weights import default_weights
from cythello.search.internals import midgame_search as search


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--book", help="a book file (default: the shipped book)")
    ap.add_argument("--sample", type=int, default=100, help="positions compared (default 100)")
    ap.add_argument("--depth", type=int, default=12, help="the reference depth (default 12)")
    ap.add_argument("--probcut", type=float, help="the reference's Multi-ProbCut t "
                    "(default: full width)")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()

    start = time.perf_counter()
    book = Book.load(args.book) if args.book else default_book()
    load = time.perf_counter() - start
    stats = book.stats()
    build = stats["header"].get("build", {})
    print(f"book: {len(book):,} positions, {book.nbytes / 2**20:.2f} MB in memory, "
          f"loaded in {load * 1000:.0f} ms; built with {build}")
    print("positions by ply: " + " ".join(f"{p}:{n}" for p, n in stats["by_ply"].items()))

    boards = [Board.from_bitboards(int(r["own"]), int(r["opp"])) for r in book.records]
    rng = random.Random(args.seed)
    start = time.perf_counter()
    probes = [rng.choice(boards).transform(rng.randrange(8)) for _ in range(2000)]
    for b in probes:
        book.entry(b)
    entry_us = (time.perf_counter() - start) / len(probes) * 1e6
    start = time.perf_counter()
    for b in probes[:500]:
        book.moves(b)
    moves_us = (time.perf_counter() - start) / 500 * 1e6
    print(f"lookup: {entry_us:.1f} us a position, {moves_us:.0f} us for a position's moves")

    weights = default_weights()
    leaf_depth = int(build.get("depth", 8)) if isinstance(build, dict) else 8
    leaf_cut = build.get("probcut") if isinstance(build, dict) else None
    sample = rng.sample(boards, min(args.sample, len(boards)))
    book_err, leaf_err, started = [], [], time.perf_counter()
    by_ply = {}
    for b in sample:
        deep = search(b, args.depth, weights, args.probcut)[0]
        shallow = search(b, leaf_depth, weights, leaf_cut)[0]
        value = book.value(b)
        book_err.append(abs(value - deep))
        leaf_err.append(abs(shallow - deep))
        by_ply.setdefault(64 - b.empties() - 4, []).append(abs(value - deep))
    n = len(sample)
    cut = f" (Multi-ProbCut {args.probcut:g})" if args.probcut else ""
    print(f"{n} positions against depth {args.depth}{cut} "
          f"({time.perf_counter() - started:.0f} s): "
          f"book values differ by {sum(book_err) / n:.2f} discs on average, one depth-"
          f"{leaf_depth} search by {sum(leaf_err) / n:.2f}")
    print("book's difference by ply: " + " ".join(
        f"{p}:{sum(v) / len(v):.1f}(n={len(v)})" for p, v in sorted(by_ply.items())))
    return 0


if __name__ == "__main__":
    sys.exit(main())
