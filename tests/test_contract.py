"""One contract, checked against every searching player (UCT, PUCT and alpha-beta), as scikit-learn's
estimator checks run one suite against every estimator: threads and pondering
(:mod:`cythello.search.turns`), stops, re-entrance, pickling, bad arguments.  Each
search's own behaviour lives in test_mcts.py and test_puct.py."""
import gc
import pickle
import threading

import pytest

import cythello as cy
from conftest import wait_for
from cythello import Board
from cythello.errors import PlayerBusyError, SettingsError
from cythello.nn import PatternEvaluator

MIDGAME = Board.from_transcript("c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2")   # out of the book
PONDER_THREADS = ("cythello-ponder", "cythello-puct-ponder", "cythello-alphabeta-ponder")


def make(kind, **settings):
    """A player of ``kind`` with ``settings`` (``budget`` is the iterations of a tree
    search; the alpha-beta player searches a few plies instead, and reports after
    each, whatever the progress interval)."""
    budget = settings.pop("budget", None)
    if kind == "alphabeta":
        settings.pop("progress_interval", None)
        settings.pop("reuse_tree", None)
        if budget is not None:
            settings["depth"] = 3 + budget // 100
        return cy.AlphaBetaPlayer(probcut=1.5, **settings)
    if budget is not None:
        settings["iterations"] = budget           # one name for every tree search's budget
    if kind == "uct":
        return cy.MCTSPlayer(**settings)
    return cy.PUCTPlayer(PatternEvaluator(), **settings)


@pytest.fixture(params=["uct", "puct", "alphabeta"])
def kind(request):
    return request.param


def ponder_threads():
    return [t for t in threading.enumerate() if t.name in PONDER_THREADS and t.is_alive()]


def check_result(board, result):
    assert result.best_move in board.legal_moves
    assert 0.0 <= result.win_rate <= 1.0
    assert sum(m.visits for m in result.moves) <= max(result.iterations, 1) + 2_000_000


# -- pondering -----------------------------------------------------------------------------------

def test_pondering_ends_with_reset_stop_and_the_player(kind):
    board = Board.from_transcript("f5d6c3")
    player = make(kind, budget=200, seed=3)
    player.ponder(board)
    assert player.pondering
    player.reset()                                  # ends it, then forgets the tree
    assert not player.pondering and not ponder_threads()
    player.ponder(board)
    stopper = threading.Thread(target=player.stop)
    stopper.start()
    stopper.join()
    wait_for(lambda p=player: not p.pondering, "stop() from another thread")
    player.stop_pondering()                         # nothing left to end: no error
    player.ponder(board)
    assert ponder_threads()
    gc.disable()                 # freed by its reference count, not the cycle collector
    try:
        del player
        wait_for(lambda: not ponder_threads(), "the threads of a dropped player to end")
    finally:
        gc.enable()
    # Nothing to ponder without tree reuse (a tree search's) or in a finished game.
    quiet = make(kind, budget=100, reuse_tree=False)
    if kind != "alphabeta":
        quiet.ponder(board)
        assert not quiet.pondering
    finished = Board()
    while not finished.is_game_over():
        finished.push(min(finished.legal_moves))
    quiet.ponder(finished)
    assert not quiet.pondering
    with pytest.raises(TypeError):
        quiet.ponder("f5d6")


def test_ponder_and_search_from_two_threads_take_turns(kind):
    """ponder() on one thread and search() on another, started together, many times: no
    call is refused, pondering never runs beside a search (a search ends it), and the
    player is sound after (0.3.0: PlayerBusyError 135 times in 174)."""
    player = make(kind, budget=60, seed=1)
    failures = []
    for _ in range(40):
        start = threading.Barrier(2)

        def ponder(start=start):
            start.wait()
            try:
                player.ponder(MIDGAME)
            except Exception as exc:            # noqa: BLE001 - collected for the assert
                failures.append(exc)

        other = threading.Thread(target=ponder)
        other.start()
        start.wait()
        result = player.search(MIDGAME, book=False)
        other.join()
        check_result(MIDGAME, result)
    assert failures == []
    player.stop_pondering()
    assert not player.pondering and not ponder_threads()
    check_result(MIDGAME, player.search(MIDGAME))
    if kind == "puct":
        assert player._forest.check_tree(0) == []


def test_searches_from_several_threads_run_one_after_another(kind):
    player = make(kind, budget=150, seed=2)
    results, failures = [], []
    start = threading.Barrier(4)

    def search():
        start.wait()
        try:
            results.append(player.search(MIDGAME))
        except Exception as exc:                # noqa: BLE001
            failures.append(exc)

    workers = [threading.Thread(target=search) for _ in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert failures == [] and len(results) == 4
    for result in results:
        check_result(MIDGAME, result)


def long_search(kind):
    """A player searching MIDGAME for a minute in another thread, once it has begun: the
    player, the thread, and the list its result will be put in."""
    player = make(kind, time_limit=60, seed=1, progress_interval=0.01)
    searching = threading.Event()
    found = []
    worker = threading.Thread(target=lambda: found.append(player.search(
        MIDGAME, on_progress=lambda r: searching.set())))
    worker.start()
    assert searching.wait(30)
    return player, worker, found


def test_reset_and_ponder_wait_for_a_running_search(kind):
    player, worker, found = long_search(kind)
    before = player.stops
    # Each call notes the stop count when it returns: a call that waited for the search
    # returns after the stop() that ended it, one that ran beside it before that stop.
    returned = []

    def call(fn, *args):
        fn(*args)
        returned.append(player.stops)

    waiting = [threading.Thread(target=call, args=(player.reset,)),
               threading.Thread(target=call, args=(player.ponder, MIDGAME))]
    try:
        for w in waiting:
            w.start()
        assert worker.is_alive()                        # not disturbed by them
    finally:
        player.stop()
        worker.join(30)
        for w in waiting:
            w.join(30)
    assert not worker.is_alive() and not any(w.is_alive() for w in waiting)
    assert found and found[0].stop_reason == "stopped"
    assert returned == [before + 1, before + 1]         # both waited, neither raised
    player.stop_pondering()
    check_result(MIDGAME, player.search(MIDGAME, time_limit=0.05))


def test_a_call_from_inside_its_own_search_is_refused(kind):
    player = make(kind, time_limit=0.3, seed=1, progress_interval=0.01)
    for call in (lambda: player.search(MIDGAME, iterations=10), player.reset,
                 lambda: player.ponder(MIDGAME)):
        def progress(_snapshot, call=call):
            call()
        with pytest.raises(PlayerBusyError, match="inside this player's own search"):
            player.search(MIDGAME, on_progress=progress)
    check_result(MIDGAME, player.search(MIDGAME, iterations=50))    # still usable


# -- stops ---------------------------------------------------------------------------------------

def test_stop_from_another_thread_ends_a_search(kind):
    player, worker, found = long_search(kind)
    player.stop()
    worker.join(30)
    assert not worker.is_alive()
    assert found[0].stop_reason == "stopped"
    check_result(MIDGAME, found[0])


def test_a_stop_seen_before_the_search_ends_it_at_once(kind):
    player = make(kind, time_limit=60, seed=1)
    seen = player.stops
    player.stop()
    result = player.search(MIDGAME, stops_seen=seen)
    assert result.stop_reason == "stopped"
    assert result.best_move in MIDGAME.legal_moves
    # A stop is for the search running (or told of it): the next one runs in full.
    assert player.search(MIDGAME, iterations=40).stop_reason == "iterations"


# -- pickling and arguments ----------------------------------------------------------------------

def test_a_player_pickles_to_a_worker_with_its_settings(kind):
    player = make(kind, budget=80, seed=5)
    player.search(MIDGAME)
    copy = pickle.loads(pickle.dumps(player))
    assert type(copy) is type(player) and copy.settings == player.settings
    check_result(MIDGAME, copy.search(MIDGAME))


# Where cythello 0.4's pickles named the players' makers and settings (search/ was one flat
# folder then): each variant is a list of (the module named today, the one 0.4 named).
OLD_PICKLES = {
    "uct": [[("cythello.search.uct.search", "cythello.search.uct")],
            [("cythello.search.uct.search", "cythello.search.players")]],       # before 0.4
    "puct": [[("cythello.search.puct.search", "cythello.search.puct"),
              ("cythello.search.puct.settings", "cythello.search.puct")]],
    "alphabeta": [[("cythello.search.alphabeta.search", "cythello.search.alphabeta"),
                   ("cythello.search.alphabeta.settings", "cythello.search.alphabeta")]],
}


def test_a_player_pickled_by_0_4_still_loads(kind):
    """A pickle naming the modules of 0.4 makes the same player (protocol 0 writes module
    names as lines of text, so today's pickle is turned into one that names those)."""
    player = make(kind, budget=60, seed=5)
    today = pickle.dumps(player, protocol=0)
    for variant in OLD_PICKLES[kind]:
        old = today
        for new_name, old_name in variant:
            assert new_name.encode() + b"\n" in old
            old = old.replace(new_name.encode() + b"\n", old_name.encode() + b"\n")
        copy = pickle.loads(old)
        assert type(copy) is type(player) and copy.settings == player.settings


def test_names_that_moved_are_found_at_their_old_paths_with_a_warning():
    import cythello.search.players as players
    import cythello.search.settings as settings

    with pytest.warns(DeprecationWarning, match="cythello.search.uct.MCTSPlayer"):
        assert players.MCTSPlayer is cy.MCTSPlayer
    with pytest.warns(DeprecationWarning, match="cythello.search.uct.settings.SearchSettings"):
        assert settings.SearchSettings is cy.SearchSettings
    with pytest.warns(DeprecationWarning):
        from cythello.search.players import AlphaBetaPlayer
    assert AlphaBetaPlayer is cy.AlphaBetaPlayer
    assert players.RandomPlayer is cy.RandomPlayer          # still at home: no warning
    with pytest.raises(AttributeError, match="no attribute 'NoSuchPlayer'"):
        getattr(players, "NoSuchPlayer")  # noqa: B009


def test_bad_arguments_are_clear_errors(kind):
    player = make(kind, budget=50)
    with pytest.raises(TypeError):
        player.search("f5d6")
    with pytest.raises(SettingsError):
        player.search(MIDGAME, iterations=0)
    with pytest.raises(SettingsError):
        player.search(MIDGAME, time_limit=-1)
    finished = Board()
    while not finished.is_game_over():
        finished.push(min(finished.legal_moves))
    with pytest.raises(ValueError, match="game is over"):
        player.search(finished)
    assert player.search(MIDGAME).best_move in MIDGAME.legal_moves      # still usable


# -- one limit, one answer -----------------------------------------------------------------------

def test_every_player_plays_within_one_limit_object(kind):
    from cythello.protocols import engine
    assert engine.Limit is cy.Limit and engine.PlayResult is cy.PlayResult
    player = make(kind, budget=100, seed=4)
    answer = player.play(MIDGAME, cy.Limit(iterations=3000))
    assert isinstance(answer, cy.PlayResult) and answer.move in MIDGAME.legal_moves
    assert answer.eval is not None and -64 <= answer.eval <= 64
    assert answer.info["nodes"] > 0 and answer.info["pv"][0] == answer.move
    timed = player.search(MIDGAME, limit=cy.Limit(time=0.05))
    assert timed.elapsed < 5 and timed.best_move in MIDGAME.legal_moves
    from cythello.search.clock import Clock
    clocked = player.search(MIDGAME, limit=cy.Limit(clock=Clock(time_left=2.0)))
    assert clocked.best_move in MIDGAME.legal_moves
    if kind == "alphabeta":
        assert player.play(MIDGAME, cy.Limit(depth=4)).info["depth"] == 4
    else:
        with pytest.raises(SettingsError, match="no depth limit"):
            player.play(MIDGAME, cy.Limit(depth=4))
    with pytest.raises(TypeError, match="not both"):
        player.search(MIDGAME, 100, limit=cy.Limit(time=1))
    with pytest.raises(TypeError, match="Limit"):
        player.search(MIDGAME, limit={"time": 1})
    for bad in (dict(time=0), dict(iterations=0), dict(depth=61)):
        with pytest.raises(SettingsError):
            cy.Limit(**bad)


def test_every_player_plays_from_its_book(kind):
    player = make(kind, budget=100, seed=6, book="default", book_variety=2.0)
    opening = Board.from_transcript("f5")
    first = [player.search(opening).best_move for _ in range(6)]
    result = player.search(opening)
    assert result.stop_reason == "book" and result.best_move in opening.legal_moves
    assert len(result.moves) >= 2 and all(m.value is not None for m in result.moves)
    assert player.search(opening, book=False).stop_reason != "book"
    player.reset()                          # a new game: the same seeded draws again
    assert [player.search(opening).best_move for _ in range(6)] == first
    assert player.search(MIDGAME).stop_reason != "book"          # out of the book
    assert make(kind, budget=50).book is None


def test_every_value_names_where_it_comes_from(kind):
    # One set of words (ValueKind) for analyse, NBoard's search lines and the JSON: a
    # search's own kind of value, the book's, and the solver's exact score near the end.
    own = {"uct": "minimax", "puct": "win rate", "alphabeta": "alpha-beta"}[kind]
    result = make(kind, budget=200, seed=3).search(MIDGAME)
    assert result.value_kind() == own and result.to_dict()["value_kind"] == own
    assert f"({result.value_kind().words}" in result.value_text()
    booked = make(kind, budget=100, seed=6, book="default").search(Board.from_transcript("f5"))
    assert booked.value_kind() == "book"
    assert {booked.value_kind(m) for m in booked.moves} == {cy.ValueKind.BOOK}
    late = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    while late.empties() > 12:
        late.push(min(late.legal_moves))
    solved = make(kind, budget=200, seed=3, endgame_empties=14).search(late)
    assert solved.value_kind() == "exact"
    assert solved.value_text() == f"{solved.exact_score:+d} discs (exact score)"


def test_a_clock_gives_the_time_and_a_level_keeps_its_cap(kind):
    # One rule for every player (limits.search_budget): the clock gives the time, never
    # more than is left; an iteration cap in the settings (a level's) still holds.
    from cythello.search.clock import Clock
    capped = (cy.AlphaBetaPlayer(nodes=3000, probcut=1.5) if kind == "alphabeta"
              else make(kind, budget=60, seed=1))
    result = capped.search(MIDGAME, clock=Clock(time_left=600.0))
    assert result.stop_reason in ("iterations", "depth") and result.elapsed < 30
    free = make(kind, seed=1)
    clock = Clock(time_left=2.0)
    timed = free.search(MIDGAME, clock=clock)
    assert timed.stop_reason == "time" and timed.elapsed < 30       # the clock ended it
    assert free.search(MIDGAME, time_limit=0.05, clock=clock).stop_reason == "time"


def test_the_settings_every_search_shares_mean_one_thing():
    """Declared once (search/settings.py) and taken by each settings type: one name, one
    text and one kind of value, whatever the search (a default may differ)."""
    from dataclasses import fields
    types = [cy.SearchSettings, cy.PUCTSettings, cy.AlphaBetaSettings]
    bad = {"time_limit": -1, "seed": "x", "book": 3, "book_variety": -1, "endgame_empties": -1}
    for name, value in bad.items():
        docs = {f.metadata["doc"] for t in types for f in fields(t) if f.name == name}
        assert len(docs) == 1, name
        for t in types:
            with pytest.raises((TypeError, SettingsError)):
                t(**{name: value})
    # The seconds a move are time= wherever they are given (Limit, specs, --time, and the
    # constructors, where time_limit= keeps working): one setting, two names, never both.
    for t in types:
        assert t(time=0.5).time_limit == 0.5 and t().replace(time=2).time_limit == 2
        with pytest.raises(TypeError, match="another name of time_limit"):
            t(time=1, time_limit=2)
    for kind in ("uct", "puct", "alphabeta"):
        assert make(kind, time=0.25).settings.time_limit == 0.25
    budgets = {t: next(f.metadata["doc"] for f in fields(t)
                       if f.name in ("iterations", "nodes")) for t in types}
    assert {doc.split(" per search")[0] for doc in budgets.values()} == \
        {"iterations", "simulations", "nodes"}


def test_a_game_reviewed_by_any_player_values_every_move(kind):
    """The review values each move played, searched or not (a move a search left
    unvisited, or alpha-beta's non-best moves, by a search of the position it reached)."""
    game = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    reviews = cy.analyse_game(game.root(), game.move_stack, make(kind, budget=100, seed=1))
    searched = [r for r in reviews if not r.forced]
    assert searched and all(r.value is not None and r.loss is not None for r in searched)
    assert all(r.loss == 0.0 for r in searched if r.move == r.best)


def test_an_unsettled_search_takes_more_time_on_a_clock_in_every_tree_search(kind):
    """The shell's time extension: the start position's four equal moves keep a tree
    search unsettled, so with time_extension it goes on past its budget (never past the
    clock's most for a move); alpha-beta has no such rule."""
    from cythello.search.clock import Clock
    from cythello.search.results import unsettled
    assert unsettled({1: 100, 2: 60}, {}) and not unsettled({1: 100, 2: 10}, {1: 0.5, 2: 0.1})
    assert unsettled({1: 100, 2: 10}, {1: 0.1, 2: 0.5}) and not unsettled({1: 5}, {})
    if kind == "alphabeta":
        return
    clock = Clock(6.0)
    budget, most = clock.budget(Board().empties()), clock.most()
    # PUCT's few simulations on a busy machine can crowd onto the first move it tries; a
    # wide c_puct spreads them by the four equal priors however few there are.
    spread = {"c_puct": 50.0} if kind == "puct" else {}
    plain = make(kind, time_extension=0.0, seed=1, **spread).search(Board(), clock=clock,
                                                                     book=False)
    longer = make(kind, time_extension=2.0, seed=1, **spread).search(Board(), clock=clock,
                                                                     book=False)
    assert plain.elapsed < budget * 2 < longer.elapsed and longer.elapsed < most + 5
