"""The midgame search (PVS, iterative deepening, transposition table): the same score as a
plain fixed-depth alpha-beta at every depth, exact once the leaves are the game's end,
fewer nodes, and a time limit that keeps the deepest finished iteration."""
import pickle
import random

import pytest

import cythello as cy
from conftest import random_endgame
from cythello import Board
from cythello.eval.weights import default_weights
from cythello.search.alphabeta._midgame import (
    MidgameSearch,
    deepen,
    probcut_probability,
    probcut_sigma,
    reference_search,
    search,
    search_many,
)
from cythello.search.endgame._solver import Solver

WEIGHTS = default_weights()


def _positions(count, low, high, seed):
    """Positions of random games with ``low``-``high`` empties, the game not over."""
    rng = random.Random(seed)
    return [random_endgame(rng, rng.randint(low, high)) for _ in range(count)]


MIDGAME = _positions(24, 30, 44, seed=5)


@pytest.mark.parametrize("depth", [1, 2, 3, 4, 5, 8])
def test_the_score_is_the_plain_alpha_betas(depth):
    ours = theirs = 0
    for board in MIDGAME:
        score, move, nodes = search(board, depth, WEIGHTS)
        plain, _, plain_nodes = reference_search(board, depth, WEIGHTS)
        assert score == plain
        assert move in board.legal_moves
        ours, theirs = ours + nodes, theirs + plain_nodes
    if depth >= 8:
        # The table and the ordering pay for themselves.  The last two plies are the
        # evaluator's unordered search, more nodes for less time each, so the whole
        # search has fewer nodes only from about depth 7 (depth 5: 1.6 times more).
        assert ours < theirs


def test_labels_of_many_positions_are_the_plain_scores():
    own = [b.position()[0] for b in MIDGAME[:8]]
    opp = [b.position()[1] for b in MIDGAME[:8]]
    values = search_many(own, opp, 4, WEIGHTS)
    assert list(values) == [reference_search(b, 4, WEIGHTS)[0] for b in MIDGAME[:8]]


def test_exact_when_the_leaves_are_the_end_of_the_game():
    solver = Solver()
    for board in _positions(12, 6, 9, seed=8):
        score, move, _ = search(board, board.empties() + 2, WEIGHTS)
        exact, _, aborted = solver.solve(board)
        assert not aborted and score == exact
        if move != cy.PASS:
            child = board.copy()
            child.push(move)
            assert -solver.solve(child)[0] == exact      # the move keeps the score


def test_a_forced_pass_and_a_finished_game():
    must_pass = Board("-O" + "X" * 62 + " O")
    assert must_pass.must_pass()
    score, move, _ = search(must_pass, 3, WEIGHTS)
    assert move == cy.PASS
    finished = Board("X" * 64 + " O")
    assert search(finished, 4, WEIGHTS)[:2] == (-64.0, cy.PASS)


def test_deepening_by_time_keeps_the_deepest_finished_iteration():
    board = MIDGAME[0]
    found = deepen(board, WEIGHTS, max_depth=6)
    assert found["depth"] == 6 and found["score"] == search(board, 6, WEIGHTS)[0]
    pv = found["pv"]
    assert pv and pv[0] == found["move"] and len(pv) <= 7
    replay = board.copy()
    for move in pv:
        replay.push(move)                                # a line of legal moves
    for other in MIDGAME[:12]:
        # The line reaches the leaves (its last plies from a search of them, as the
        # table has none there): the evaluation at its end is the search's score.
        line = deepen(other, WEIGHTS, max_depth=7)
        end = other.copy()
        for move in line["pv"]:
            end.push(move)
        assert sum(move != cy.PASS for move in line["pv"]) == 7
        sign = 1 if end.turn == other.turn else -1
        assert sign * WEIGHTS.evaluate(end) == line["score"]
    quick = deepen(board, WEIGHTS, seconds=1e-6)         # depth 1 always finishes
    assert quick["depth"] >= 1 and quick["move"] in board.legal_moves
    timed = deepen(board, WEIGHTS, max_depth=60, seconds=0.2)
    assert 1 <= timed["depth"] < 60 and timed["move"] in board.legal_moves
    assert timed["score"] == search(board, timed["depth"], WEIGHTS)[0]
    for bad in (0, -1, float("nan")):
        with pytest.raises(ValueError):
            deepen(board, WEIGHTS, seconds=bad)
    with pytest.raises(TypeError):
        deepen(board, WEIGHTS, seconds="1")
    with pytest.raises(ValueError):
        search(board, 61, WEIGHTS)


def test_the_alphabeta_player_by_depth_or_by_time():
    board = MIDGAME[1]
    by_depth = cy.AlphaBetaPlayer(depth=3, endgame_empties=0)
    assert by_depth.choose_move(board) == search(board, 3, WEIGHTS)[1]
    by_time = cy.make_player("alphabeta:time=0.05,endgame_empties=0")
    assert by_time.time_limit == 0.05 and by_time.depth == 60
    assert by_time.choose_move(board) in board.legal_moves
    capped = cy.AlphaBetaPlayer(depth=2, time_limit=30, endgame_empties=0)
    assert capped.choose_move(board) == search(board, 2, WEIGHTS)[1]    # its depth first
    again = pickle.loads(pickle.dumps(by_time))
    assert (again.depth, again.time_limit) == (60, 0.05)
    assert "time_limit=0.05" in repr(again)
    for bad in ("alphabeta:time=-1", "alphabeta:time=abc", "alphabeta:depth=61"):
        with pytest.raises(cy.SettingsError):
            cy.make_player(bad)


@pytest.mark.parametrize("deepest, depths", [(5, [1, 2, 3, 5]), (6, [1, 2, 4, 6]),
                                             (1, [1]), (2, [1, 2])])
def test_each_finished_iteration_is_logged(deepest, depths):
    # Iterative deepening goes 1, 2, then two plies a step with the target's parity.
    found = deepen(MIDGAME[2], WEIGHTS, max_depth=deepest)
    log = found["iterations"]
    assert [it[0] for it in log] == depths and found["depth"] == deepest
    assert log[-1][1:3] == (found["score"], found["move"])
    assert [it[1] for it in log] == [search(MIDGAME[2], d, WEIGHTS)[0] for d in depths]
    assert all(a[3] <= b[3] and a[4] <= b[4] for a, b in zip(log, log[1:]))
    assert found["probability"] == 1.0


def test_the_player_deepens_two_plies_a_step_to_its_depth_or_the_empties():
    engine = MidgameSearch(WEIGHTS)
    board = MIDGAME[3]
    for deepest, expected in ((9, [1, 2, 3, 5, 7, 9]), (8, [1, 2, 4, 6, 8])):
        engine.begin(board)
        depths = []
        d = engine.next_depth(deepest)
        while d <= deepest:
            assert engine.iterate(d)
            depths.append(d)
            d = engine.next_depth(deepest)
        assert depths == expected and d == deepest + 1
    near_end = random_endgame(random.Random(8), 11)
    engine.begin(near_end)
    empties = near_end.empties()
    depths = []
    while (d := engine.next_depth(60)) <= empties:
        assert engine.iterate(d)
        depths.append(d)
    assert depths[-1] == empties and all(b - a == 2 for a, b in zip(depths[2:], depths[3:]))
    assert engine.score == search(near_end, empties, WEIGHTS)[0]
    with pytest.raises(ValueError):
        engine.next_depth(61)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_probcut_leaves_shallow_searches_alone(depth):
    # Only null-window nodes 3 plies from the leaves or more are cut: a depth-3 root's
    # children are 2 from them.
    for board in MIDGAME[:12]:
        assert search(board, depth, WEIGHTS, probcut=1.0) == search(board, depth, WEIGHTS)


def test_probcut_searches_fewer_nodes_for_nearly_the_same_answer():
    full = [search(b, 8, WEIGHTS) for b in MIDGAME]
    cut = [search(b, 8, WEIGHTS, probcut=1.5) for b in MIDGAME]
    assert sum(c[2] for c in cut) < 0.6 * sum(f[2] for f in full)
    assert all(c[1] in b.legal_moves for c, b in zip(cut, MIDGAME))
    # The search's fitted spread is a few discs: the answers stay close.
    assert sum(abs(c[0] - f[0]) for c, f in zip(cut, full)) / len(full) < 1.5
    assert sum(c[1] == f[1] for c, f in zip(cut, full)) >= 0.7 * len(full)
    wider = [search(b, 8, WEIGHTS, probcut=3.0) for b in MIDGAME]
    assert sum(c[2] for c in cut) < sum(w[2] for w in wider)     # t widens the margins


def test_probcut_stays_exact_when_the_search_reaches_the_end():
    solver = Solver()
    for board in _positions(8, 6, 9, seed=9):
        score, _, _ = search(board, board.empties() + 1, WEIGHTS, probcut=1.0)
        assert score == solver.solve(board)[0]


def test_probcut_arguments_and_its_model():
    board = MIDGAME[3]
    found = deepen(board, WEIGHTS, max_depth=6, probcut=1.1)
    assert found["depth"] == 6 and found["move"] in board.legal_moves
    assert found["probability"] == pytest.approx(0.7287, abs=1e-3)
    assert probcut_probability(None) == 1.0
    assert probcut_probability(2.0) == pytest.approx(0.9545, abs=1e-3)
    for bad in (0, -1.0, 10.5, float("nan")):
        with pytest.raises(ValueError, match="probcut"):
            search(board, 4, WEIGHTS, probcut=bad)
    for bad in ("1", True):
        with pytest.raises(TypeError, match="probcut"):
            deepen(board, WEIGHTS, 4, None, bad)
    # The fitted spread: a few discs, wider for a larger gap between the depths and
    # nearer the end of the game.
    assert 1.0 < probcut_sigma(40, 12, 6) < 5.0
    assert probcut_sigma(40, 12, 4) > probcut_sigma(40, 12, 6)
    assert probcut_sigma(20, 12, 6) > probcut_sigma(40, 12, 6)


def test_the_alphabeta_player_with_probcut():
    board = MIDGAME[4]
    player = cy.make_player("alphabeta:depth=6,probcut=1.5,endgame_empties=0")
    assert player.probcut == 1.5
    assert player.choose_move(board) == search(board, 6, WEIGHTS, probcut=1.5)[1]
    again = pickle.loads(pickle.dumps(player))
    assert again.probcut == 1.5 and "probcut=1.5" in repr(again)
    for bad in ("alphabeta:probcut=0", "alphabeta:probcut=x", "alphabeta:probcut=11"):
        with pytest.raises(cy.SettingsError):
            cy.make_player(bad)


def test_a_search_run_one_iteration_at_a_time():
    board = MIDGAME[5]
    engine = MidgameSearch(WEIGHTS)
    engine.begin(board)
    for depth in range(1, 7):
        assert engine.iterate(depth)
        assert engine.depth == depth and engine.score == search(board, depth, WEIGHTS)[0]
    line = engine.principal_variation()
    assert line[0] == engine.move and len(line) <= 6
    # Kept from one search to the next (pondering's table): the same scores.
    engine.begin(board, keep=True)
    assert engine.iterate(1) and engine.iterate(5)
    assert engine.score == search(board, 5, WEIGHTS)[0]
    # A node budget, a deadline and a stop end an iteration; depth 1 always finishes.
    engine.begin(board, probcut=1.5)
    assert engine.iterate(1) and not engine.iterate(12, max_nodes=500)
    assert engine.depth == 1 and engine.probability == pytest.approx(0.866, abs=1e-3)
    assert not engine.iterate(30, seconds=0.01)
    engine.stop()
    assert engine.iterate(1) and not engine.iterate(2)
    engine.clear_stop()
    assert engine.iterate(2)
    with pytest.raises(ValueError):
        engine.iterate(0)
    with pytest.raises(ValueError):
        engine.iterate(3, seconds=-1)
    # Any table size gives the same full-width scores (a small one just misses more).
    small, large = MidgameSearch(WEIGHTS, 10), MidgameSearch(WEIGHTS, 18)
    for other in (small, large):
        other.begin(board)
        assert all(other.iterate(d) for d in range(1, 7))
        assert other.score == search(board, 6, WEIGHTS)[0]
    for bad in (9, 25, 16.0, True):
        with pytest.raises(ValueError, match="table_bits"):
            MidgameSearch(WEIGHTS, bad)
    assert cy.AlphaBetaPlayer(table_bits=12, depth=3).search(board).depth == 3


def _move_score(board, move, depth):
    """The plain depth-``depth`` score of ``move`` (a search of the position it reaches)."""
    after = board.copy()
    after.push(move)
    return -reference_search(after, depth - 1, WEIGHTS)[0]


def test_an_unfinished_iteration_plays_only_a_move_it_proved_better():
    # Cut short by node budgets at many points of each iteration: whenever the move
    # changes, the full-width score of the new move at the unfinished depth is higher than
    # the last finished depth's move's.  Such changes must happen (the budgets fall in
    # every part of an iteration), and the reported depth and score stay the finished ones.
    changed = 0
    engine = MidgameSearch(WEIGHTS)
    for board in MIDGAME[:12]:
        for depth in (4, 5):
            engine.begin(board)
            assert all(engine.iterate(d) for d in range(1, depth))
            before, full = engine.nodes, None
            assert engine.iterate(depth)
            full = engine.nodes - before
            for part in range(1, 8):
                engine.begin(board)
                assert all(engine.iterate(d) for d in range(1, depth))
                last, score = engine.move, engine.score
                if engine.iterate(depth, max_nodes=engine.nodes + full * part // 8):
                    continue
                assert engine.depth == depth - 1 and engine.score == score
                if engine.move != last:
                    changed += 1
                    assert engine.improved == depth
                    assert _move_score(board, engine.move, depth) > \
                        _move_score(board, last, depth)
                    assert engine.principal_variation()[0] == engine.move
                else:
                    assert engine.improved == 0
    assert changed >= 3


def test_helper_threads_keep_the_full_width_score_and_share_the_work():
    """Lazy SMP: helpers search the same root (half a ply ahead) and share the table; a
    table bound is taken only at the depth that made it, so the full-width score stays the
    plain depth-d score, whatever the threads did."""
    for board in MIDGAME[:6]:
        alone, shared = MidgameSearch(WEIGHTS), MidgameSearch(WEIGHTS, threads=3)
        for engine in (alone, shared):
            engine.begin(board)
            assert all(engine.iterate(d) for d in range(1, 9))
        assert shared.score == alone.score == search(board, 8, WEIGHTS)[0]
        assert shared.move in board.legal_moves and shared.threads == 3
    # A selective search with helpers: a legal move, a depth, and a stop that ends it.
    shared = MidgameSearch(WEIGHTS, threads=2)
    shared.begin(MIDGAME[0], probcut=1.5)
    assert all(shared.iterate(d) for d in range(1, 11)) and shared.move in MIDGAME[0].legal_moves
    shared.stop()
    assert not shared.iterate(11)
    for bad in (0, 257, 1.5, True):
        with pytest.raises(ValueError, match="threads"):
            MidgameSearch(WEIGHTS, threads=bad)
    player = cy.make_player("alphabeta:depth=9,threads=2,probcut=1.5")
    assert "threads=2" in repr(player)
    assert player.search(MIDGAME[1], book=False).depth == 9


def test_the_alphabeta_player_solves_from_as_far_as_its_time_affords():
    board = _positions(1, 16, 16, seed=11)[0]
    timed = cy.AlphaBetaPlayer(time_limit=2.0, endgame_empties=10, probcut=1.5)
    result = timed.search(board)
    assert result.stop_reason == "exact" and result.exact_score is not None
    assert result.exact_score == Solver().solve(board)[0]
    untimed = cy.AlphaBetaPlayer(depth=3, endgame_empties=10)      # no time: its threshold
    assert untimed.search(board).stop_reason == "depth"
    solving = cy.AlphaBetaPlayer(depth=3, endgame_empties=16)      # no time: solved in full
    assert solving.search(board).exact_score == result.exact_score
    # Neither the solve by time nor the selective passes (whose last pass is exact).
    off = cy.AlphaBetaPlayer(time_limit=0.2, endgame_empties=10, endgame_by_time=False,
                             selective_empties=0)
    assert off.search(board).stop_reason != "exact"
    passes = cy.AlphaBetaPlayer(time_limit=1, endgame_empties=10, endgame_by_time=False)
    assert passes.settings.selective_empties == 26           # the classic engine's default
    assert passes.search(board).depth == board.empties()
    assert cy.make_player("alphabeta:time=1,endgame_by_time=false").settings.endgame_by_time \
        is False


def test_the_alphabeta_player_plays_from_its_book():
    player = cy.make_player("alphabeta:time=0.2,book=default,book_variety=1,seed=3")
    result = player.search(Board())
    assert result.stop_reason == "book" and result.best_move in Board().legal_moves
    assert len(result.moves) >= 2 and all(m.value is not None for m in result.moves)
    searched = player.search(Board(), book=False)
    assert searched.stop_reason != "book" and searched.depth >= 1
    assert cy.make_player("alphabeta:time=0.2,book=none").book is None
