"""Threads by default: where a person plays, the searches use the cores this process may
run on (capped); Python's players are one thread; worker pools share the cores instead
of multiplying them; a thread count changes results only where a search races."""
import os
import subprocess
import sys

import pytest

import cythello as cy
from cythello import _cores
from cythello._workers import Workers
from cythello.errors import SettingsError
from cythello.players import make_player
from cythello.search.endgame._solver import Solver
from cythello.search.puct import PUCTSettings


@pytest.fixture(autouse=True)
def _no_threads_variable(monkeypatch):
    monkeypatch.delenv(_cores.ENVIRONMENT, raising=False)


def _affinity():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def test_the_default_is_the_processes_cores_capped(monkeypatch):
    assert _cores.available_cores() == _affinity()
    assert _cores.default_threads() == min(_cores.THREADS_CAP, _affinity())
    monkeypatch.setattr(_cores, "available_cores", lambda: 96)
    assert _cores.default_threads() == _cores.THREADS_CAP
    monkeypatch.setattr(_cores, "available_cores", lambda: 3)
    assert _cores.default_threads() == 3


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no affinity masks here")
def test_the_default_follows_the_affinity_mask_not_the_machine():
    # A process pinned to one core (taskset, a container's cpuset) searches on one.
    code = ("import os; os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]}); "
            "import cythello as cy; from cythello.search.endgame._solver import Solver; print(cy.make_player('expert')._backend.threads, "
            "Solver(threads=0).threads)")
    env = {k: v for k, v in os.environ.items() if k != _cores.ENVIRONMENT}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    assert out == ["1", "1"]


def test_the_environment_sets_the_count_and_a_bad_one_is_named(monkeypatch):
    monkeypatch.setenv(_cores.ENVIRONMENT, "5")
    assert _cores.default_threads() == 5
    assert cy.MCTSPlayer(threads=0)._backend.threads == 5
    for bad in ("0", "x", "-2", "1e3", "300"):
        monkeypatch.setenv(_cores.ENVIRONMENT, bad)
        with pytest.raises(SettingsError, match=_cores.ENVIRONMENT):
            _cores.default_threads()


def test_levels_use_the_cores_and_python_players_one_thread():
    cores = _cores.default_threads()
    for level in ("medium", "hard", "expert"):
        player = make_player(level)
        assert player.settings.threads == 0 and player._backend.threads == cores
        assert make_player(f"{level}:threads=1")._backend.threads == 1
    assert make_player("easy")._backend.threads == 1        # 200 iterations
    for player in (cy.MCTSPlayer(), cy.PUCTPlayer(), cy.AlphaBetaPlayer(),
                   make_player("puct:time=1"), make_player("mcts:time=1")):
        assert player.settings.threads == 1 and player._backend.threads == 1
    assert Solver().threads == 1 and Solver(threads=0).threads == cores


def test_auto_is_zero_in_every_form():
    cores = _cores.default_threads()
    assert cy.SearchSettings(threads="auto").threads == 0
    assert cy.AlphaBetaPlayer(threads="AUTO", depth=2)._backend.threads == cores
    assert make_player("alphabeta:depth=2,threads=auto")._backend.threads == cores
    assert make_player("mcts:threads=auto").settings.tree_threads == cores
    assert make_player("mcts:threads=auto,parallel=root").settings.tree_count == cores
    with pytest.raises(SettingsError, match="threads"):
        cy.SearchSettings(threads=-1)
    with pytest.raises(SettingsError, match="auto"):
        make_player("mcts:threads=many")


def test_threads_zero_is_one_where_the_search_cannot_spread():
    # A network called from Python and a batched search take one thread for "auto";
    # an explicit count there is refused, as before.
    assert PUCTSettings(threads=0, batch_size=8).search_threads == 1
    uniform = make_player("puct:evaluator=uniform,threads=0")
    assert uniform._puct.threads == 1
    with pytest.raises(SettingsError, match="threads=2"):
        make_player("puct:evaluator=uniform,threads=2")


def test_the_node_caps_follow_the_resolved_threads():
    cores = _cores.default_threads()
    assert PUCTSettings(threads=0).nodes_per_tree == PUCTSettings(threads=cores).nodes_per_tree
    assert (cy.SearchSettings(threads=0).nodes_per_tree
            == cy.SearchSettings(threads=cores).nodes_per_tree)


def _threads_here():
    return _cores.default_threads(), make_player("expert")._backend.threads


@pytest.mark.parametrize("workers", [2, 3])
def test_worker_pools_share_the_cores(workers):
    share = max(1, min(_cores.THREADS_CAP, _affinity() // workers))
    with Workers(workers) as pool:
        seen = [result for _, result in pool.run(_threads_here, [()] * (2 * workers))]
    assert seen == [(share, share)] * (2 * workers)
    assert _cores.ENVIRONMENT not in os.environ     # the parent keeps all of its cores


def test_a_users_count_stands_in_the_workers(monkeypatch):
    monkeypatch.setenv(_cores.ENVIRONMENT, "3")
    with Workers(2) as pool:
        seen = [result for _, result in pool.run(_threads_here, [()] * 2)]
    assert seen == [(3, 3)] * 2


def test_a_thread_count_changes_nothing_where_the_search_does_not_race():
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    # Alpha-beta below lazy SMP's first depth (6): the same move, value and nodes.
    one = cy.AlphaBetaPlayer(depth=5, threads=1).search(board)
    two = cy.AlphaBetaPlayer(depth=5, threads=2).search(board)
    assert (one.best_move, one.value, one.nodes) == (two.best_move, two.value, two.nodes)
    # UCT root parallelism is reproducible from a seed at any count.
    a = cy.MCTSPlayer(iterations=400, threads=2, parallel="root", seed=3).search(board)
    b = cy.MCTSPlayer(iterations=400, threads=2, parallel="root", seed=3).search(board)
    assert [(m.move, m.visits) for m in a.moves] == [(m.move, m.visits) for m in b.moves]
    # The exact solver: one score at every count.
    end = board.copy()
    while end.empties() > 16:
        end.push(sorted(end.legal_moves)[0])
    scores = {Solver(threads=t).solve(end)[0] for t in (1, 2, 0)}
    assert len(scores) == 1


def test_the_command_line_defaults_to_the_cores_and_takes_a_count():
    from cythello.cli.common import threads_option
    assert threads_option("auto") == 0 and threads_option("3") == 3
    assert threads_option(None) == 0
    for bad in ("-1", "x", "257"):
        with pytest.raises(SettingsError, match="--threads .*auto"):
            threads_option(bad)


def test_the_command_lines_players_take_the_cores(monkeypatch):
    import argparse

    from cythello.cli import common
    cores = _cores.default_threads()
    p = argparse.ArgumentParser()
    common.add_search_options(p, default_preset="expert")
    common.add_search_choice(p)
    for search in ("puct", "alphabeta", "uct"):
        args = p.parse_args(["--search", search])
        assert common.engine_player(args)._backend.threads == cores
        args = p.parse_args(["--search", search, "--threads", "1"])
        assert common.engine_player(args)._backend.threads == 1
