"""The tree searches' hand-off to the alpha-beta search near the end (search/phases.py):
which search plays which move, and that the engine's stop, pondering, reset and pickling
still hold across the two."""
import pickle
import random
import threading

import pytest

import cythello as cy
from conftest import random_endgame, wait_for
from cythello import Board
from cythello.errors import SettingsError
from cythello.nn import PatternEvaluator
from cythello.search.phases import PhasedSearch

MIDGAME = Board.from_transcript("c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2")   # 44 empties
LATE = random_endgame(random.Random(7), 22)


def uct(**settings):
    # The expert's selective endgame passes would take a timed search's position before
    # the hand-off does (engine.py): off, since these tests are about the hand-off.
    return cy.MCTSPlayer.preset("expert", seed=1, **{"selective_empties": 0, **settings})


def puct(**settings):
    return cy.PUCTPlayer(PatternEvaluator(), seed=1, **settings)


@pytest.mark.parametrize("make", [uct, puct])
def test_from_its_empties_a_timed_search_is_the_alphabeta_searchs(make):
    player = make(time_limit=0.1, endgame_empties=0, alphabeta_empties=LATE.empties())
    assert isinstance(player._backend, PhasedSearch)
    late = player.search(LATE)
    assert late.depth is not None and late.depth >= 4      # iterations of alpha-beta
    assert late.best_move in LATE.legal_moves and late.principal_variation[0] == late.best_move
    assert late.elapsed < 5                                 # its time (a hang is the bug)
    early = player.search(MIDGAME)
    assert early.depth is None and early.iterations > 0     # the tree's
    # A search limited by iterations stays the tree's: the units are not comparable.
    counted = player.search(LATE, iterations=300, time_limit=None)
    assert counted.depth is None
    # One square more than the position has: the tree's again.
    fewer = make(time_limit=0.1, endgame_empties=0, alphabeta_empties=LATE.empties() - 1)
    assert fewer.search(LATE).depth is None
    # Off (0, the default): no hand-off at all.
    assert not isinstance(make()._backend, PhasedSearch)


def test_the_alphabeta_search_takes_the_players_solver_rule():
    board = random_endgame(random.Random(3), 12)
    player = uct(time_limit=1, endgame_empties=14, alphabeta_empties=30)
    result = player.search(board)
    assert result.stop_reason == "exact" and result.exact_score is not None
    assert result.exact_score == cy.solve(board).score


def test_stop_ponder_reset_and_pickling_hold_across_the_two():
    player = uct(time_limit=30, endgame_empties=0, endgame_by_time=False,
                 alphabeta_empties=LATE.empties())
    stopper = threading.Timer(0.2, player.stop)
    stopper.start()
    result = player.search(LATE)                # stopped long before its 30 s
    stopper.join()
    assert result.stop_reason == "stopped" and result.elapsed < 10
    player.ponder(LATE)                         # the alpha-beta search ponders its phase
    assert player.pondering
    assert any(t.name == "cythello-alphabeta-ponder" for t in threading.enumerate())
    player.reset()
    assert not player.pondering
    again = pickle.loads(pickle.dumps(player))
    assert again.settings.alphabeta_empties == LATE.empties()
    assert isinstance(again._backend, PhasedSearch)
    player.ponder(MIDGAME)                      # the tree ponders its own
    wait_for(lambda: player.pondering, "pondering to start")
    assert any(t.name == "cythello-ponder" for t in threading.enumerate())
    player.stop_pondering()


@pytest.mark.parametrize("bad", [-1, 61])
def test_bad_alphabeta_empties(bad):
    with pytest.raises(SettingsError, match="alphabeta_empties"):
        uct(alphabeta_empties=bad)
    with pytest.raises(SettingsError, match="alphabeta_empties"):
        cy.make_player(f"puct:alphabeta_empties={bad}")
    with pytest.raises(TypeError, match="alphabeta_empties"):
        uct(alphabeta_empties=bad + 0.5)
