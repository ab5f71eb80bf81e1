"""The engine shell (cythello.search.engine) over a search of its own: a fourth backend,
written here against the SearchBackend protocol only, gets the book, the exact solver's
hand-off, limits, a game clock's time extension, progress, stop and the old spellings,
with none of that code in it.  The three shipped searches run the shared contract in
test_contract.py."""
import threading
import time
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

import cythello as cy
from cythello import Board, read_obf
from cythello.book import load_book
from cythello.eval.weights import load_eval_weights
from cythello.search.endgame.play import solve_seconds, starts_with_solve
from cythello.search.engine import Budget, Engine
from cythello.search.limits import search_budget
from cythello.search.results import DISC_SCALE, MoveStats, SearchResult, win_rate_of
from cythello.search.states import StopReason

FFO = next(iter(read_obf(Path(__file__).parent / "data" / "fforum-1-19.obf")))  # 14 empties
MIDGAME = Board.from_transcript("c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2")            # out of the book


@dataclass(frozen=True)
class ToySettings:
    iterations: Optional[int] = None
    time_limit: Optional[float] = None
    book: object = None
    book_variety: float = 0.0
    seed: Optional[int] = None
    endgame_empties: int = 0
    pause: float = 0.0                     # seconds each step takes (to test time)
    unsettled: bool = False


class OnePly:
    """A one-ply search on the evaluation: a step values one more move (the moves in
    turn, round and round: an iteration is a move valued)."""

    accepts_depth = False
    threads = 1
    book_scale = DISC_SCALE
    progress_interval = 0.01

    def __init__(self, settings):
        self.settings = settings
        self.weights = load_eval_weights("default")
        self.forgotten = 0
        self._stop = False

    def budget(self, board, iterations, time_limit, clock, depth):
        s = self.settings
        own = (s.iterations, s.time_limit) if s.iterations or s.time_limit else (8, None)
        n, seconds = search_budget(own, s.iterations, iterations, time_limit, clock,
                                   board.empties())
        extra = clock.extension(seconds, 2.0) if clock is not None else 0.0
        return Budget(n, seconds, None, extra)

    def solve_time(self, board, seconds, pace):
        if starts_with_solve(board, self.settings.endgame_empties, False, seconds, pace):
            return solve_seconds(seconds)
        return None

    def plays_selective(self, board, budget, pace):
        return False                     # no selective endgame passes for this toy

    def begin(self, board, budget):
        self.moves = list(board.legal_moves)
        self.board, self.values, self.done, self.quota = board, {}, 0, budget.iterations

    def grow(self, until, deadline):
        while True:
            if self.quota is not None and self.done >= self.quota:
                return StopReason.ITERATIONS
            if self._stop:
                return StopReason.STOPPED
            if until is not None and self.done and time.monotonic() >= until:
                return None
            move = self.moves[self.done % len(self.moves)]
            child = self.board.copy(stack=False)
            child.push(move)
            self.values[move] = -self.weights.evaluate(child)
            self.done += 1
            time.sleep(self.settings.pause)

    def unsettled(self):
        return self.settings.unsettled

    def result(self, board, start, reason):
        moves = [MoveStats(m, 1, win_rate_of(v), None, None, v) for m, v in self.values.items()]
        best = max(self.values, key=self.values.__getitem__) if self.values else self.moves[0]
        value = self.values.get(best)
        return SearchResult(best_move=best, iterations=self.done, root_visits=self.done,
                            nodes=self.done, elapsed=time.monotonic() - start,
                            win_rate=win_rate_of(value or 0.0), principal_variation=[best],
                            moves=moves, stop_reason=reason, value=value)

    def finish(self):
        pass

    def ponder(self, board, inside):
        return None

    def stop(self):
        self._stop = True

    def clear_stop(self):
        self._stop = False

    def forget(self):
        self.forgotten += 1


class OnePlyPlayer(Engine):
    def __init__(self, **options):
        settings = ToySettings(**options)
        self.backend = OnePly(settings)
        super().__init__(settings, self.backend, load_book(settings.book))


def test_a_new_search_gets_the_book_the_solver_and_limits_from_the_shell():
    player = OnePlyPlayer(book="default")
    assert player.search(Board()).stop_reason == "book"
    searched = player.search(Board(), book=False)
    assert searched.stop_reason == "iterations" and searched.iterations == 8
    assert player.search(MIDGAME, limit=cy.Limit(iterations=3)).iterations == 3
    best = max(searched.moves, key=lambda m: m.value)
    assert searched.best_move == best.move
    with pytest.raises(cy.SettingsError, match="no depth"):
        player.search(MIDGAME, limit=cy.Limit(depth=3))
    # Near the end the shell hands the position to the exact solver, and the backend
    # is told to forget its tree.
    solver = OnePlyPlayer(endgame_empties=20)
    result = solver.search(FFO.board)
    assert result.stop_reason == "exact" and result.exact_score == FFO.best_score
    assert solver.backend.forgotten == 1
    assert solver.choose_move(FFO.board) == result.best_move
    assert solver.search(FFO.board, solve=False).stop_reason == "iterations"


def test_progress_stop_and_a_clocks_extension_come_from_the_shell():
    reports = []
    player = OnePlyPlayer(time_limit=0.2, pause=0.002)
    result = player.search(MIDGAME, on_progress=reports.append)
    assert result.stop_reason == "time" and len(reports) >= 5
    assert all(r.stop_reason == "running" for r in reports)
    # stop() from another thread ends the search at once.
    slow = OnePlyPlayer(time_limit=30, pause=0.002)
    timer = threading.Timer(0.1, slow.stop)
    timer.start()
    t0 = time.monotonic()
    assert slow.search(MIDGAME).stop_reason == "stopped"
    assert time.monotonic() - t0 < 5
    # Under a clock an unsettled search may take up to two budgets more (settled: not).
    clock = cy.search.clock.Clock(6.0)
    budget = clock.budget(MIDGAME.empties())
    settled = OnePlyPlayer(pause=0.002).search(MIDGAME, clock=clock)
    unsettled = OnePlyPlayer(pause=0.002, unsettled=True).search(MIDGAME, clock=clock)
    assert settled.elapsed < budget * 2 < unsettled.elapsed


def test_old_positional_arguments_still_work_with_a_warning():
    calls = []
    player = cy.MCTSPlayer(iterations=2_000, progress_interval=0.001, seed=1)
    with pytest.warns(DeprecationWarning, match="on_progress="):
        player.search(MIDGAME, 20_000, None, calls.append)          # MCTS: on_progress
    assert calls
    puct = cy.PUCTPlayer(cy.nn.PatternEvaluator(), iterations=10_000_000)
    clock = cy.search.clock.Clock(0.01)
    with pytest.warns(DeprecationWarning, match="clock="):
        result = puct.search(MIDGAME, None, None, clock)             # PUCT: clock
    assert result.stop_reason == "time"
    with pytest.raises(TypeError, match="by name"):
        cy.AlphaBetaPlayer(depth=2).search(MIDGAME, None, None, clock)
    with warnings.catch_warnings():
        warnings.simplefilter("error")                              # keywords: no warning
        player.search(MIDGAME, 100, on_progress=calls.append)


def test_every_player_answers_play_and_a_match_takes_specs():
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    for spec in ("random", "alphabeta:depth=2", "mcts:iterations=50",
                 "puct:iterations=50"):
        answer = cy.make_player(spec, seed=1).play(board)
        assert isinstance(answer, cy.PlayResult) and board.is_legal(answer.move), spec
    passing = cy.Board("OOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOOX- X")
    assert passing.must_pass() and cy.RandomPlayer(1).play(passing).move == cy.PASS
    with pytest.raises(TypeError, match="cythello.Limit"):
        cy.RandomPlayer(1).play(board, limit=0.1)
    result = cy.run_match("random", cy.RandomPlayer(3), 2)
    assert result.wins + result.draws + result.losses == 2
    with pytest.raises(TypeError, match="choose_move"):
        cy.run_match(object(), "random", 2)
    with pytest.raises(cy.SettingsError, match="unknown player"):
        cy.run_match("nobody", "random", 2)


def test_a_play_result_says_what_kind_of_value_its_eval_is():
    answer = cy.AlphaBetaPlayer(depth=4).play(cy.Board())
    assert answer.info["value_kind"] == cy.ValueKind.ALPHABETA and answer.eval is not None
    line = (Path(__file__).parent / "data" / "fforum-1-19.obf").read_text().splitlines()[0]
    exact = cy.PUCTPlayer().play(cy.Board(line.split(";")[0].strip()))
    assert exact.info["value_kind"] == cy.ValueKind.EXACT and exact.eval == 18


def test_bench_says_when_the_thread_figures_need_a_quieter_machine(monkeypatch):
    from cythello import _cores, bench
    assert "quiet" in bench._busy_note()
    monkeypatch.setattr(_cores, "available_cores", lambda: 1)
    assert "may run on 1 core" in bench._busy_note()
