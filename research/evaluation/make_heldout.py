"""Build the held-out test set of the evaluation benchmark: positions from self-play games
that training never sees (their own seed; any position also found in a training run is
dropped by bench_eval), with exact scores from the endgame solver.

    python3 research/evaluation/make_heldout.py --empties 14-23 --per-empties 40
    python3 research/evaluation/make_heldout.py --empties 24-30 --per-empties 20 --append
    python3 research/evaluation/make_heldout.py --puct --empties 17-24 --per-empties 60 --games 800 \
        --out benchmarks/data/heldout-puct-deep.txt
    python3 research/evaluation/make_heldout.py --strong --empties 14-24 --per-empties 40 --games 400 \
        --out benchmarks/data/heldout-strong.txt
    python3 research/evaluation/make_heldout.py --strong --empties 25-26 --per-empties 20 --games 400 \
        --threads 2 --append --out benchmarks/data/heldout-strong.txt

Writes ``benchmarks/data/heldout.txt`` (or ``--out``): one position per line, the board
string and the exact final disc difference for the side to move.  Solving 24-30 empties
takes a while.  ``--puct`` takes the positions from PUCT self-play guided by 0.2.0's
weights, as the training pipeline's full preset plays it, with off-path positions (one
random move away) as training has them: the kind of positions 0.3.0's weights were
trained on, from a seed no training run uses.  ``--strong`` takes them from games of the
expert search (50,000 iterations a move, exact from 20 empties, the shipped evaluation of
the day) after 8 uniformly random moves, no off-path positions: positions of well-played
games, as the accuracy the best engines report is measured on (Egaroucid's test games:
strong self-play after at most 12 random moves), closer and less lopsided than self-play
with exploration.
"""
import argparse
import random
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

import cythello as cy
from cythello import selfplay
from cythello.search.internals import Solver
from cythello.training.data import empties_of, side_to_move

OUT = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "heldout.txt"
SEED = 424242                      # never a training seed (those are preset.seed * 1000 + r)
PUCT_SEED = 103                    # nor this (heldout-puct.txt's games used 101 and 102)
STRONG_SEED = 2026
STRONG_ITERATIONS = 50_000
BASELINE = Path(__file__).resolve().parents[2] / "benchmarks" / "data" / "eval-0.2.0.weights"


def puct_positions(games, tmp):
    """Positions of PUCT self-play guided by 0.2.0's weights (the training's full preset's
    games) and as many off-path positions as training adds, side to move first."""
    from cythello.eval import load_weights
    from cythello.nn import PatternEvaluator
    from cythello.training.data import off_path
    selfplay.generate(games, tmp, seed=PUCT_SEED, workers=2, games_per_shard=50,
                      evaluator=PatternEvaluator(load_weights(BASELINE)), batch_games=64,
                      iterations=100, dirichlet_alpha=0.5, dirichlet_fraction=0.25,
                      temperature_moves=16, epsilon=0.03, progress=False)
    own, opp = side_to_move(selfplay.load(tmp))
    extra_own, extra_opp = off_path(own, opp, 0.5, PUCT_SEED)
    return np.concatenate([own, extra_own]), np.concatenate([opp, extra_opp])


def strong_positions(games, tmp):
    """Positions of expert self-play (a fixed iteration budget, so the games do not depend
    on the machine's speed) after 8 uniformly random moves, side to move first."""
    from cythello.search.presets import PRESETS
    expert = {**{k: v for k, v in PRESETS["expert"].items() if k != "time_limit"},
              "iterations": STRONG_ITERATIONS, "endgame_empties": 20, "endgame_by_time": False}
    selfplay.generate(games, tmp, seed=STRONG_SEED, workers=2, games_per_shard=10,
                      random_plies=8, progress=False, **expert)
    return side_to_move(selfplay.load(tmp))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--empties", default="14-23", help="range of empty squares, e.g. 14-23")
    ap.add_argument("--per-empties", type=int, default=40)
    ap.add_argument("--games", type=int, default=600)
    ap.add_argument("--append", action="store_true", help="add to the existing file")
    ap.add_argument("--threads", type=int, default=1, help="solver threads")
    source = ap.add_mutually_exclusive_group()
    source.add_argument("--puct", action="store_true",
                        help="positions of PUCT self-play and off-path ones (see above)")
    source.add_argument("--strong", action="store_true",
                        help="positions of expert self-play after random openings (see above)")
    ap.add_argument("--out", type=Path, default=OUT, help="the file to write")
    args = ap.parse_args()
    lo, hi = (int(x) for x in args.empties.split("-"))
    with tempfile.TemporaryDirectory() as tmp:
        if args.puct:
            own, opp = puct_positions(args.games, tmp)
        elif args.strong:
            own, opp = strong_positions(args.games, tmp)
        else:
            selfplay.generate(args.games, tmp, seed=SEED, workers=2, games_per_shard=50,
                              iterations=400, rollout="heuristic", progressive_bias=4.0,
                              temperature_moves=12, epsilon=0.03, progress=False)
            own, opp = side_to_move(selfplay.load(tmp))
    empties = empties_of(own, opp)
    rng = random.Random(PUCT_SEED if args.puct else STRONG_SEED if args.strong else SEED)
    lines = args.out.read_text().splitlines() if args.append and args.out.exists() else []
    seen = {line.rsplit(" ", 1)[0] for line in lines}
    solver = Solver(threads=args.threads)
    for e in range(lo, hi + 1):
        idx = [i for i in np.flatnonzero(empties == e)]
        rng.shuffle(idx)
        done = 0
        start = time.monotonic()
        for i in idx:
            board = cy.Board.from_bitboards(int(own[i]), int(opp[i]), cy.BLACK)
            text = board.board_string()
            if text in seen or board.is_game_over():
                continue
            score = cy.solve(board, solver=solver).score
            seen.add(text)
            lines.append(f"{text} {score:+d}")
            done += 1
            if done == args.per_empties:
                break
        print(f"{e} empties: {done} positions in {time.monotonic() - start:.1f} s", flush=True)
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    sys.exit(main())
