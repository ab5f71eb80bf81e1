"""Multi-ProbCut's parameters, fitted on cythello's own evaluation and search.

The question: how far does a shallow search's score stray from a deeper one's, by game
stage and by the two depths?  Multi-ProbCut (Buro 1997) cuts a node when a shallow search
of depth d' says the depth-d score lies beyond the window with probability ``t``'s normal
quantile; it needs that spread, sigma(e, d, d').

Recipe (Egaroucid's and NTest's, see ``docs`` of the issue): positions from games,
searched full width by iterative deepening (every depth's score of one search), then for
each (empties, d', d) cell the RMS of (deep - shallow), and a smooth model fitted through
the cells so that depths beyond the data extrapolate sensibly.

    python research/probcut/fit_probcut.py --collect      # scores.csv (minutes, 2 cores)
    python research/probcut/fit_probcut.py                # fit, print, write the .pxi

The fit is written to ``src/cythello/search/alphabeta/_midgame_probcut.pxi``, which the midgame search
includes; rebuild the extension after a new fit.
"""
from __future__ import annotations

import argparse
import csv
import random
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SCORES = HERE / "scores.csv"
PXI = HERE.parents[1] / "src" / "cythello" / "search" / "alphabeta" / "_midgame_probcut.pxi"
DEEPEST = 12          # the deepest full-width depth searched (about 1 s a position)


def make_positions(count: int, seed: int) -> list[str]:
    """Positions from games of two depth-2 alpha-beta players after 8 random plies, each
    game stopped at a random 14-52 empties (one position a game)."""
    import cythello as cy
    rng = random.Random(seed)
    player = cy.AlphaBetaPlayer(depth=2, endgame_empties=0)
    out: list[str] = []
    while len(out) < count:
        board = cy.Board()
        for _ in range(8):
            board.push(rng.choice(list(board.legal_moves)))
        stop_at = rng.randint(14, 52)
        while board.empties() > stop_at and not board.is_game_over():
            board.push(player.choose_move(board))
        if not board.is_game_over() and not board.must_pass():
            out.append(board.board_string())
    return out


def scores_of(line: str) -> list:
    """The board, its empties and the full-width scores at depths 0..min(DEEPEST, e)."""
    import cythello as cy
    from cythello.eval.weights import default_weights
    from cythello.search.internals import deepen
    from cythello.search.internals import midgame_search as search
    board = cy.Board(line)
    weights = default_weights()
    deepest = min(DEEPEST, board.empties())
    run = deepen(board, weights, deepest)
    values = [search(board, 0, weights)[0]] + [it[1] for it in run["iterations"]]
    return [line, board.empties()] + [f"{v:.4f}" for v in values]


def collect(count: int, seed: int, jobs: int) -> None:
    lines = make_positions(count, seed)
    with ProcessPoolExecutor(jobs) as pool, SCORES.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(["board", "empties"] + [f"d{d}" for d in range(DEEPEST + 1)])
        for i, row in enumerate(pool.map(scores_of, lines, chunksize=2)):
            out.writerow(row)
            if i % 50 == 49:
                print(f"{i + 1}/{len(lines)}", file=sys.stderr, flush=True)
    print(f"wrote {len(lines)} positions to {SCORES}")


def cells(min_count: int = 8):
    """(empties, d', d, rms, mean, n) for every cell with enough positions; empties in
    buckets of 4 (the bucket's middle)."""
    rows = list(csv.reader(SCORES.open()))[1:]
    acc: dict = {}
    for row in rows:
        e = int(row[1])
        vals = [float(v) for v in row[2:] if v != ""]
        bucket = 4 * (e // 4) + 1.5
        for d in range(2, len(vals)):
            if d >= e:          # exact from here: no spread to learn
                break
            for shallow in range(0, d):
                acc.setdefault((bucket, shallow, d), []).append(vals[d] - vals[shallow])
    out = []
    for (e, shallow, d), diffs in sorted(acc.items()):
        if len(diffs) >= min_count:
            a = np.array(diffs)
            out.append((e, shallow, d, float(np.sqrt((a * a).mean())), float(a.mean()),
                        len(a)))
    return out


def fit():
    """log sigma = c0 + c1*e + c2*d + c3*d' + c4*(d - d' odd), least squares over the cells
    weighted by their counts: sigma grows with the gap between the depths and with the
    empties, and an odd gap (the other side's turn at the horizon) adds its own."""
    data = cells()
    X = np.array([[1.0, e, d, s, (d - s) % 2] for e, s, d, _, _, _ in data])
    y = np.log([r for _, _, _, r, _, _ in data])
    w = np.sqrt([n for *_, n in data])
    coef, *_ = np.linalg.lstsq(X * w[:, None], y * w, rcond=None)
    pred = np.exp(X @ coef)
    err = np.array([r for _, _, _, r, _, _ in data]) / pred
    return coef, data, pred, err


def write_pxi(coef) -> None:
    names = ["CONST", "EMPTIES", "DEPTH", "SHALLOW", "ODD_GAP"]
    body = "\n".join(f"cdef double PROBCUT_{n} = {c:.6f}" for n, c in zip(names, coef))
    PXI.write_text(
        "# Generated by research/probcut/fit_probcut.py from research/probcut/scores.csv;\n"
        "# do not edit.  sigma(e, d, d') in discs, of the depth-d score about the depth-d'\n"
        "# one: exp(CONST + EMPTIES*e + DEPTH*d + SHALLOW*d' + ODD_GAP*((d - d') odd)).\n"
        + body + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collect", action="store_true", help="search the positions first")
    ap.add_argument("--count", type=int, default=400)
    ap.add_argument("--seed", type=int, default=2026)
    ap.add_argument("--jobs", type=int, default=2)
    args = ap.parse_args()
    if args.collect:
        collect(args.count, args.seed, args.jobs)
    coef, data, pred, err = fit()
    print("log sigma = " + " + ".join(f"{c:+.4f}*{n}" for c, n in
                                      zip(coef, ["1", "e", "d", "d'", "odd"])))
    print(f"{len(data)} cells; measured/model: median {np.median(err):.2f}, "
          f"10% {np.quantile(err, 0.1):.2f}, 90% {np.quantile(err, 0.9):.2f}")
    print(f"{'e':>5} {'d':>3} {'dp':>3} {'n':>4} {'mean':>6} {'rms':>6} {'model':>6}")
    for (e, s, d, r, m, n), p in zip(data, pred):
        if s == 2 * (d // 4) + d % 2:       # the pairs the search uses
            print(f"{e:>5} {d:>3} {s:>3} {n:>4} {m:>6.2f} {r:>6.2f} {p:>6.2f}")
    write_pxi(coef)
    print(f"wrote {PXI}")


if __name__ == "__main__":
    main()
