"""The evaluation benchmark: speed, held-out accuracy against exact scores, weights size.

    python3 benchmarks/bench_eval.py [--weights FILE] [--baseline FILE]

Accuracy: mean absolute error (discs) on ``benchmarks/data/heldout.txt`` (self-play
positions with exact solver scores, never used in training; see research/evaluation/make_heldout.py), per
stage, next to the error of the hand-set square tables cythello used before (the heuristic
rollout's weights and the progressive-bias prior), each scaled by its best least-squares
factor and offset so that it is judged at its best.
"""
import argparse
import time
from pathlib import Path

import numpy as np

import cythello as cy
from cythello.eval import load_weights, patterns
from cythello.records.obf import read_obf
from cythello.search.internals import EVAL_BUILD
from cythello.training.calibrate import consistency

HELDOUT = Path(__file__).resolve().parent / "data" / "heldout.txt"


def read_heldout(path):
    """``(board, exact score)`` of each line of a held-out file (one board string and its
    exact score a line: research/evaluation/make_heldout.py's format)."""
    rows = [line.rsplit(" ", 1) for line in Path(path).read_text().splitlines() if line.strip()]
    return [(cy.Board(text), int(score)) for text, score in rows]
# Positions with 13-16 empties from PUCT self-play guided by 0.2.0's weights (seeds 101 and
# 102; the training pipeline's are seed * 1000 + round), off-path ones included, and their
# exact scores: the kind of positions 0.3.0's weights were trained on.
HELDOUT_PUCT = Path(__file__).resolve().parent / "data" / "heldout-puct.txt"
# The same kind of positions with 17-24 empties (seed 103), where the labels of training
# are bootstrapped searches, not exact: research/evaluation/make_heldout.py --puct --empties 17-24.
HELDOUT_PUCT_DEEP = Path(__file__).resolve().parent / "data" / "heldout-puct-deep.txt"
# Positions with 14-26 empties of expert self-play after 8 random moves (seed 2026): well-
# played games, as the best engines' reported accuracy is measured on (research/evaluation/make_heldout.py
# --strong).
HELDOUT_STRONG = Path(__file__).resolve().parent / "data" / "heldout-strong.txt"
BASELINE = Path(__file__).resolve().parent / "data" / "eval-0.2.0.weights"
FFO = Path(__file__).resolve().parent.parent / "tests" / "data"


def square_tables():
    """The two hand-set square tables: the heuristic rollout's move weights (corner 400,
    edge 40, inner 16; X-square 1 and C-square 3 while their corner is empty) and the
    progressive-bias prior (corner 1, edge 0.4, centre 0.3, other 0.2; X/C squares of an
    empty corner 0), as in search/uct/_playout_impl.pxi and search/uct/_tree.pyx."""
    rollout, prior = np.zeros(64), np.zeros(64)
    for sq in range(64):
        r, c = divmod(sq, 8)
        edge_r, edge_c = r in (0, 7), c in (0, 7)
        rollout[sq] = 400 if edge_r and edge_c else 40 if edge_r or edge_c else 16
        prior[sq] = (1.0 if edge_r and edge_c else 0.4 if edge_r or edge_c
                     else 0.3 if 2 <= r <= 5 and 2 <= c <= 5 else 0.2)
    zones = {0: (1, 8, 9), 7: (6, 15, 14), 56: (48, 57, 49), 63: (55, 62, 54)}
    return rollout, prior, zones


def square_score(board, table, zones, danger_value):
    own, opp = board.position()
    empty = ~(own | opp) & 0xFFFFFFFFFFFFFFFF
    w = table.copy()
    for corner, squares in zones.items():
        if empty >> corner & 1:
            for sq in squares:
                w[sq] = danger_value(sq)
    bits = lambda b: np.array([(b >> i) & 1 for i in range(64)], dtype=float)  # noqa: E731
    return float(w @ bits(own) - w @ bits(opp))


def best_scaled_mae(x, y):
    a = np.vstack([x, np.ones_like(x)]).T
    coef, *_ = np.linalg.lstsq(a, y, rcond=None)
    return float(np.abs(a @ coef - y).mean())


def side_to_move_bias(weights, boards):
    """Static value minus the 1-ply negamax value, by empties: about 0 for an evaluation
    that agrees with itself one move later; a positive mean says it favours the side to
    move by half that (the odd-even effect that bootstrapped labels can build up, which
    the training's calibration step removes)."""
    gaps = consistency(weights, boards)
    rows = {}
    for e, (gap, n) in gaps.items():
        rows.setdefault(4 * (e // 4), []).append((gap, n))
    means = {e: sum(g * n for g, n in v) / sum(n for _, n in v) for e, v in rows.items()}
    print("\nstatic minus 1-ply value (discs; 0 when the evaluation agrees with itself):")
    print("  empties " + " ".join(f"{e:>5}" for e in sorted(means)))
    print("  mean    " + " ".join(f"{means[e]:>5.1f}" for e in sorted(means)))


def heldout_by_empties(path, weights, base, games):
    """MAE against the exact scores of a held-out file, by empties, next to the
    baseline's and to the mean absolute score (the error of always saying "a draw"),
    which shows how lopsided the positions are; and the mean error (evaluation minus
    exact score: above 0, it leans toward the side to move)."""
    held = read_heldout(path)
    boards = [b for b, _ in held]
    y = np.array([s for _, s in held], dtype=float)
    e = np.array([b.empties() for b in boards])
    ev = np.array([weights.evaluate(b) for b in boards])
    ev0 = np.array([base.evaluate(b) for b in boards])
    print(f"\n{path.name}: MAE in discs against exact scores ({len(y)} positions "
          f"of {games}, seeds no training run uses)")
    print(f"{'empties':>9} {'n':>5} {'patterns':>9} {'baseline':>9} {'mean |score|':>13}"
          f"{'mean error':>11}")
    for lo, hi in [(k, k) for k in range(int(e.min()), int(e.max()) + 1)] + \
            [(int(e.min()), int(e.max()))]:
        m = (e >= lo) & (e <= hi)
        if m.any():
            print(f"{lo if lo == hi else f'{lo}-{hi}':>9} {int(m.sum()):>5} "
                  f"{np.abs(ev[m] - y[m]).mean():>9.2f} {np.abs(ev0[m] - y[m]).mean():>9.2f} "
                  f"{np.abs(y[m]).mean():>13.2f}{(ev[m] - y[m]).mean():>+11.2f}")
    close = np.abs(y) <= 10           # the positions whose result is still open
    print(f"{'|y|<=10':>9} {int(close.sum()):>5} {np.abs(ev[close] - y[close]).mean():>9.2f} "
          f"{np.abs(ev0[close] - y[close]).mean():>9.2f}   (within 10 discs of a draw)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--weights", help="weights file (default: the shipped weights)")
    ap.add_argument("--baseline", default=str(BASELINE),
                    help="weights to compare with (default: cythello 0.2.0's)")
    args = ap.parse_args()
    weights = load_weights(args.weights)
    info = weights.info
    print(f"weights: {info.get('file')}, trained by {info.get('trained_by')} in "
          f"{info.get('seconds')} s from {info.get('positions', 0):,} positions; "
          f"file {Path(cy.eval.weights.DEFAULT_PATH if not args.weights else args.weights).stat().st_size:,} bytes, "
          f"{patterns.packed_size():,} weights per stage x {patterns.N_STAGES} stages")

    # Speed: distinct positions from random games, from scratch.
    rng = np.random.default_rng(1)
    boards = []
    while len(boards) < 20000:
        b = cy.Board()
        for _ in range(int(rng.integers(0, 60))):
            moves = list(b.legal_moves)
            if not moves:
                break
            b.push(moves[int(rng.integers(len(moves)))])
        if not b.is_game_over():
            boards.append(b)
    own = np.array([b.position()[0] for b in boards], dtype=np.uint64)
    opp = np.array([b.position()[1] for b in boards], dtype=np.uint64)
    best = float("inf")
    for _ in range(5):
        t = time.perf_counter()
        weights.evaluate_many(own, opp)
        best = min(best, time.perf_counter() - t)
    print(f"speed: {best / len(own) * 1e9:.0f} ns per evaluation from scratch "
          f"({EVAL_BUILD} build), 20,000 distinct positions")

    side_to_move_bias(weights, boards[:4000])

    if not HELDOUT.exists():
        print(f"no held-out set at {HELDOUT}: run research/evaluation/make_heldout.py")
        return
    base = load_weights(args.baseline)
    held = read_heldout(HELDOUT)
    rollout, prior, zones = square_tables()
    ev = np.array([weights.evaluate(b) for b, _ in held])
    ev0 = np.array([base.evaluate(b) for b, _ in held])
    y = np.array([s for _, s in held], dtype=float)
    sq_roll = np.array([square_score(b, rollout, zones, lambda s: 1 if s in (9, 14, 49, 54) else 3)
                        for b, _ in held])
    sq_prior = np.array([square_score(b, prior, zones, lambda s: 0.0) for b, _ in held])
    e = np.array([b.empties() for b, _ in held])
    print(f"\nheld-out MAE in discs against exact scores ({len(held)} positions), "
          f"baseline {Path(args.baseline).name}:")
    print(f"{'empties':>9} {'n':>5} {'patterns':>9} {'baseline':>9} {'rollout table':>14} "
          f"{'prior table':>12} {'ratio':>6}")
    groups = [(lo, lo + 3) for lo in range(13, 61, 4)]
    for lo, hi in groups + [(14, 30)]:
        m = (e >= lo) & (e <= hi)
        if m.sum() < 5:
            continue
        ours = float(np.abs(ev[m] - y[m]).mean())
        theirs = float(np.abs(ev0[m] - y[m]).mean())
        r1 = best_scaled_mae(sq_roll[m], y[m])
        r2 = best_scaled_mae(sq_prior[m], y[m])
        label = f"{max(lo, int(e[m].min()))}-{min(hi, int(e[m].max()))}"
        print(f"{label:>9} {int(m.sum()):>5} {ours:>9.2f} {theirs:>9.2f} {r1:>14.2f} {r2:>12.2f} "
              f"{ours / min(r1, r2):>6.2f}")

    for path, games in ((HELDOUT_PUCT, "PUCT self-play"), (HELDOUT_PUCT_DEEP, "PUCT self-play"),
                        (HELDOUT_STRONG, "expert self-play after 8 random moves")):
        if path.exists():
            heldout_by_empties(path, weights, base, games)

    print("\nFFO positions: MAE in discs of the static value against the best move's exact score")
    print(f"{'set':>9} {'n':>5} {'empties':>8} {'patterns':>9} {'baseline':>9}")
    for name in ("fforum-1-19.obf", "fforum-20-39.obf", "fforum-40-59.obf"):
        positions = list(read_obf(FFO / name))
        exact = np.array([p.best_score for p in positions], dtype=float)
        ours = np.array([weights.evaluate(p.board) for p in positions])
        theirs = np.array([base.evaluate(p.board) for p in positions])
        empties = [p.board.empties() for p in positions]
        print(f"{name[7:-4]:>9} {len(positions):>5} {min(empties):>3}-{max(empties):<4} "
              f"{np.abs(ours - exact).mean():>9.2f} {np.abs(theirs - exact).mean():>9.2f}")

if __name__ == "__main__":
    main()
