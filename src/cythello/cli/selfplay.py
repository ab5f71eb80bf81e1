"""``cythello selfplay``: self-play training data, on local worker processes or Ray."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .common import say


def cmd_selfplay(args: argparse.Namespace) -> int:
    from .. import selfplay
    settings = {k: v for k, v in (("iterations", args.iterations),
                                  ("eval_weights", args.eval_weights),
                                  ("leaf_eval", args.leaf_eval)) if v is not None}
    try:
        out = selfplay.generate(
            args.games, args.out, seed=args.seed, workers=args.workers,
            backend="ray" if args.ray is not None else "local", ray_address=args.ray or None,
            games_per_shard=args.games_per_shard, random_plies=args.random_plies,
            temperature=args.temperature, temperature_moves=args.temperature_moves,
            epsilon=args.epsilon, **settings)
    except KeyboardInterrupt:
        kept = len(list(Path(args.out).glob("shard-*.npz")))
        total = -(-args.games // args.games_per_shard) if args.games_per_shard > 0 else 0
        raise KeyboardInterrupt(f"{kept} of {total} shards are complete in {args.out}; the "
                                "same command continues the run") from None
    data = selfplay.load(out)
    say(f"{args.games} games, {len(data['black']):,} positions in {out}")
    return 0


def add_parser(sub: Any) -> None:
    p = sub.add_parser(
        "selfplay", help="generate self-play training data",
        description="Engine-against-itself games recorded position by position (bitboards, "
                    "move, root visit counts, root value, final result) into compressed "
                    ".npz shards; read them with cythello.selfplay.load(DIR).  The same "
                    "seed gives byte-identical shards whatever the worker count or backend; "
                    "an interrupted run continues when started again.")
    p.add_argument("--games", type=int, required=True, help="number of games")
    p.add_argument("--out", required=True, help="directory for the shards")
    p.add_argument("--seed", type=int, default=0, help="seed of the run (default: 0)")
    p.add_argument("--workers", type=int, default=1, help="local worker processes (default: 1)")
    p.add_argument("--ray", nargs="?", const="", metavar="ADDRESS",
                   help="run on Ray (a local Ray, or the cluster at ADDRESS)")
    p.add_argument("--iterations", type=int, help="MCTS iterations per move (default: 400)")
    p.add_argument("--eval-weights", help="'default' or a weights file: search with the "
                                          "learned evaluation")
    p.add_argument("--leaf-eval", type=float, help="weight of the evaluation at the leaves")
    p.add_argument("--random-plies", type=int, default=0,
                   help="uniformly random opening moves, not recorded (default: 0)")
    p.add_argument("--temperature", type=float, default=1.0,
                   help="exploration temperature (default: 1)")
    p.add_argument("--temperature-moves", type=int, default=12,
                   help="first moves drawn in proportion to visits**(1/T) (default: 12)")
    p.add_argument("--epsilon", type=float, default=0.0,
                   help="then a random move with this probability (default: 0)")
    p.add_argument("--games-per-shard", type=int, default=50,
                   help="games per shard file (default: 50)")
    p.set_defaults(func=cmd_selfplay)
