"""Do training's off-path positions help the evaluation?  The training pipeline adds one
off-path position (one random move away from a game) for every two game positions; the
shipped weights lean toward the side to move on positions of well-played games
(``heldout-strong.txt``: +0.8 discs on average), and positions just after a random move
usually favour the side to move.  This fits the 13-16-empties stage with the training's
fitter (ridge 10, no neighbour prior) to exact scores of new PUCT self-play positions, the
off-path ones weighted 1, 0.5, 0.25 and 0, and reports the error and the mean error (the
lean) on both held-out kinds: exploring PUCT self-play (``heldout-puct.txt``, 13-16
empties) and expert games (``heldout-strong.txt``, 14-16).

    python3 research/evaluation/off_path.py --games 12000     # about 6 minutes on 2 cores

The self-play is the training's (and capacity.py's) PUCT self-play guided by the
shipped weights, seed 778 (no training run or held-out set uses it); held-out positions
are dropped from the fit.
"""
import argparse
import time

import numpy as np
from _evaldata import STAGE, held_out, judged, labelled_positions

from cythello.training.fit import fit_stage, packed_features, predict

WEIGHTS = (1.0, 0.5, 0.25, 0.0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--games", type=int, default=12000, help="self-play games (default 12,000)")
    args = ap.parse_args()
    started = time.monotonic()
    own, opp, flag, y = labelled_positions(args.games)
    print(f"{len(y):,} positions of {STAGE[0]}-{STAGE[1]} empties ({int(flag.sum()):,} off-path), "
          f"exact scores, {time.monotonic() - started:.0f} s; mean |score| on the games' path "
          f"{np.abs(y[~flag]).mean():.1f}, off it {np.abs(y[flag]).mean():.1f}")
    held = held_out()
    feats = packed_features(own, opp)
    print(f"{'off-path weight':>15}  {'train MAE on / off path':>23}"
          + "".join(f"  {name + ': MAE, mean error':>40}" for name, _, _ in held))
    for weight in WEIGHTS:
        sw = np.where(flag, weight, 1.0)
        used = sw > 0
        w = fit_stage(feats[used], y[used], 10.0, sample_weight=sw[used])
        p = predict(w, feats)
        train = f"{np.abs(p[~flag] - y[~flag]).mean():.2f} / {np.abs(p[flag] - y[flag]).mean():.2f}"
        print(f"{weight:>15g}  {train:>23}" + "".join(f"  {c:>40}" for c in judged(w, held)),
              flush=True)


if __name__ == "__main__":
    main()
