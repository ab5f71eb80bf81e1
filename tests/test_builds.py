"""The two builds (portable and x86-64-v3) of the playouts, the solver and the evaluation
give exactly the same games, solves and values;
the faster one is chosen at run time only where the CPU allows it."""
import os
import subprocess
import sys
from pathlib import Path

import cythello as cy
import cythello.search.uct._rollout as rollout

FINGERPRINT = r"""
import hashlib, json, cythello as cy, cythello.search.uct._rollout as r
out = []
for t in ["", "f5d6c3d3c4f4f6f3e6e7", "f5f6e6f4e3c5c4e7"]:
    b = cy.Board.from_transcript(t)
    for pol in ("random", "heuristic"):
        out.append(list(cy.random_playouts(b, 2000, seed=42, policy=pol)))
res = cy.MCTSPlayer(iterations=3000, seed=9).search(cy.Board())
out.append([(m.move, m.visits, round(m.win_rate, 12)) for m in res.moves])
# The solver (scores, moves and node counts: the same search tree) and the evaluation.
import random
rng = random.Random(5)
for empties in (14, 16, 18, 20):
    b = cy.Board()
    while b.empties() > empties and not b.is_game_over():
        b.push(rng.choice(list(b.legal_moves)))
    if not b.is_game_over():
        s = cy.solve(b)
        out.append([s.score, s.best_move, s.nodes, cy.evaluate(b)])
        # The selective passes: the same cuts (the evaluation searches behind them).
        from cythello.search.endgame import solve_selective
        out.append([(p.score, p.best_move, p.nodes) for p in solve_selective(b)])
info = cy.build_info()
print(r.PLAYOUT_BUILD, info["solver_path"], info["eval_path"],
      hashlib.sha256(json.dumps(out).encode()).hexdigest())
"""


def _run(portable):
    env = dict(os.environ)
    env.pop("CYTHELLO_PORTABLE", None)
    if portable:
        env["CYTHELLO_PORTABLE"] = "1"
    out = subprocess.run([sys.executable, "-c", FINGERPRINT], capture_output=True, text=True,
                         env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.split()


def test_both_builds_play_solve_and_evaluate_the_same():
    *fast_builds, fast = _run(portable=False)
    *portable_builds, portable = _run(portable=True)
    assert portable_builds == ["portable"] * 3
    assert fast == portable, (fast_builds, portable_builds)


def test_the_fast_build_is_used_where_it_can_be():
    from cythello.core._cpu import cpu_has_v3
    built = list(Path(rollout.__file__).parent.glob("_rollout.v3.*"))
    have_v3 = cpu_has_v3() and bool(built)
    expected = "x86-64-v3" if have_v3 and not os.environ.get("CYTHELLO_PORTABLE") else "portable"
    assert expected == rollout.PLAYOUT_BUILD
    assert cy.build_info()["rules_path"] == expected
