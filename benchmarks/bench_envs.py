"""Board-steps per second of random legal games, as reinforcement-learning code steps
them: cythello's VectorOthello (n boards in C, observations and legal masks out), a
cythello Board pushed from Python one move at a time, and a pure-Python board (the
independent reference rules of the tests, a list of 64 cells: the kind of rules
alpha-zero-general's Othello is).  Actions are drawn uniformly among the legal ones in
each case (for VectorOthello by NumPy, timed apart).

    python3 benchmarks/bench_envs.py                # n = 1, 64, 1024, 4096
    python3 benchmarks/bench_envs.py --seconds 3
"""
import argparse
import random
import sys
import time
from pathlib import Path

import numpy as np

import cythello as cy
from cythello.envs import VectorOthello

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
import reference_rules as ref  # noqa: E402


def vector(n, seconds):
    env = VectorOthello(n, seed=1)
    obs, legal = env.reset()
    rng = np.random.default_rng(1)
    steps, stepping, start = 0, 0.0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        actions = (rng.random(legal.shape) * legal).argmax(axis=1)
        t = time.perf_counter()
        obs, legal, rewards, dones = env.step(actions)
        stepping += time.perf_counter() - t
        steps += n
    return steps / (time.perf_counter() - start), steps / stepping


def board_from_python(seconds):
    rng = random.Random(1)
    board, steps, start = cy.Board(), 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        board.push(rng.choice(list(board.legal_moves)))
        board.planes()                          # what a learner reads after each step
        steps += 1
        if board.is_game_over():
            board = cy.Board()
    return steps / (time.perf_counter() - start)


def pure_python(seconds):
    rng = random.Random(1)
    first = ref.from_board_string(cy.STARTING_BOARD_STRING)
    cells, player = first
    steps, start = 0, time.perf_counter()
    while time.perf_counter() - start < seconds:
        moves = ref.legal_moves(cells, player)
        if moves:
            cells = ref.play(cells, player, rng.choice(moves))
        player = ref.other(player)
        steps += 1
        if ref.game_over(cells):
            cells, player = first
    return steps / (time.perf_counter() - start)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seconds", type=float, default=2.0)
    ap.add_argument("--sizes", default="1,64,1024,4096")
    args = ap.parse_args()
    print(f"{'environment':<38} {'board-steps/s':>14} {'step() alone':>14}")
    for n in (int(x) for x in args.sizes.split(",")):
        total, alone = vector(n, args.seconds)
        print(f"{f'VectorOthello(n={n})':<38} {total:>14,.0f} {alone:>14,.0f}")
    print(f"{'Board.push + planes from Python':<38} {board_from_python(args.seconds):>14,.0f}")
    print(f"{'pure Python (list of 64 cells)':<38} {pure_python(args.seconds):>14,.0f}")


if __name__ == "__main__":
    main()
