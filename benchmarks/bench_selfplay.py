"""Self-play throughput: positions per second with 1 and 2 local workers (and more, on a
bigger machine), and on a local Ray cluster, measured in one run; the shards of every run
are compared byte for byte.

    python3 benchmarks/bench_selfplay.py [--games 200] [--workers 1,2] [--ray]
"""
import argparse
import hashlib
import sys
import tempfile
import time
from pathlib import Path

from cythello import selfplay

SETTINGS = dict(iterations=400, eval_weights="default", leaf_eval=1.0, minimax_weight=0.5,
                temperature_moves=12, epsilon=0.03, games_per_shard=10, progress=False)


def digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.glob("shard-*.npz")):
        h.update(p.read_bytes())
    return h.hexdigest()[:16]


def run(games, out, **kw):
    start = time.perf_counter()
    selfplay.generate(games, out, seed=1, **SETTINGS, **kw)
    elapsed = time.perf_counter() - start
    positions = len(selfplay.load(out)["black"])
    return positions / elapsed, elapsed, positions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--workers", default="1,2")
    ap.add_argument("--ray", action="store_true", help="also on ray.init(num_cpus=2)")
    args = ap.parse_args()
    base = None
    with tempfile.TemporaryDirectory() as tmp:
        for w in (int(x) for x in args.workers.split(",")):
            out = Path(tmp) / f"w{w}"
            rate, elapsed, n = run(args.games, out, workers=w)
            base = base or rate
            print(f"{w} local worker(s): {n:,} positions in {elapsed:.1f} s = {rate:,.0f}/s "
                  f"({rate / base:.2f}x), shards {digest(out)}", flush=True)
        if args.ray:
            import ray
            ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
            out = Path(tmp) / "ray"
            rate, elapsed, n = run(args.games, out, backend="ray")
            print(f"Ray, num_cpus=2: {n:,} positions in {elapsed:.1f} s = {rate:,.0f}/s "
                  f"({rate / base:.2f}x), shards {digest(out)}", flush=True)
            ray.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
