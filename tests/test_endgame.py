"""The exact endgame solver against the FFO suite's published scores and exhaustive search."""
import random
import threading
import time
from pathlib import Path

import pytest

import cythello as cy
from conftest import DATA, exact_score, random_endgame
from cythello import Board, MCTSPlayer, read_obf
from cythello.search.endgame import SolveAborted, first_guess
from cythello.search.endgame._solver import Solver
from cythello.search.endgame.play import OUTCOME_GROWTH, SolverPace, outcome_nodes

FFO_EASY = list(read_obf(DATA / "fforum-1-19.obf"))          # 14-16 empties


@pytest.mark.parametrize("index", range(len(FFO_EASY)))
def test_solver_matches_ffo_scores(index):
    pos = FFO_EASY[index]
    for outcome_first in (False, True):
        steps: list = []
        result = cy.solve(pos.board, outcome_first=outcome_first,
                          on_step=lambda r, steps=steps: steps.append((r.lower, r.upper)))
        assert result.score == pos.best_score
        assert result.best_move in pos.best_moves()
        assert result.nodes > 0
        # Every null-window step narrows the bounds, which always hold the score.
        for (lo, hi), (lo2, hi2) in zip([(-64, 64)] + steps, steps):
            assert lo <= lo2 <= pos.best_score <= hi2 <= hi and (lo, hi) != (lo2, hi2)
        assert steps[-1] == (pos.best_score, pos.best_score)
        if outcome_first:
            assert steps[0][0] > 0 or steps[0][1] <= 0           # the first step: a win?


def test_first_guess_is_even_and_close():
    errors = []
    for pos in FFO_EASY:
        guess = first_guess(pos.board)
        assert guess % 2 == 0 and -64 <= guess <= 64
        errors.append(abs(guess - pos.best_score))
    assert sum(errors) / len(errors) < 8          # a guess of 0 would be 12 off


@pytest.mark.parametrize("index", [0, 4, 8])
def test_every_move_score_matches_the_obf_file(index):
    pos = FFO_EASY[index]
    assert cy.solve_moves(pos.board) == pos.scores


@pytest.mark.slow
def test_solver_matches_ffo_20_to_27():
    for pos in list(read_obf(DATA / "fforum-20-39.obf"))[:8]:     # 6-20 empties
        result = cy.solve(pos.board)
        assert result.score == pos.best_score and result.best_move in pos.best_moves()


def test_solver_agrees_with_exhaustive_search_passes_included():
    rng = random.Random(3)
    for _ in range(40):
        board = random_endgame(rng, rng.randint(1, 7))
        assert cy.solve(board).score == exact_score(board), board.board_string()


def test_forced_pass_at_the_root():
    board = Board("-O" + "X" * 62 + " O")
    result = cy.solve(board)
    assert result.best_move == cy.PASS and result.score == -64
    assert cy.solve_moves(board) == {cy.PASS: -64}


def test_limits_abort_cleanly():
    hard = Board.from_transcript("f5d6c3d3c4f4")       # 54 empties: far out of reach
    with pytest.raises(SolveAborted):
        cy.solve(hard, node_limit=10_000)
    start = time.monotonic()
    with pytest.raises(SolveAborted):
        cy.solve(hard, time_limit=0.1)
    assert time.monotonic() - start < 10          # a hang bound: the solve would never end
    solver = Solver()
    threading.Timer(0.1, solver.stop).start()
    score, move, aborted = solver.solve(hard)
    assert aborted


def test_bad_input():
    with pytest.raises(cy.InvalidBoardError):
        cy.solve(Board.empty())
    with pytest.raises(TypeError):
        cy.solve("board")
    with pytest.raises(cy.SettingsError):
        cy.solve(Board(), node_limit=0)
    with pytest.raises(cy.SettingsError):
        cy.solve(Board(), time_limit=-1)
    with pytest.raises(ValueError):
        Solver().solve(Board(), 10, 5)


def test_player_solves_endgames_exactly():
    pos = FFO_EASY[0]
    player = MCTSPlayer(iterations=500, endgame_empties=14, seed=1)
    result = player.search(pos.board)
    assert result.stop_reason == "exact"
    assert result.exact_score == pos.best_score and result.best_move in pos.best_moves()
    assert result.proof == "win" and result.moves[0].score == pos.best_score
    # Beyond its range the player searches the tree as usual.
    far = MCTSPlayer(iterations=500, endgame_empties=10, seed=1).search(pos.board)
    assert far.stop_reason == "iterations"


def test_player_falls_back_to_the_tree_when_the_solve_runs_out_of_time():
    hard = Board.from_transcript("f5d6c3d3c4f4")
    player = MCTSPlayer(time_limit=0.3, endgame_empties=60, seed=1)
    start = time.monotonic()
    result = player.search(hard)
    assert time.monotonic() - start < 10          # a hang bound: the solve would never end
    assert result.stop_reason == "time" and result.iterations > 1000    # half the time left
    assert result.best_move in hard.legal_moves


def test_solver_pace_affords_more_empties_with_more_time_and_speed():
    pace = SolverPace(rate=5e6)
    assert not pace.timed
    reach = [pace.empties_within(t) for t in (0.001, 0.05, 0.5, 5, 50, 1e30)]
    assert reach == sorted(reach) and reach[0] < 20 < reach[-2] and reach[-1] == 60
    # Each empty costs OUTCOME_GROWTH times more: that factor of time buys one empty.
    assert pace.empties_within(2.0) == pace.empties_within(2.0 / OUTCOME_GROWTH) + 1
    assert outcome_nodes(pace.empties_within(2.0)) <= 5e6 * 2.0 < outcome_nodes(
        pace.empties_within(2.0) + 1)
    assert pace.empties_within(0) == 0
    pace.record(1_000, 0.001)                     # too short to time: ignored
    assert not pace.timed and pace.rate == 5e6
    pace.record(20_000_000, 1.0)                  # the first timing replaces the guess
    assert pace.timed and pace.rate == 20e6
    pace.record(10_000_000, 1.0)                  # then half the weight to the newest
    assert pace.rate == 15e6
    assert pace.empties_within(1.0) > SolverPace(rate=5e6).empties_within(1.0)


def test_a_lost_solve_cut_short_plays_the_move_proven_to_lose_least(monkeypatch):
    # FFO #32 (20 empties, -4): the outcome (a loss) is settled, then a step proves one move
    # at least -6 before the solve is cut short.  A tree search would play by win rate,
    # which sees nothing to choose between lost moves; the proven move is the one to play.
    import cythello.search.endgame.play as play
    from cythello.search.states import Proof
    pos = list(read_obf(DATA / "fforum-20-39.obf"))[12]
    steps = []
    cy.solve(pos.board, solver=Solver(), outcome_first=True,
             on_step=lambda r: steps.append((r.nodes, r.lower, r.upper, r.best_move)))
    nodes, lower, upper, move = next(s for s in steps if -64 < s[1] < s[2] < 0)
    real = play.solve

    def cut_short(board, time_limit, solver, outcome_first):
        # Cut where the timed solve would have run out: just after that step.
        return real(board, node_limit=nodes + 1, solver=Solver(), outcome_first=True)

    monkeypatch.setattr(play, "solve", cut_short)
    start = time.monotonic()
    result = play.exact_result(pos.board, Solver(), start, start + 60)
    assert result is not None and result.exact_score is None
    assert result.proof == Proof.LOSS and result.best_move == move
    assert pos.scores[move] >= lower and result.moves[0].discs == lower
    # Before any move is proven (only the outcome known), the tree search takes over.
    first_loss = next(s for s in steps if s[2] < 0)
    monkeypatch.setattr(play, "solve", lambda board, time_limit, solver, outcome_first: real(
        board, node_limit=first_loss[0] + 1, solver=Solver(), outcome_first=True))
    assert play.exact_result(pos.board, Solver(), start, start + 60) is None


def test_a_solve_that_settled_the_outcome_goes_on_with_the_rest_of_the_move(monkeypatch):
    # A won FFO position of 18 or more empties: cut short after proving the win, the
    # solve goes on until the move's whole time ends (a tree search could not choose among
    # proven wins) and finds the exact score; without that time it plays the proven win.
    import cythello.search.endgame.play as play
    from cythello.search.states import Proof
    pos = next(p for p in read_obf(DATA / "fforum-20-39.obf")
               if p.best_score > 0 and p.board.empties() >= 18)
    steps = []
    cy.solve(pos.board, solver=Solver(), outcome_first=True,
             on_step=lambda r: steps.append(r.nodes) if r.outcome == Proof.WIN else None)
    calls = []
    real = play.solve

    def first_cut_short(board, time_limit, solver, outcome_first):
        calls.append(time_limit)
        limit = steps[0] + 1 if len(calls) == 1 else None   # the first: the win, no more
        return real(board, node_limit=limit, solver=solver, outcome_first=True)

    monkeypatch.setattr(play, "solve", first_cut_short)
    start = time.monotonic()
    result = play.exact_result(pos.board, Solver(), start, start + 30, until=start + 60)
    assert len(calls) == 2 and result.exact_score == pos.best_score
    assert result.best_move in pos.best_moves()
    calls.clear()
    start = time.monotonic()
    won = play.exact_result(pos.board, Solver(), start, start + 30)     # no time after it
    assert len(calls) == 1 and won.exact_score is None and won.proof == Proof.WIN
    assert pos.scores[won.best_move] > 0


def test_a_search_solves_only_what_its_time_affords_with_endgame_by_time(monkeypatch):
    import cythello.search.engine as engine  # the shell hands every solve over
    attempts = []
    real = engine.exact_result

    def counted(board, *args, **kwargs):
        attempts.append(board.empties())
        return real(board, *args, **kwargs)

    monkeypatch.setattr(engine, "exact_result", counted)
    far = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")        # 47 empties
    near = FFO_EASY[0].board
    by_time = MCTSPlayer(time_limit=0.2, endgame_empties=60, endgame_by_time=True, seed=1)
    assert by_time.search(far).stop_reason == "time" and attempts == []    # all to the tree
    result = by_time.search(near)                 # 14 empties fit 0.1 s: solved
    assert result.stop_reason == "exact" and result.exact_score == FFO_EASY[0].best_score
    assert attempts == [near.empties()]
    # Without it the same player tries the far position too (and the tree gets the rest).
    fixed = MCTSPlayer(time_limit=0.2, endgame_empties=60, seed=1)
    assert fixed.search(far).stop_reason == "time" and attempts[-1] == far.empties()
    # endgame_empties stays the most: beyond it no solve, whatever the time.
    capped = MCTSPlayer(time_limit=5, iterations=200, endgame_empties=10,
                        endgame_by_time=True, seed=1)
    assert capped.search(near).stop_reason == "iterations" and len(attempts) == 2


def test_analyse_lists_exact_scores_in_the_endgame():
    import subprocess
    import sys
    pos = FFO_EASY[0]
    out = subprocess.run([sys.executable, "-m", "cythello", "analyse", pos.board.board_string(),
                          "--preset", "hard"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "+18 discs (exact score)" in out.stdout
    rows = [l.split() for l in out.stdout.splitlines() if l.strip()[:2] in
            {cy.square_name(m) for m in pos.scores}]
    assert {cy.parse_square(r[0]): int(r[1]) for r in rows} == pos.scores


def test_stop_during_the_solve_also_skips_the_tree_search():
    hard = Board.from_transcript("f5d6c3d3c4f4")
    player = MCTSPlayer(time_limit=20, endgame_empties=60, seed=1)
    threading.Timer(0.2, player.stop).start()
    start = time.monotonic()
    result = player.search(hard)
    assert time.monotonic() - start < 15          # not the 20 s asked
    assert result.stop_reason == "stopped" and result.best_move in hard.legal_moves


def test_cli_solve_checks_an_obf_suite():
    import subprocess
    import sys
    path = DATA / "fforum-1-19.obf"
    out = subprocess.run([sys.executable, "-m", "cythello", "solve", str(path)],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "19/19 match the listed scores" in out.stdout
    # A wrong listed score is caught and fails the command.
    line = path.read_text().splitlines()[0].replace("G8:+18", "G8:+20")
    out = subprocess.run([sys.executable, "-m", "cythello", "solve", line, "f5d6",
                          "--time", "0.2"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 1
    assert "WRONG" in out.stdout and "out of time" in out.stdout


# -- the solver's variants: threads, windows, outcome-only ---------------------------------------

@pytest.mark.parametrize("threads", [1, 2, 4])
def test_every_thread_count_gives_the_ffo_scores(threads):
    solver = Solver(threads=threads)
    for pos in FFO_EASY + list(read_obf(DATA / "fforum-20-39.obf"))[:6]:
        result = cy.solve(pos.board, solver=solver)
        assert result.score == pos.best_score, (threads, pos.board.board_string())
        assert result.best_move in pos.best_moves()


def test_threads_agree_with_exhaustive_search():
    rng = random.Random(17)
    solver = Solver(threads=3, table_bits=12)
    for _ in range(30):
        board = random_endgame(rng, rng.randint(6, 10))
        truth = exact_score(board)
        assert cy.solve(board, solver=solver).score == truth
        # Null windows: a bound on the right side.
        score, _, aborted = solver.solve(board, truth - 1, truth)
        assert not aborted and score >= truth
        score, _, _ = solver.solve(board, truth, truth + 1)
        assert score <= truth


def test_outcome_only_solves():
    for pos in FFO_EASY[:8]:
        result = cy.solve_outcome(pos.board)
        expected = "win" if pos.best_score > 0 else "loss" if pos.best_score < 0 else "draw"
        assert result.outcome == expected
        assert result.lower <= pos.best_score <= result.upper
        if expected == "win":
            assert pos.scores[result.best_move] > 0          # the move that proved it wins
        elif expected == "draw":
            assert pos.scores[result.best_move] == 0
    full = sum(cy.solve(p.board).nodes for p in FFO_EASY[:8])
    outcome = sum(cy.solve_outcome(p.board).nodes for p in FFO_EASY[:8])
    assert outcome < full


@pytest.mark.parametrize("threads", [1, 2])
def test_an_aborted_solve_leaves_the_solver_reusable(threads):
    solver = Solver(threads=threads)
    hard = Board("-------------------XXOOO--XXXOOO--XXOXOO-OOOXXXO--OXOO-O-OOOOO-- X")
    with pytest.raises(SolveAborted) as info:
        cy.solve(hard, time_limit=0.3, solver=solver)
    assert info.value.partial.nodes > 0
    # The message says what was proven, as the command line's line does.
    assert info.value.partial.proven() in str(info.value)
    assert "score in [" in info.value.partial.proven()
    pos = FFO_EASY[3]
    assert cy.solve(pos.board, solver=solver).score == pos.best_score
    # And a stop from another thread during a threaded solve.
    timer = threading.Timer(0.2, solver.stop)
    timer.start()
    with pytest.raises(SolveAborted):
        cy.solve(hard, solver=solver)
    solver.clear_stop()
    assert cy.solve(pos.board, solver=solver).score == pos.best_score


def test_a_finished_game_is_a_clear_answer():
    over = Board("X" * 64 + " O")
    with pytest.raises(cy.InvalidBoardError, match="game is over"):
        cy.solve(over)
    score, move, aborted = Solver().solve(over)
    assert (score, move, aborted) == (-64, cy.PASS, False)


def test_aborted_threaded_solves_store_nothing_false():
    """An abort in the middle of a split node must not leave a half-searched bound in the
    shared table: solving again afterwards still finds the listed score."""
    positions = [p for p in read_obf(DATA / "fforum-20-39.obf") if p.board.empties() == 20][:3]
    for pos in positions:
        for limit in (0.02, 0.05, 0.1):
            solver = Solver(threads=2)
            try:
                cy.solve(pos.board, time_limit=limit, solver=solver)
            except SolveAborted:
                pass
            assert cy.solve(pos.board, solver=solver).score == pos.best_score


def test_the_table_is_taken_at_the_first_deep_solve_one_cache_line_a_bucket():
    solver = Solver(table_bits=12)
    assert solver.table_bytes == 0                       # nothing until a solve needs it
    pos = FFO_EASY[0]
    assert cy.solve(pos.board, solver=solver).score == pos.best_score
    # 2 entries of 24 bytes, padded; and each thread's table near the leaves, no larger.
    assert solver.table_bytes == 2 * (64 << 12)
    # Kept between solves, and a second solver has its own.
    assert cy.solve(pos.board, solver=solver).score == pos.best_score
    assert Solver(table_bits=10).table_bytes == 0
    threaded = Solver(threads=3)
    threaded.reserve()
    assert threaded.table_bytes == (64 << 20) + 3 * (64 << 14)


# -- the selective endgame search ------------------------------------------------------------

def _heldout(most_empties):
    """Held-out positions with their exact scores (tests/data/heldout-sample.txt)."""
    rows = [line.split() for line in (DATA / "heldout-sample.txt").read_text().splitlines()
            if line.strip() and not line.startswith("#")]
    return [(Board(f"{b} {t}"), int(s)) for b, t, s in rows
            if Board(f"{b} {t}").empties() <= most_empties]


def test_selective_passes_rise_in_certainty_to_the_exact_score():
    # Edax's passes, then the exact solve; every pass's move and score are judged against
    # the FFO files' exact scores of every move.  The cuts claim 73 %-99 % each, so a pass
    # may miss the best move or the score: measured here, how often and by how much.
    from cythello.search.endgame import solve_selective
    best_moves = {}
    errors = {}
    for pos in FFO_EASY:
        best = max(pos.scores.values())
        passes = solve_selective(pos.board)
        assert [p.certainty for p in passes] == [73, 87, 95, 98, 99, 100]
        assert [p.label for p in passes][1::4] == ["@87%", "exact"]
        assert passes[-1].exact and passes[-1].score == best
        assert pos.scores[passes[-1].best_move] == best
        assert all(a.nodes <= b.nodes for a, b in zip(passes, passes[1:]))
        for p in passes:
            best_moves[p.certainty] = best_moves.get(p.certainty, 0) + (
                pos.scores[p.best_move] == best)
            errors[p.certainty] = errors.get(p.certainty, 0) + abs(p.score - best)
    n = len(FFO_EASY)
    # Measured (19 positions, 14-16 empties): best moves 17, 19, 19, 19, 19, 19; score
    # errors 40, 24, 8, 6, 0, 0 discs in all.  The bounds leave room for another
    # evaluation, never for a pass that ignores its certainty.
    assert best_moves[73] >= 0.7 * n and best_moves[87] >= 0.85 * n and best_moves[99] == n
    assert errors[73] / n <= 4 and errors[87] / n <= 2.5 and errors[99] / n <= 0.5
    assert errors[73] >= errors[87] >= errors[95] >= errors[99]


class _Spy(Solver):
    """A solver that notes the Multi-ProbCut width of every search it runs."""

    def __init__(self, *args, **kwargs):
        self.widths = []

    def solve(self, board, alpha=-64, beta=64, node_limit=None, deadline=0.0, probcut=None):
        self.widths.append(probcut)
        return super().solve(board, alpha, beta, node_limit, deadline, probcut)


def test_an_exact_solve_from_20_empties_first_runs_a_selective_pass():
    from cythello.search.endgame.solve import PRESEARCH_EMPTIES, PRESEARCH_WIDTH
    for pos in list(read_obf(DATA / "fforum-20-39.obf"))[9:12]:          # 20 empties
        assert pos.board.empties() >= PRESEARCH_EMPTIES
        steps: list = []
        solver = _Spy()
        result = cy.solve(pos.board, solver=solver,
                          on_step=lambda r, steps=steps: steps.append((r.lower, r.upper)))
        assert result.score == pos.best_score and result.best_move in pos.best_moves()
        # The pass first, then only exact searches; the pass proves nothing, so every
        # bound the steps report is the exact searches' and holds the score.
        passes = solver.widths.count(PRESEARCH_WIDTH)
        assert passes >= 1 and set(solver.widths[:passes]) == {PRESEARCH_WIDTH}
        assert set(solver.widths[passes:]) == {None} and len(steps) == len(solver.widths) - passes
        assert all(lo <= pos.best_score <= hi for lo, hi in steps)
        # Not for the outcome first (what the players ask), nor without the evaluation.
        for solver, outcome_first in ((_Spy(), True), (_Spy(weights=None), False)):
            result = cy.solve(pos.board, solver=solver, outcome_first=outcome_first)
            assert result.score == pos.best_score and set(solver.widths) == {None}


def test_selective_bounds_never_enter_an_exact_solve():
    # The table keeps each entry's certainty: an exact solve with a table a selective pass
    # has filled (the same position, and others) still gives the exact score.
    from cythello.search.endgame import solve_selective
    solver = Solver()
    for board, score in _heldout(18):
        solve_selective(board, solver=solver, widths=[1.1])          # selective only
        assert cy.solve(board, solver=solver).score == score


def test_a_selective_search_stops_and_names_what_it_had():
    from cythello.search.endgame import solve_selective
    board = list(read_obf(DATA / "fforum-40-59.obf"))[-1].board          # 34 empties
    start = time.monotonic()
    with pytest.raises(SolveAborted, match="no selective pass finished"):
        solve_selective(board, node_limit=1000)
    passes = solve_selective(FFO_EASY[0].board, node_limit=10**9)
    assert passes[-1].exact
    solver = Solver()
    solver.stop()
    with pytest.raises(SolveAborted):
        solve_selective(board, solver=solver, time_limit=30)
    assert time.monotonic() - start < 10
    with pytest.raises(cy.SettingsError):
        Solver().solve(FFO_EASY[0].board, probcut=-1)


def test_a_selective_pass_keeps_its_node_limit_inside_its_evaluation_searches():
    # Far from the end the pass's cuts search the evaluation many plies deep (15 at 54
    # empties), one such search millions of nodes; the limit is looked at inside them too
    # (a pass of FFO #57 ran 4.9 M nodes on a limit of 1 M, and three times its time).
    board = Board.from_transcript("f5d6c3d3c4f4")
    for limit in (100_000, 1_000_000):
        solver = Solver()
        _, _, aborted = solver.solve(board, 1, 2, node_limit=limit, probcut=1.5)
        assert aborted and limit <= solver.nodes <= limit + 20_000


def test_a_pass_cut_short_after_it_proved_a_move_gives_that_move():
    # Cut inside the exact pass: once a null window failed high, the pass's move is proven
    # to reach its score, and it comes last, unfinished, with its bounds; the move's exact
    # score (from the FFO file) is at least what the pass claims.
    from cythello.search.endgame import solve_selective
    partial = 0
    for pos in FFO_EASY[:8]:
        full = solve_selective(pos.board, solver=Solver())
        assert all(p.finished and p.upper == p.score for p in full)
        limit = (full[-2].nodes + full[-1].nodes) // 2          # inside the exact pass
        passes = solve_selective(pos.board, node_limit=limit, solver=Solver())
        last = passes[-1]
        assert all(p.finished for p in passes[:-1])
        if not last.finished:
            partial += 1
            assert last.exact and last.score <= last.upper
            assert pos.scores[last.best_move] >= last.score
            assert last.score_text.startswith(">= ") or ".." in last.score_text
            assert last.nodes > full[-2].nodes          # it counts the work cut short
    assert partial >= 4                  # measured: 5 of the 8 are cut after a fail-high


def test_the_wld_pass_settles_the_outcome_before_the_exact_score():
    # With wld, the exact solve first settles win/draw/loss (two null windows around the
    # draw) and says so as a pass of its own; the outcome agrees with the exact score's
    # sign, and a winning or drawing pass's move keeps that outcome (the FFO file's scores).
    from cythello.search.endgame import solve_selective
    outcomes = set()
    for pos in FFO_EASY + [p for p in read_obf(DATA / "fforum-20-39.obf")][:3]:
        passes = solve_selective(pos.board, wld=True)
        assert [p.label for p in passes][-3:] == ["@99%", "WLD", "exact"]
        wld, exact = passes[-2], passes[-1]
        assert wld.outcome == exact.outcome and wld.score <= exact.score <= wld.upper
        outcomes.add(str(wld.outcome))
        assert wld.score_text == str(wld.outcome) and wld.nodes <= exact.nodes
        if wld.outcome is not None and wld.outcome != cy.Proof.LOSS:
            best = pos.scores[wld.best_move]
            assert best > 0 if wld.outcome == cy.Proof.WIN else best >= 0
    assert outcomes >= {"win", "draw"}, outcomes


def test_a_player_plays_the_endgame_by_the_selective_passes():
    # From selective_empties, a timed search whose first half fits the first pass plays
    # the most certain pass that finished, and says so (depth = empties @ certainty; the
    # last pass is exact).
    from cythello.search.endgame.play import SolverPace, pass_nodes, plays_selective
    board = next(p.board for p in read_obf(DATA / "fforum-40-59.obf")
                 if p.board.empties() == 24)
    shown = []
    for spec in ("expert:time=2,selective_empties=26", "alphabeta:time=2,"
                 "selective_empties=26", "mcts:time=2,selective_empties=26"):
        result = cy.make_player(spec).search(board)
        assert result.depth == board.empties(), spec
        # Within its time, give or take a loaded machine (an overrun was 9x: see CHANGELOG)
        assert result.best_move in board.legal_moves and result.elapsed < 6
        if result.exact_score is None and result.probability < 1:
            assert result.value_kind() == "alpha-beta" and "@" in result.depth_text
            assert result.value_text().startswith(
                f"{result.value:+.1f} discs (alpha-beta score, depth 24@")
        elif result.exact_score is None:
            # The exact pass cut short after its move reached a score: that score, proven
            # (a win), or the bound of a search to the end (depth 24, no certainty).
            assert result.value_kind() in ("proven", "alpha-beta"), spec
            assert result.depth_text == "24"
        else:
            assert result.value_kind() == "exact"
        shown.append(result.depth_text)
    # Which pass a move ends on depends on the machine's speed (here the exact pass's first
    # test often finishes within 2 s): shorter moves of the expert until one ends on a pass.
    for seconds in (1.5, 1.0, 0.9, 0.8, 0.5, 4.0):
        if any("@" in d for d in shown):
            break
        shown.append(str(cy.make_player(f"expert:time={seconds},selective_empties=26")
                         .search(board).depth_text))
    assert any("@" in d for d in shown), shown
    # Limited by iterations, above selective_empties, or without the time for the first
    # pass in half the move: the player's own search.
    pace = SolverPace(1e7)
    assert plays_selective(board, 26, 2.0, None, pace)
    assert not plays_selective(board, 26, 2.0, 1000, pace)
    assert not plays_selective(board, 23, 2.0, None, pace)
    assert not plays_selective(board, 26, pass_nodes(24) / 1e7, None, pace)
    assert cy.make_player("expert:iterations=300,selective_empties=26").search(
        board).depth is None


@pytest.mark.parametrize("threads", [2, 8])
def test_a_node_limit_is_the_solves_not_each_threads(threads):
    # 24 empties: far more than the limit; every thread's count goes into one budget, so
    # the solve stops near it (each thread may run on to its next check: 4,096 nodes).
    rng = random.Random(7)
    board = Board()
    while board.empties() > 24:
        board.push(rng.choice(list(board.legal_moves)))
    limit = 1_000_000
    solver = Solver(threads=threads)
    _, _, aborted = solver.solve(board, node_limit=limit)
    assert aborted
    assert limit <= solver.nodes <= limit + 4096 * threads + 200_000


def test_a_table_larger_than_half_the_memory_is_refused_up_front(monkeypatch):
    import cythello.search.endgame._solver as solver_module
    monkeypatch.setattr(solver_module, "physical_memory", lambda: 2 ** 30)   # a 1 GiB machine
    with pytest.raises(cy.SettingsError, match="at most table_bits="):
        Solver(table_bits=26)
    assert Solver(table_bits=20).table_bytes == 0         # nothing taken yet


@pytest.mark.skipif(not Path("/proc/self/statm").exists(), reason="reads Linux's /proc")
def test_a_short_moves_first_table_is_mapped_not_committed():
    """Committing the 64 MB table costs up to a tenth of a second the first time in a
    process: a move shorter than COMMIT_SECONDS only maps it (each page is committed when a
    solve first writes it); a longer one commits it at once."""
    import os

    from cythello.search.endgame.play import COMMIT_SECONDS, exact_result

    def rss():
        return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE")

    lazy, eager = Solver(), Solver()
    before = rss()
    assert lazy.reserve(20, commit=False) >= 64 << 20
    mapped = rss() - before
    before = rss()
    eager.reserve(20)
    committed = rss() - before
    assert mapped < 8 << 20 < 48 << 20 < committed, (mapped, committed)
    # Both solve alike.
    board = next(p.board for p in read_obf(DATA / "fforum-1-19.obf"))
    assert lazy.solve(board)[:2] == eager.solve(board)[:2]
    # The players' rule: a 0.01 s move maps the table, a move of COMMIT_SECONDS commits it.
    short, long = Solver(), Solver()
    before = rss()
    start = time.monotonic()
    exact_result(board, short, start, start + 0.01)
    assert short.table_bytes >= 64 << 20 and rss() - before < 48 << 20
    before = rss()
    start = time.monotonic()
    exact_result(board, long, start, start + COMMIT_SECONDS + 0.5)
    assert rss() - before > 48 << 20
