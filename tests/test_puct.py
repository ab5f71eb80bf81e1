"""PUCT with a batched evaluator: the search against a pure-Python reference, its
invariants and perspective, the evaluator contract, and self-play with an evaluator."""
import math
import pickle
import random
import threading

import numpy as np
import pytest

import cythello as cy
from conftest import wait_for
from cythello import selfplay
from cythello.errors import EvaluatorError, PlayerBusyError, SettingsError
from cythello.nn import PatternEvaluator, uniform_evaluator
from cythello.players import make_player
from cythello.search.puct import PUCTSettings


def _random_board(seed, plies):
    rng = random.Random(seed)
    board = cy.Board()
    for _ in range(plies):
        if board.is_game_over():
            break
        board.push(rng.choice(list(board.legal_moves)))
    return board


def disc_lead(planes, legal):
    """A deterministic evaluator with distinct priors: the side to move's disc lead as the
    value, the square index as the logit."""
    own = planes[:, 0].reshape(len(planes), 64).sum(1)
    opp = planes[:, 1].reshape(len(planes), 64).sum(1)
    logits = np.tile(np.arange(65, dtype=np.float32) * 0.05, (len(planes), 1))
    return logits, np.tanh((own - opp) / 10.0)


# -- a pure-Python PUCT, the reference ---------------------------------------------------

class _Node:
    def __init__(self, move, prior):
        self.move, self.prior = move, prior
        self.visits, self.value = 0, 0.0          # value: for the player who moved here
        self.children = None
        self.terminal = None
        self.minimax = None                       # implicit minimax, in 127ths as in C


def _units(value):
    """A value in 127ths, as the C tree keeps it (clipped to [-1, 1], rounded to even)."""
    return int(np.rint(min(1.0, max(-1.0, float(value))) * 127))


def _negamax(node, own):
    valued = [c.minimax for c in node.children or () if c.minimax is not None]
    return -max(valued) if valued else own


def _reference_visits(board, evaluator, simulations, c_puct=1.25, c_puct_base=0.0,
                      minimax_weight=0.0):
    root = _Node(None, 1.0)
    for _ in range(simulations):
        node, b, path = root, board.copy(), [root]
        while node.children is not None:
            parent_n = max(node.visits - 1, 1)
            weight = c_puct
            if c_puct_base:
                weight += math.log((parent_n + c_puct_base + 1) / c_puct_base)
            fpu = -node.value / node.visits if node.visits else 0.0
            best, best_score = None, -math.inf
            for child in node.children:
                q = child.value / child.visits if child.visits else fpu
                if child.visits and minimax_weight and child.minimax is not None:
                    q += minimax_weight * (child.minimax / 127 - q)
                score = q + weight * child.prior * math.sqrt(parent_n) / (1 + child.visits)
                if score > best_score:
                    best, best_score = child, score
            node = best
            b.push(node.move)
            path.append(node)
        if b.is_game_over():
            diff = b.outcome().score * (1 if b.turn == 1 else -1)   # for the mover into it
            value = float(np.sign(diff))
            own = _units(value)
        else:
            logits, values = evaluator(b.planes()[None], None)
            legal = sorted(b.legal_moves)
            z = np.array([logits[0][m] for m in legal], dtype=np.float32)
            p = np.exp(z.astype(np.float64) - z.max())
            p = (p / p.sum()).astype(np.float32)
            node.children = [_Node(m, float(q)) for m, q in zip(legal, p)]
            value = -float(np.float32(values[0]))
            own = _units(value)
            if legal == [cy.PASS]:                # a pass is valued by the leaf's value
                node.children[0].minimax = _units(np.float32(values[0]))
        if minimax_weight:          # the leaf's value, then its negamax up the path
            for n in reversed(path):
                n.minimax = _negamax(n, own if n is path[-1] else n.minimax)
        for n in reversed(path):
            n.visits += 1
            n.value += value
            value = -value
    return {c.move: c.visits for c in root.children}


@pytest.mark.parametrize("c_puct_base, minimax_weight", [(0.0, 0.0), (20.0, 0.0),
                                                         (0.0, 0.6)])
@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("evaluator", [uniform_evaluator, disc_lead])
def test_visits_equal_the_reference(seed, evaluator, c_puct_base, minimax_weight):
    board = _random_board(seed, 8 + 8 * seed)        # openings to endgames (passes, ends)
    if board.is_game_over():
        pytest.skip("the random game ended")
    player = cy.PUCTPlayer(evaluator, iterations=300, reuse_tree=False, endgame_empties=0,
                           c_puct_base=c_puct_base, minimax_weight=minimax_weight)
    result = player.search(board)
    got = {m.move: m.visits for m in result.moves}
    assert got == _reference_visits(board, evaluator, 300, c_puct_base=c_puct_base,
                                    minimax_weight=minimax_weight)
    assert player._forest.check_tree(0) == []


def test_implicit_minimax_values_children_by_the_pattern_evaluation():
    """With the pattern evaluator in C every child is valued when its parent is
    expanded: an unvisited root child by the evaluation after its move (the negated
    value of the position it reaches), a searched one by the negamax below it (checked
    node by node by check_tree); the blend changes the search, and without a weight no
    node is valued."""
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    static = PatternEvaluator(search_depth=0)
    found = {}
    for threads in (1, 2):
        player = cy.PUCTPlayer(PatternEvaluator(search_depth=1), iterations=2000,
                               minimax_weight=0.7, threads=threads)
        result = player.search(board)
        forest = player._forest
        assert forest.check_tree(0, minimax=threads == 1) == []
        moves, visits, _, _ = forest.root_children(0)
        minimax = forest.root_minimax(0)
        assert np.all(np.abs(minimax) <= 1)
        for move, n, value in zip(moves, visits, minimax):
            after = board.copy()
            after.push(int(move))
            if n == 0:
                # In 127ths: within half of one.
                assert value == pytest.approx(-static(after.planes()[None])[1][0],
                                              abs=0.5 / 127 + 1e-6)
        found[threads] = [(m.move, m.visits) for m in result.moves]
    plain = cy.PUCTPlayer(PatternEvaluator(search_depth=1), iterations=2000)
    result = plain.search(board)
    assert np.isnan(plain._forest.root_minimax(0)).all()
    assert [(m.move, m.visits) for m in result.moves] != found[1]
    with pytest.raises(SettingsError, match="minimax_weight"):
        PUCTSettings(minimax_weight=1.5)


def test_the_growing_prior_weight_spreads_the_visits():
    """AlphaZero's c_puct growth gives a long search's second moves more visits: the most
    visited root move keeps a smaller share than with c_puct alone."""
    board = _random_board(3, 20)
    shares = []
    for base in (0.0, 50.0):
        result = cy.PUCTPlayer(disc_lead, iterations=3000, c_puct_base=base).search(board)
        shares.append(max(m.visits for m in result.moves) / result.root_visits)
    assert shares[1] < shares[0]
    with pytest.raises(SettingsError, match="c_puct_base"):
        PUCTSettings(c_puct_base=-1)


def test_tree_invariants_and_policy_targets():
    for seed in range(5):
        board = _random_board(100 + seed, 20 + 8 * seed)
        if board.is_game_over():
            continue
        player = cy.PUCTPlayer(disc_lead, iterations=500, batch_size=8, endgame_empties=0)
        result = player.search(board)
        assert player._forest.check_tree(0) == []
        assert result.iterations == 500
        assert sum(m.visits for m in result.moves) == result.root_visits == 499
        legal = set(board.legal_moves)
        assert {m.move for m in result.moves} == legal       # a pass only when forced
        assert all(0 <= m.win_rate <= 1 for m in result.moves)


def test_the_search_finds_endgame_wins():
    """Perspective end to end: scored exactly at the end of the game, the visits go to a
    winning move whenever there is one (checked by the solver)."""
    checked = 0
    for seed in range(40):
        board = _random_board(seed, 54)
        if board.is_game_over() or board.empties() > 8:
            continue
        scores = cy.solve_moves(board)
        if max(scores.values()) <= 0 or min(scores.values()) > 0:
            continue                           # nothing to find: no win, or no loss
        best = cy.PUCTPlayer(uniform_evaluator, iterations=20000).search(board).best_move
        assert scores[best] > 0, (board.board_string(), scores, best)
        checked += 1
    assert checked >= 5


def test_values_are_backed_up_for_the_right_side():
    """An evaluator that calls the position good for whoever just moved into it makes a
    one-ply search's win rates follow it: each move's win rate is its child's value seen
    from the mover."""
    board = cy.Board()
    player = cy.PUCTPlayer(PatternEvaluator(), iterations=5, reuse_tree=False,
                           c_puct=100.0)        # each root move visited once
    result = player.search(board)
    assert sum(m.visits for m in result.moves) == 4
    ev = PatternEvaluator()
    for stats in result.moves:
        child = board.copy()
        child.push(stats.move)
        _, v = ev(child.planes()[None])
        assert stats.win_rate == pytest.approx((1 - float(v[0])) / 2, abs=1e-6)


def test_pattern_evaluator_matches_the_evaluation():
    # search_depth=0: the static evaluation (the default, 1, is tested below with k = 1).
    ev = PatternEvaluator(prior_scale=4.0, value_scale=8.0, search_depth=0)
    for seed in range(5):
        board = _random_board(seed, 30)
        if board.is_game_over():
            continue
        logits, values = ev(board.planes()[None])
        assert values[0] == pytest.approx(math.tanh(cy.evaluate(board) / 16), abs=1e-5)
        for move in board.legal_moves:
            child = board.copy()
            child.push(move)
            assert logits[0, move] == pytest.approx(-cy.evaluate(child) / 4, abs=1e-4)
        assert np.isneginf(np.delete(logits[0], list(board.legal_moves))).all()


def _minimax(board, depth):
    """The reference of the searching evaluator, in discs for the side to move: the
    evaluation at depth 0, a pass using no depth, a finished game its exact result."""
    if board.is_game_over():
        own, opp = (bin(x).count("1") for x in board.position())
        return own - opp + (64 - own - opp) * ((own > opp) - (own < opp))
    if board.must_pass():
        board.push(cy.PASS)
        score = -_minimax(board, depth)
        board.pop()
        return score
    if depth == 0:
        return cy.evaluate(board)
    best = -math.inf
    for move in board.legal_moves:
        board.push(move)
        best = max(best, -_minimax(board, depth - 1))
        board.pop()
    return best


def _check_answer(board, logits, value, depth, prior_depth):
    """The answer of an evaluator with prior_scale 4 and value_scale 8: the value the
    depth-``depth`` minimax score, each move's logit the depth-``prior_depth`` one after it."""
    assert value == pytest.approx(math.tanh(_minimax(board, depth) / 16), abs=1e-5)
    for move in board.legal_moves:
        if move == cy.PASS:
            continue
        child = board.copy()
        child.push(move)
        assert logits[move] == pytest.approx(-_minimax(child, prior_depth) / 4, abs=1e-4)


@pytest.mark.parametrize("depth", [1, 2, 3])
def test_the_searching_evaluator_answers_shallow_search_scores(depth):
    """With search_depth k, the value is the depth-k minimax score of the evaluation and
    each move's logit the depth-(k-1) score after it (against a plain Python minimax and
    the midgame search, full width)."""
    from cythello.eval.weights import default_weights
    from cythello.search.alphabeta._midgame import search
    weights = default_weights()
    ev = PatternEvaluator(prior_scale=4.0, value_scale=8.0, search_depth=depth)
    # Late positions too: passes and finished games inside the searches.
    for seed, plies in [(seed, plies) for seed in range(8) for plies in (10, 26, 48, 54)]:
        board = _random_board(seed, plies)
        if board.is_game_over():
            continue
        logits, values = ev(board.planes()[None])
        _check_answer(board, logits[0], values[0], depth, depth - 1)
        assert values[0] == pytest.approx(
            math.tanh(search(board, depth, weights)[0] / 16), abs=1e-5)
    # A pass: the value searches on from the opponent's moves.
    must_pass = cy.Board("-O" + "X" * 62 + " O")
    assert must_pass.must_pass()
    logits, v = ev(must_pass.planes()[None])
    assert logits[0, cy.PASS] == 0.0
    assert v[0] == pytest.approx(math.tanh(search(must_pass, depth, weights)[0] / 16),
                                 abs=1e-5)
    assert "search_depth=2" in repr(PatternEvaluator(search_depth=2))
    assert PatternEvaluator().search_depth == 1          # the measured default
    again = pickle.loads(pickle.dumps(ev))
    assert again.search_depth == depth
    player = cy.make_player(f"puct:sims=50,search_depth={depth}")
    assert player.search(_random_board(1, 30)).best_move != cy.PASS
    for bad in (-1, 5):
        with pytest.raises(SettingsError, match="search_depth"):
            PatternEvaluator(search_depth=bad)
    with pytest.raises(TypeError, match="search_depth"):
        PatternEvaluator(search_depth=1.5)
    with pytest.raises(SettingsError):
        cy.make_player("puct:search_depth=x")


@pytest.mark.parametrize("depth,prior", [(2, 0), (3, 0), (3, 1)])
def test_a_shallower_prior_depth_searches_the_priors_shallower_and_keeps_the_value(depth,
                                                                                  prior):
    """With prior_depth p below search_depth - 1 each move's logit is the depth-p score
    after it, and the value is still the depth-k minimax score (searched on its own, best
    prior first), from memory as from a search."""
    ev = PatternEvaluator(search_depth=depth, prior_depth=prior, cache_entries=0)
    remembering = PatternEvaluator(search_depth=depth, prior_depth=prior, cache_entries=64)
    for seed, plies in [(seed, plies) for seed in range(6) for plies in (10, 26, 48, 54)]:
        board = _random_board(seed, plies)
        if board.is_game_over():
            continue
        logits, values = ev(board.planes()[None])
        _check_answer(board, logits[0], values[0], depth, prior)
        for _ in range(2):                   # the second time from memory
            again = remembering(board.planes()[None])
            assert np.array_equal(again[0], logits) and np.array_equal(again[1], values)
    assert PatternEvaluator(search_depth=3).prior_depth == 2      # by default k - 1
    assert PatternEvaluator(search_depth=0).prior_depth == 0
    kept = pickle.loads(pickle.dumps(ev))
    assert (kept.search_depth, kept.prior_depth) == (depth, prior)
    assert f"prior_depth={prior}" in repr(ev)
    player = cy.make_player(f"puct:sims=50,search_depth={depth},prior_depth={prior}")
    assert player.evaluator.prior_depth == prior
    for bad_depth, bad in ((2, 2), (2, -1), (1, 1), (0, 1)):
        with pytest.raises(SettingsError, match="prior_depth"):
            PatternEvaluator(search_depth=bad_depth, prior_depth=bad)
    with pytest.raises(TypeError, match="prior_depth"):
        PatternEvaluator(search_depth=2, prior_depth=0.5)
    with pytest.raises(SettingsError, match="prior_depth"):
        cy.make_player("puct:search_depth=2,prior_depth=x")


def test_remembered_answers_are_the_answers_a_search_gives():
    """A searching evaluator answers a position it met before from memory: bit for bit the
    answer a search gives, however small its memory (a slot shared by many positions),
    and a search limited by simulations grows the same tree with it or without it."""
    boards = [_random_board(seed, plies) for seed in range(40) for plies in (12, 26, 40)]
    planes = np.stack([b.planes() for b in boards if not b.is_game_over()])
    for depth in (2, 3):
        plain = PatternEvaluator(search_depth=depth, cache_entries=0)
        expected = plain(planes)
        for entries in (1, 7, 1 << 12):
            ev = PatternEvaluator(search_depth=depth, cache_entries=entries)
            for _ in range(2):               # the second time from memory
                logits, values = ev(planes)
                assert np.array_equal(logits, expected[0])
                assert np.array_equal(values, expected[1])
            for i in range(len(planes)):     # one position at a time: each after itself
                for _ in range(2):
                    logits, values = ev(planes[i:i + 1])
                    assert np.array_equal(logits[0], expected[0][i])
                    assert values[0] == expected[1][i]
    board = _random_board(5, 20)
    results = [cy.PUCTPlayer(PatternEvaluator(search_depth=2, cache_entries=entries),
                             iterations=3000, endgame_empties=0).search(board)
               for entries in (0, 1 << 16)]
    assert [(m.move, m.visits, m.win_rate) for m in results[0].moves] == \
        [(m.move, m.visits, m.win_rate) for m in results[1].moves]


def test_threads_share_a_memory_of_answers_without_wrong_answers():
    # A memory of 5 slots written and read by four threads at once (the GIL released):
    # every answer must still be the position's own.  A torn slot is rare here, so this
    # guards the sharing as a whole; the position check is what test_remembered_answers
    # catches going missing.
    boards = [_random_board(seed, 24) for seed in range(60)]
    planes = np.stack([b.planes() for b in boards if not b.is_game_over()])
    expected = PatternEvaluator(search_depth=2, cache_entries=0)(planes)
    ev = PatternEvaluator(search_depth=2, cache_entries=5)
    wrong = []

    def work(offset):
        order = np.roll(np.arange(len(planes)), offset)
        for _ in range(15):
            logits, values = ev(planes[order])
            if not (np.array_equal(logits, expected[0][order])
                    and np.array_equal(values, expected[1][order])):
                wrong.append(offset)

    threads = [threading.Thread(target=work, args=(k * 7,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert wrong == []
    # And a PUCT search on two threads in one tree with a small memory stays whole.
    player = cy.PUCTPlayer(PatternEvaluator(search_depth=2, cache_entries=64),
                           iterations=4000, threads=2, endgame_empties=0)
    result = player.search(_random_board(8, 20))
    assert player._forest.check_tree(0) == []
    assert sum(m.visits for m in result.moves) == result.root_visits


def test_the_memory_of_answers_is_a_checked_setting():
    assert PatternEvaluator().cache_entries == 1 << 18
    ev = PatternEvaluator(search_depth=2, cache_entries=100)
    assert pickle.loads(pickle.dumps(ev)).cache_entries == 100
    assert make_player("puct:sims=20,cache_entries=0").evaluator.cache_entries == 0
    with pytest.raises(SettingsError, match="cache_entries"):
        PatternEvaluator(cache_entries=-1)
    with pytest.raises(TypeError, match="cache_entries"):
        PatternEvaluator(cache_entries=2.5)
    with pytest.raises(SettingsError, match="cache_entries"):
        make_player("puct:cache_entries=lots")


def test_batches_hold_at_most_batch_size_leaves_and_stay_legal():
    seen = []

    def spy(planes, legal):
        seen.append(len(planes))
        assert planes.shape[1:] == (2, 8, 8) and legal.shape[1:] == (65,)
        for p, mask in zip(planes, legal):
            b = cy.Board.from_bitboards(int(np.packbits(p[0].astype(np.uint8).ravel(),
                                                        bitorder="little").view(np.uint64)[0]),
                                        int(np.packbits(p[1].astype(np.uint8).ravel(),
                                                        bitorder="little").view(np.uint64)[0]))
            expected = np.zeros(65, bool)
            expected[list(b.legal_moves)] = True
            assert (mask == expected).all()
        return uniform_evaluator(planes, legal)

    cy.PUCTPlayer(spy, iterations=400, batch_size=16).search(_random_board(3, 10))
    assert max(seen) <= 16 and max(seen) > 1


@pytest.mark.parametrize("answer, words", [
    (lambda n: (np.zeros((n, 64)), np.zeros(n)), "logits must have shape"),
    (lambda n: (np.zeros((n, 65)), np.zeros(n + 1)), "values must have shape"),
    (lambda n: (np.full((n, 65), np.nan), np.zeros(n)), "logit of legal move"),
    (lambda n: (np.zeros((n, 65)), np.full(n, np.nan)), "value of position"),
    (lambda n: (np.zeros((n, 65)), np.full(n, 2.0)), "must lie in"),
    (lambda n: np.zeros((n, 65)), "must return (logits, values)"),
    (lambda n: (np.zeros((n, 65)), ["x"] * n), "not numbers"),
])
def test_bad_evaluator_answers_are_clear_errors(answer, words):
    player = cy.PUCTPlayer(lambda planes, legal: answer(len(planes)), iterations=50,
                           batch_size=4)
    with pytest.raises(EvaluatorError, match=words.replace("(", r"\(").replace(")", r"\)")):
        player.search(cy.Board())
    # The player is usable afterwards, its tree whole.
    player.evaluator = uniform_evaluator
    result = player.search(cy.Board())
    assert player._forest.check_tree(0) == []
    assert result.iterations >= 50


def test_an_evaluator_exception_goes_on_and_the_player_stays_usable():
    calls = []

    def flaky(planes, legal):
        calls.append(1)
        if len(calls) == 7:
            raise RuntimeError("GPU fell off")
        return disc_lead(planes, legal)

    player = cy.PUCTPlayer(flaky, iterations=200, batch_size=4)
    with pytest.raises(RuntimeError, match="GPU fell off"):
        player.search(cy.Board())
    assert player._forest.check_tree(0) == []
    assert player.search(cy.Board()).iterations >= 200
    assert player._forest.check_tree(0) == []


def test_all_minus_infinity_logits_give_uniform_priors():
    def hopeless(planes, legal):
        return np.full((len(planes), 65), -np.inf), np.zeros(len(planes))
    player = cy.PUCTPlayer(hopeless, iterations=9, c_puct=100.0)
    result = player.search(cy.Board())
    assert sorted(m.visits for m in result.moves) == [2, 2, 2, 2]
    assert player._forest.check_tree(0) == []


def test_an_evaluator_that_searches_its_own_player_is_refused():
    player = None

    def reentrant(planes, legal):
        player.search(cy.Board())
        return uniform_evaluator(planes, legal)

    player = cy.PUCTPlayer(reentrant, iterations=10)
    with pytest.raises(PlayerBusyError):
        player.search(cy.Board())
    assert player._forest.check_tree(0) == []


def test_an_evaluator_that_calls_its_player_while_pondering_is_refused_not_stuck():
    """From the pondering thread the call would wait for the turn, whose holder waits for
    that thread: it is refused instead, pondering ends, and the player goes on."""
    player = None
    hostile = threading.Event()
    refused = []

    def evaluator(planes, legal):
        if hostile.is_set():
            try:
                player.reset()
            except PlayerBusyError as exc:
                refused.append(exc)
                raise
        return uniform_evaluator(planes, legal)

    player = cy.PUCTPlayer(evaluator, iterations=50, seed=1)
    board = cy.Board.from_transcript("f5d6c3")
    player.search(board)
    hostile.set()
    player.ponder(board)
    wait_for(lambda: not player.pondering, "pondering to end")
    assert refused
    hostile.clear()
    worker = threading.Thread(target=player.search, args=(board,))
    worker.start()
    worker.join(60)
    assert not worker.is_alive()
    assert player._forest.check_tree(0) == []


def test_tree_reuse_keeps_the_subtree():
    player = cy.PUCTPlayer(disc_lead, iterations=2000)
    board = cy.Board()
    first = player.search(board)
    board.push(first.best_move)
    kept = next(m.visits for m in first.moves if m.move == first.best_move)
    second = player.search(board)
    assert second.reused_visits == kept
    assert second.root_visits == kept + 2000 - 1 or second.root_visits == kept + 2000
    assert player._forest.check_tree(0) == []
    fresh = cy.PUCTPlayer(disc_lead, iterations=2000, reuse_tree=False)
    fresh.search(cy.Board())
    assert fresh.search(board).reused_visits == 0


def test_tree_reuse_finds_the_position_without_move_stacks():
    player = cy.PUCTPlayer(PatternEvaluator(), iterations=2000)
    board = cy.Board.from_transcript("f5d6c3")
    first = player.search(board.copy(stack=False))
    after = board.copy(stack=False)
    after.push(first.best_move)
    reply = max(player.search(after).moves, key=lambda m: m.visits).move
    board.push(first.best_move)
    board.push(reply)                           # a board with its whole stack this time
    assert player.search(board).reused_visits > 100
    unrelated = cy.Board.from_transcript("f5f6e6f4")
    assert player.search(unrelated).reused_visits == 0


def test_advancing_the_root_compacts_the_subtree_in_place():
    forest = PUCTSettings().forest(1)
    forest.set_root(0, *cy.Board().position())
    forest.run_native(PatternEvaluator(), [1], 5000)
    for _ in range(3):
        line, size = forest.principal_variation(0), forest.nodes(0)
        moves, visits, _, _ = forest.root_children(0)
        kept = forest.advance(0, line[0])
        assert kept == forest.root_visits(0) == visits[list(moves).index(line[0])]
        assert forest.principal_variation(0) == line[1:]
        assert forest.nodes(0) < size and forest.check_tree(0) == []


def test_root_noise_and_temperature_are_seeded():
    def moves(seed):
        p = cy.PUCTPlayer(disc_lead, iterations=64, dirichlet_alpha=0.5,
                          temperature_moves=60, seed=seed)
        b = cy.Board()
        for _ in range(8):
            b.push(p.choose_move(b))
        return b.transcript()
    assert moves(1) == moves(1)
    assert len({moves(s) for s in range(6)}) > 1


def test_time_limit_and_stop():
    player = cy.PUCTPlayer(uniform_evaluator, time_limit=0.2)
    result = player.search(cy.Board())
    assert result.stop_reason == "time" and result.iterations > 0
    player = cy.PUCTPlayer(uniform_evaluator, iterations=10**9)
    timer = threading.Timer(0.2, player.stop)
    timer.start()
    assert player.search(cy.Board()).stop_reason == "stopped"


def test_a_full_node_pool_does_not_end_the_search():
    """At its node cap the tree stops growing, not searching: it runs to its limits with
    a sound tree, and its choice still follows the evaluator."""
    player = cy.PUCTPlayer(disc_lead, iterations=20000, max_nodes=200, batch_size=4,
                           recycle=False)
    result = player.search(cy.Board())
    assert result.stop_reason == "iterations" and result.iterations == 20000
    assert result.nodes <= 200 and player._forest.is_full(0)
    assert player._forest.check_tree(0) == []
    timed = cy.PUCTPlayer(uniform_evaluator, time_limit=0.3, max_nodes=100,
                          recycle=False).search(cy.Board())
    assert timed.stop_reason == "time" and timed.elapsed >= 0.29 and timed.nodes <= 100


def test_a_full_tree_is_recycled_and_grows_on():
    """Recycling keeps the root's children and the subtrees of the most visited nodes
    within half the cap, loses no visit of what it keeps, and leaves a sound tree that
    the search grows again; with room for everything it changes nothing."""
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    forest = PUCTSettings(max_nodes=5000).forest(1)
    forest.set_root(0, *board.position())
    evaluator = PatternEvaluator()
    for _ in range(4):
        while not forest.is_full(0):
            forest.run_native(evaluator, [1], 16)
        visits, children = forest.root_visits(0), forest.root_children(0)
        line = forest.principal_variation(0, 3)
        kept = forest.recycle(0)
        assert kept == forest.nodes(0) <= 2500 and not forest.is_full(0)
        assert forest.root_visits(0) == visits and forest.check_tree(0) == []
        assert all(np.array_equal(a, b) for a, b in zip(children, forest.root_children(0)))
        assert forest.principal_variation(0, 3) == line
    size, line = forest.nodes(0), forest.principal_variation(0)
    assert forest.recycle(0, keep=1.0) == size and forest.principal_variation(0) == line
    with pytest.raises(ValueError, match="keep"):
        forest.recycle(0, keep=0)

    player = cy.PUCTPlayer(evaluator, time_limit=0.3, max_nodes=3000)
    result = player.search(board)
    assert result.stop_reason == "time" and result.elapsed >= 0.29
    assert player.recycled > 0 and result.nodes <= 3000
    assert player._forest.check_tree(0) == []


# -- several threads in one tree ---------------------------------------------------------

@pytest.mark.parametrize("threads", [2, 4])
def test_threads_share_one_sound_tree(threads):
    """Threads searching one tree at once: every visit accounted for (an expanded node
    has 1 + its children's visits: no virtual loss or batched update left behind),
    priors and means sound, each call within its budget, and the tree's memory grown
    between calls (a call that fills its room ends early, the next makes more)."""
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    evaluator = PatternEvaluator()
    forest = PUCTSettings().forest(1)
    forest.set_root(0, *board.position())
    forest.run_native(evaluator, [1], 1)          # the root is expanded first
    for _ in range(6):
        leaves, resolved = forest.run_shared(evaluator, 0, threads, 4000, 0)
        assert 0 < leaves + resolved <= 4000
        assert forest.check_tree(0) == []
    assert forest.nodes(0) > 65536                # past the first call's room
    assert forest.root_visits(0) == forest.simulations(0) > 12000
    with pytest.raises(ValueError, match="threads"):
        forest.run_shared(evaluator, 0, 0, 10, 0)


def test_threads_at_the_node_cap_stop_or_search_on():
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    evaluator = PatternEvaluator()
    forest = PUCTSettings(max_nodes=5000).forest(1)
    forest.set_root(0, *board.position())
    forest.run_native(evaluator, [1], 1)
    for _ in range(3):
        while not forest.is_full(0):
            forest.run_shared(evaluator, 0, 2, 10**6, 0)       # stops when full
        assert forest.nodes(0) <= 5000 and forest.check_tree(0) == []
        forest.recycle(0)
        assert forest.check_tree(0) == [] and not forest.is_full(0)
    while not forest.is_full(0):
        forest.run_shared(evaluator, 0, 2, 10**6, 0)
    before = forest.simulations(0)
    leaves, resolved = forest.run_shared(evaluator, 0, 2, 3000, 0, False)
    # A full tree searches on: leaves already evaluated answer again.
    assert resolved > 0 and forest.simulations(0) == before + leaves + resolved
    assert forest.nodes(0) <= 5000 and forest.check_tree(0) == []


def test_a_player_on_threads_keeps_its_limits_reuse_and_stops():
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    player = cy.PUCTPlayer(PatternEvaluator(), iterations=20000, threads=2)
    result = player.search(board)
    assert result.stop_reason == "iterations" and result.iterations == 20000
    assert result.root_visits == 20000 - 1 and player._forest.check_tree(0) == []
    board.push(result.best_move)
    timed = player.search(board, time_limit=0.3)
    assert timed.stop_reason == "time" and 0.29 <= timed.elapsed < 30   # 30 s: a hang
    assert timed.reused_visits > 0 and player._forest.check_tree(0) == []
    endless = cy.PUCTPlayer(PatternEvaluator(), iterations=10**9, threads=2)
    timer = threading.Timer(0.2, endless.stop)
    timer.start()
    stopped = endless.search(board)
    assert stopped.stop_reason == "stopped" and stopped.elapsed < 30  # unstopped: hours
    small = cy.PUCTPlayer(PatternEvaluator(), time_limit=0.3, max_nodes=3000, threads=2)
    result = small.search(board)
    assert small.recycled > 0 and result.nodes <= 3000
    assert small._forest.check_tree(0) == []
    small.ponder(board)                           # pondering on two threads too
    wait_for(lambda: small._forest.root_visits(0) > 2000, "the pondered tree to grow")
    small.stop_pondering()
    assert not _puct_ponder_threads() and small._forest.check_tree(0) == []


def test_threads_are_refused_where_they_cannot_work(tmp_path):
    with pytest.raises(SettingsError, match="PatternEvaluator"):
        cy.PUCTPlayer(disc_lead, threads=2)       # a network called from Python
    with pytest.raises(SettingsError, match="batch_size"):
        PUCTSettings(threads=2, batch_size=4)
    with pytest.raises(SettingsError, match="one thread"):
        selfplay.generate(1, tmp_path / "run", evaluator=PatternEvaluator(), threads=2)


@pytest.mark.parametrize("batch_size", [1, 5])
def test_the_pattern_evaluator_is_called_in_c_with_the_same_trees(batch_size):
    """The shipped evaluator skips Python (no evaluator calls) and grows exactly the tree
    that the same evaluator called through Python grows."""
    board = _random_board(7, 14)
    evaluator = PatternEvaluator()
    native = cy.PUCTPlayer(evaluator, iterations=3000, batch_size=batch_size)
    wrapped = cy.PUCTPlayer(lambda planes, legal: evaluator(planes, legal),
                            iterations=3000, batch_size=batch_size)
    a, b = native.search(board), wrapped.search(board)
    assert native.evaluator_calls == 0 and wrapped.evaluator_calls > 0
    assert [(m.move, m.visits, m.win_rate) for m in a.moves] == \
        [(m.move, m.visits, m.win_rate) for m in b.moves]
    assert a.nodes == b.nodes and a.principal_variation == b.principal_variation
    forest = PUCTSettings().forest(1)
    with pytest.raises(ValueError, match="steps"):
        forest.run_native(evaluator, [1], 0)
    with pytest.raises(TypeError):
        forest.run_native(disc_lead, [1], 1)


def test_settings_are_checked_once():
    with pytest.raises(SettingsError, match="c_puct"):
        PUCTSettings(c_puct=-1)
    with pytest.raises(SettingsError, match="batch_size"):
        cy.PUCTPlayer(uniform_evaluator, batch_size=0)
    with pytest.raises(TypeError, match="unknown PUCT setting"):
        PUCTSettings().replace(rollout="random")           # a UCT setting
    with pytest.raises(TypeError, match="callable"):
        cy.PUCTPlayer("net")
    with pytest.raises(cy.InvalidBoardError):
        cy.PUCTPlayer(uniform_evaluator).search(cy.Board.from_bitboards(0xFFFF, 0))
    assert PUCTSettings().limits == (800, None) and PUCTSettings().iterations is None
    # The budget was called simulations: the old name still works, with a warning.
    with pytest.warns(DeprecationWarning, match="simulations is now called iterations"):
        old = PUCTSettings(simulations=7)
    assert old.iterations == 7 and old == PUCTSettings(iterations=7)
    with pytest.warns(DeprecationWarning):
        assert old.simulations == 7
    with pytest.warns(DeprecationWarning):
        assert old.replace(simulations=9).iterations == 9
    with pytest.warns(DeprecationWarning):
        assert cy.PUCTPlayer(uniform_evaluator, simulations=5).settings.iterations == 5
    with pytest.raises(TypeError, match="old name"):
        PUCTSettings(simulations=7, iterations=8)
    assert PUCTSettings(time_limit=1).limits == (None, 1.0)


def test_the_default_node_cap_is_per_thread_as_the_uct_pools():
    from cythello.search.settings import DEFAULT_MAX_NODES
    assert PUCTSettings().nodes_per_tree == DEFAULT_MAX_NODES
    assert PUCTSettings(threads=4).nodes_per_tree == 4 * DEFAULT_MAX_NODES
    assert PUCTSettings(threads=4).nodes_per_tree == cy.SearchSettings(threads=4).nodes_per_tree
    assert PUCTSettings(threads=4, max_nodes=1000).nodes_per_tree == 1000
    # The forest takes it: a tree of a 100-node cap is full after a few expansions.
    forest = PUCTSettings(threads=2, max_nodes=100).forest(1)
    forest.set_root(0, *cy.Board().position())
    forest.run_native(PatternEvaluator(), [1], 1)          # the root
    for _ in range(1000):                                   # bounded: a bug fails, not hangs
        if forest.is_full(0):
            break
        forest.run_shared(PatternEvaluator(), 0, 2, 50, 0.0, True)
    assert forest.is_full(0) and forest.nodes(0) <= 100


def test_a_clock_keeps_a_simulation_cap_and_nothing_else():
    # One meaning of a clock for both players: it gives the time, and the settings' own
    # cap (a level's) still holds; the 800 simulations of settings without limits do not.
    from cythello.search.clock import Clock
    capped = cy.PUCTPlayer(PatternEvaluator(), iterations=300, seed=1)
    assert capped.search(cy.Board(), clock=Clock(600.0)).iterations == 300
    free = cy.PUCTPlayer(PatternEvaluator(), seed=1)
    assert free.search(cy.Board(), clock=Clock(2.0)).stop_reason == "time"
    free.reset()                                  # a fresh tree: nothing reused
    assert free.search(cy.Board()).iterations == 800


def test_player_specs():
    player = make_player("puct:sims=50,c_puct=2,prior_scale=3", seed=4)
    assert isinstance(player, cy.PUCTPlayer) and player.settings.iterations == 50
    assert player.evaluator.prior_scale == 3.0
    assert isinstance(make_player("puct:evaluator=uniform,sims=5"), cy.PUCTPlayer)
    for bad in ("puct:evaluator=magic", "puct:c_puct=x", "puct:colour=1",
                "puct:evaluator=uniform,prior_scale=2",
                "puct:evaluator=uniform,eval_weights=default"):
        with pytest.raises(SettingsError):
            make_player(bad)


def test_player_spec_with_other_weights(tmp_path):
    """``puct:eval_weights=FILE``: the evaluator of those weights (how two trainings meet
    in a match); a file that is not one names itself."""
    from cythello.errors import WeightsError
    from cythello.eval import default_weights
    from cythello.eval.weights import DEFAULT_PATH, read_weights, save_weights
    packed, _ = read_weights(DEFAULT_PATH)
    save_weights(tmp_path / "half.weights", packed // 2, {"training": "halved"})
    player = make_player(f"puct:sims=20,eval_weights={tmp_path / 'half.weights'}")
    board = cy.Board()
    board.push(19)
    assert player.evaluator.weights.evaluate(board) != default_weights().evaluate(board)
    assert make_player("puct:sims=20,eval_weights=default").evaluator.weights is default_weights()
    (tmp_path / "bad.weights").write_bytes(b"not weights")
    with pytest.raises(WeightsError, match="bad.weights"):
        make_player(f"puct:eval_weights={tmp_path / 'bad.weights'}")


def test_a_match_with_puct_players():
    result = cy.run_match(make_player("puct:sims=30,batch_size=4", seed=1),
                          make_player("puct:evaluator=uniform,sims=30", seed=2), games=2)
    assert result.games and len(result.games) == 2


# -- self-play with an evaluator -------------------------------------------------------------

def test_selfplay_shards_do_not_depend_on_batch_games(tmp_path):
    runs = []
    for batch_games in (1, 3, 64):
        out = tmp_path / f"b{batch_games}"
        selfplay.generate(5, out, seed=11, evaluator=disc_lead, batch_games=batch_games,
                          iterations=40, games_per_shard=2, temperature_moves=6,
                          dirichlet_alpha=0.5, random_plies=2)
        runs.append([p.read_bytes() for p in sorted(out.glob("shard-*.npz"))])
    assert runs[0] == runs[1] == runs[2] and len(runs[0]) == 3
    data = selfplay.load(tmp_path / "b1")
    selfplay.replay_check(data)
    searched = ~np.isnan(data["value"])
    assert (data["visits"][searched].sum(1) >= 39).all()
    legal_ok = [cy.Board.from_bitboards(int(b), int(w), int(t)).is_legal(int(m))
                for b, w, t, m in zip(data["black"], data["white"], data["turn"], data["move"])]
    assert all(legal_ok)


def test_selfplay_with_the_pattern_evaluator_in_c_gives_the_same_shards(tmp_path):
    evaluator = PatternEvaluator()
    runs = []
    for name, guide in (("c", evaluator), ("py", lambda p, m: evaluator(p, m))):
        out = tmp_path / name
        selfplay.generate(4, out, seed=13, evaluator=guide, iterations=30,
                          games_per_shard=2, temperature_moves=6, dirichlet_alpha=0.5)
        runs.append([p.read_bytes() for p in sorted(out.glob("shard-*.npz"))])
    assert runs[0] == runs[1] and len(runs[0]) == 2


def test_selfplay_with_an_evaluator_on_worker_processes_gives_the_same_shards(tmp_path):
    runs = []
    for workers in (1, 2):
        out = tmp_path / f"w{workers}"
        selfplay.generate(5, out, seed=12, evaluator=PatternEvaluator(), workers=workers,
                          iterations=30, games_per_shard=2, temperature_moves=6,
                          dirichlet_alpha=0.5)
        runs.append([p.read_bytes() for p in sorted(out.glob("shard-*.npz"))])
    assert runs[0] == runs[1] and len(runs[0]) == 3


def test_selfplay_with_an_evaluator_refuses_ray_and_resumes(tmp_path):
    with pytest.raises(SettingsError, match="local backend"):
        selfplay.generate(2, tmp_path / "w", evaluator=uniform_evaluator, backend="ray")
    with pytest.raises(TypeError, match="rollout"):        # a UCT setting, not a PUCT one
        selfplay.generate(2, tmp_path / "s", evaluator=uniform_evaluator, rollout="random")
    out = tmp_path / "r"
    selfplay.generate(4, out, seed=2, evaluator=uniform_evaluator, iterations=10,
                      games_per_shard=2)
    before = [p.read_bytes() for p in sorted(out.glob("shard-*.npz"))]
    (sorted(out.glob("shard-*.npz"))[1]).unlink()
    selfplay.generate(4, out, seed=2, evaluator=uniform_evaluator, iterations=10,
                      games_per_shard=2)
    assert [p.read_bytes() for p in sorted(out.glob("shard-*.npz"))] == before
    with pytest.raises(SettingsError, match="other settings"):
        selfplay.generate(4, out, seed=2, evaluator=disc_lead, iterations=10,
                          games_per_shard=2)


def test_the_endgame_solver_takes_over_when_asked():
    board = next(b for b in (_random_board(s, 52) for s in range(50))
                 if not b.is_game_over() and b.empties() <= 10)
    scores = cy.solve_moves(board)
    result = cy.PUCTPlayer(uniform_evaluator, iterations=50,
                           endgame_empties=12).search(board)
    assert result.stop_reason == "exact"
    assert result.exact_score == max(scores.values()) == scores[result.best_move]
    assert cy.PUCTPlayer(uniform_evaluator, iterations=50,
                         endgame_empties=0).search(board).stop_reason != "exact"
    # By default it solves from 20 empties, as MCTSPlayer does.
    assert cy.PUCTPlayer(uniform_evaluator, iterations=50).search(board).stop_reason == "exact"
    # With endgame_by_time the time decides below the cap: a few empties fit any time, a
    # midgame position no short one.
    by_time = cy.PUCTPlayer(uniform_evaluator, time_limit=0.2, endgame_empties=60,
                            endgame_by_time=True)
    assert by_time.search(board).stop_reason == "exact"
    far = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    assert by_time.search(far).stop_reason == "time"


def test_mcts_player_points_a_network_to_puct():
    with pytest.raises(TypeError, match="PUCTPlayer"):
        cy.MCTSPlayer(evaluator=uniform_evaluator)


class _FailingOnce:
    """disc_lead, but the ``fail_at``-th call raises (then never again)."""

    def __init__(self, fail_at):
        self.calls, self.fail_at = 0, fail_at

    def __call__(self, planes, legal):
        self.calls += 1
        if self.calls == self.fail_at:
            raise KeyboardInterrupt
        return disc_lead(planes, legal)


def test_selfplay_interrupted_by_its_evaluator_continues_to_the_same_shards(tmp_path):
    clean = tmp_path / "clean"
    args = dict(seed=5, iterations=20, games_per_shard=1, batch_games=2)
    selfplay.generate(4, clean, evaluator=_FailingOnce(0), **args)
    broken = tmp_path / "broken"
    flaky = _FailingOnce(300)
    with pytest.raises(KeyboardInterrupt):
        selfplay.generate(4, broken, evaluator=flaky, **args)
    assert len(list(broken.glob("shard-*.npz"))) < 4
    selfplay.generate(4, broken, evaluator=flaky, **args)
    assert [p.read_bytes() for p in sorted(broken.glob("shard-*.npz"))] == \
        [p.read_bytes() for p in sorted(clean.glob("shard-*.npz"))]


@pytest.mark.parametrize("framework", ["numpy", "torch"])
def test_the_alphazero_example_runs(tmp_path, framework):
    """examples/alphazero.py, one tiny iteration: self-play, training, evaluation."""
    import subprocess
    import sys
    from pathlib import Path
    if framework == "torch":
        pytest.importorskip("torch", reason="PyTorch is optional")
    root = Path(__file__).resolve().parent.parent
    curve = tmp_path / "curve.csv"
    subprocess.run([sys.executable, str(root / "examples" / "alphazero.py"), "--iterations",
                    "1", "--games", "4", "--simulations", "8", "--eval-games", "2",
                    "--csv", str(curve)] + (["--torch"] if framework == "torch" else []),
                   check=True, timeout=300, capture_output=True)
    lines = curve.read_text().splitlines()
    assert lines[0].startswith("iteration,positions") and len(lines) == 3


def test_a_stop_before_the_first_simulation_still_answers():
    player = cy.PUCTPlayer(uniform_evaluator, iterations=100)
    seen = player.stops
    player.stop()                      # came after the caller read stops: before the loop
    result = player.search(cy.Board(), stops_seen=seen)
    assert result.stop_reason == "stopped" and result.best_move in cy.Board().legal_moves
    assert result.iterations == 1      # the root's expansion, so that there are moves


# -- PUCT as an engine's player: limits per search, clocks, stops, pondering ----------------

def _puct_ponder_threads():
    return [t for t in threading.enumerate() if t.name == "cythello-puct-ponder"]


def test_limits_clock_solve_and_stops_for_one_search():
    from cythello.search.clock import Clock
    # A cap far beyond what these searches reach: the clocked search below reuses the timed
    # one's tree, whose visits count towards it (100,000 was reached on a quiet machine).
    player = cy.PUCTPlayer(PatternEvaluator(), iterations=50_000_000, endgame_empties=12)
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7d7c5b6")
    assert player.search(board, iterations=300).iterations == 300
    timed = player.search(board, time_limit=0.2)
    assert timed.stop_reason == "time" and timed.elapsed >= 0.19
    # A second left for the game: the clock is the only time limit, so "time" says it
    # stopped the search (wall-clock bounds belong in benchmarks).
    clocked = player.search(board, clock=Clock(1.0))
    assert clocked.stop_reason == "time"
    late = _random_board(3, 50)
    assert late.empties() <= 12 and not late.is_game_over()
    assert player.search(late, iterations=50).exact_score is not None
    assert player.search(late, iterations=50, solve=False).exact_score is None
    seen = player.stops
    player.stop()                                 # came after the engine read stops
    stopped = player.search(board, stops_seen=seen)
    assert stopped.stop_reason == "stopped" and stopped.moves
    assert player.search(board, iterations=10, stops_seen=player.stops).iterations == 10
    with pytest.raises(TypeError, match="clock"):
        player.search(board, clock=3.0)


def test_progress_reports_while_the_tree_grows():
    # Snapshots come about every progress_interval, the search still running, each with
    # more simulations than the last and a sound move table; a bad callback is refused.
    seen = []
    player = cy.PUCTPlayer(PatternEvaluator(), progress_interval=0.05, seed=1)
    board = cy.Board.from_transcript("f5d6c3d3c4f4")
    final = player.search(board, time_limit=0.4, on_progress=seen.append, book=False)
    assert 2 <= len(seen) <= 12
    assert all(r.stop_reason == "running" for r in seen)
    done = [r.iterations for r in seen]
    assert done == sorted(done) and done[-1] <= final.iterations
    assert all(r.moves and sum(m.visits for m in r.moves) == r.root_visits for r in seen)
    with pytest.raises(TypeError, match="on_progress"):
        player.search(board, iterations=10, on_progress=3)
    with pytest.raises(SettingsError, match="progress_interval"):
        cy.PUCTPlayer(PatternEvaluator(), progress_interval=-1)


def test_ponder_then_search_reuses_the_pondered_tree_within_its_nodes():
    player = cy.PUCTPlayer(PatternEvaluator(), iterations=500, max_nodes=20_000)
    board = cy.Board.from_transcript("f5d6c3")
    board.push(player.choose_move(board))
    player.ponder(board)
    assert player.pondering and len(_puct_ponder_threads()) == 1
    wait_for(lambda: player._forest.root_visits(0) > 5_000, "the pondered tree to grow")
    assert player._forest.nodes(0) <= 20_000
    moves, visits, _, _ = player._forest.root_children(0)
    board.push(int(moves[np.argmax(visits)]))
    result = player.search(board)                 # ends pondering first
    assert not player.pondering and not _puct_ponder_threads()
    assert result.reused_visits > 1_000 and result.iterations == 500
    assert player._forest.check_tree(0) == []


def test_engines_serve_puct(capsys):
    import io

    from cythello.cli import main
    from cythello.protocols.gtp import GtpEngine
    gtp = GtpEngine(cy.PUCTPlayer(PatternEvaluator(), iterations=300), ponder=True)
    assert gtp.handle("genmove b").startswith("= ")
    assert gtp.player.pondering
    gtp.run(io.StringIO("genmove w\nquit\n"), io.StringIO())
    assert not gtp.player.pondering and not _puct_ponder_threads()
    assert main(["gtp", "--search", "puct", "--parallel", "root"]) == 2
    assert "--parallel: the UCT search's options" in capsys.readouterr().err


def test_a_player_whose_evaluator_refers_to_it_is_still_collected():
    import gc
    import weakref

    class Net:                              # a network that keeps its player
        player = None

        def __call__(self, planes, legal):
            return uniform_evaluator(planes, legal)

    net = Net()
    net.player = cy.PUCTPlayer(net, iterations=50)
    net.player.search(cy.Board())
    collected = weakref.ref(net.player)
    del net
    gc.collect()
    assert collected() is None


def test_puct_from_a_preset_solves_as_the_preset_does():
    import argparse

    from cythello.cli.common import puct_player_from_args
    args = argparse.Namespace(preset="expert", iterations=None, time_limit=None, seed=None,
                              max_nodes=None, threads=None)
    s = puct_player_from_args(args).settings
    expert = cy.SearchSettings.preset("expert")
    assert (s.endgame_empties, s.endgame_by_time, s.time_limit) == (
        expert.endgame_empties, expert.endgame_by_time, expert.time_limit)
    args.preset = "hard"
    s = puct_player_from_args(args).settings
    assert (s.endgame_empties, s.endgame_by_time) == (18, False)
