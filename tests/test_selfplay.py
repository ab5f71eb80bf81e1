"""Self-play data: the schema against a replay of the moves, identical shards whatever the
workers or the backend, resuming, dead workers, bad paths; matches in parallel."""
import math
import multiprocessing
import os

import numpy as np
import pytest

import cythello as cy
from cythello import selfplay
from cythello.match import random_openings, run_match
from cythello.selfplay import SCHEMA, ShardError

SETTINGS = dict(iterations=60, games_per_shard=2, temperature_moves=4, epsilon=0.05,
                progress=False)


def shard_bytes(path):
    return {p.name: p.read_bytes() for p in sorted(path.glob("shard-*.npz"))}


def test_schema_and_contents_replay(tmp_path):
    selfplay.generate(5, tmp_path, seed=11, **SETTINGS)
    data = selfplay.load(tmp_path)
    n = len(data["black"])
    assert set(data) == set(SCHEMA)
    for name, (dtype, _) in SCHEMA.items():
        assert data[name].dtype == np.dtype(dtype) and len(data[name]) == n
    assert data["visits"].shape == (n, 65)
    selfplay.replay_check(data)                     # every move legal, positions follow
    for g in set(data["game"].tolist()):
        rows = np.flatnonzero(data["game"] == g)
        # Replay the game: the final disc difference matches every row's record.
        b = cy.Board.from_bitboards(int(data["black"][rows[0]]), int(data["white"][rows[0]]),
                                    int(data["turn"][rows[0]]))
        for r in rows:
            assert data["visits"][r].sum() >= 1 and data["visits"][r][data["move"][r]] >= 1
            b.push(int(data["move"][r]))
        assert b.is_game_over()
        black_score = b.outcome().score
        for r in rows:
            expected = black_score if data["turn"][r] == 0 else -black_score
            assert data["disc_diff"][r] == expected
            assert data["result"][r] == (1.0 if expected > 0 else 0.0 if expected < 0 else 0.5)
        assert list(data["ply"][rows]) == list(range(len(rows)))
    planes = selfplay.planes(data)
    assert planes.shape == (n, 2, 8, 8)
    first = cy.Board.from_bitboards(int(data["black"][0]), int(data["white"][0]),
                                    int(data["turn"][0]))
    assert np.array_equal(planes[0], first.planes())


def test_eight_fold_augmentation_matches_board_transform(tmp_path):
    selfplay.generate(2, tmp_path, seed=5, **SETTINGS)
    data = selfplay.load(tmp_path)
    n = len(data["black"])
    aug = selfplay.load(tmp_path, augment=True)
    assert all(len(column) == 8 * n for column in aug.values())
    assert list(np.unique(aug["symmetry"])) == list(range(8))
    for i in range(0, 8 * n, 7):
        k, row = int(aug["symmetry"][i]), i % n
        board = cy.Board.from_bitboards(int(data["black"][row]), int(data["white"][row]),
                                        int(data["turn"][row]))
        image = board.transform(k)
        assert (int(aug["black"][i]), int(aug["white"][i])) == (image.black, image.white)
        assert aug["move"][i] == cy.transform_square(int(data["move"][row]), k)
        for sq in range(65):
            assert aug["visits"][i][cy.transform_square(sq, k)] == data["visits"][row][sq]
        assert int(aug["move"][i]) in image.legal_moves or aug["move"][i] == cy.PASS
        for name in ("value", "result", "disc_diff", "game", "ply", "turn"):
            np.testing.assert_equal(aug[name][i], data[name][row])   # NaN: a forced move
    selfplay.replay_check({k: v[:n] for k, v in aug.items()})   # identity block: the data
    assert np.array_equal(aug["black"][:n], data["black"])
    with pytest.raises(ValueError, match="symmetries"):
        selfplay.augment(data, [8])


def test_same_seed_same_bytes_whatever_the_workers(tmp_path):
    selfplay.generate(5, tmp_path / "one", seed=3, workers=1, **SETTINGS)
    selfplay.generate(5, tmp_path / "two", seed=3, workers=2, **SETTINGS)
    assert shard_bytes(tmp_path / "one") == shard_bytes(tmp_path / "two")
    selfplay.generate(5, tmp_path / "other", seed=4, workers=1, **SETTINGS)
    assert shard_bytes(tmp_path / "one") != shard_bytes(tmp_path / "other")


def test_every_worker_gets_work_when_shards_are_fewer(tmp_path):
    """One shard of 4 games on 2 workers: the shard is played in two pieces (one per
    worker) and is the same file as one worker's."""
    from cythello.selfplay.run import _pieces
    assert _pieces([(0, 0, 4)], 2) == [(0, 0, 2, 0, 2), (0, 1, 2, 2, 2)]
    assert _pieces([(0, 0, 50), (1, 50, 50)], 2) == [(0, 0, 1, 0, 50), (1, 0, 1, 50, 50)]
    assert _pieces([(0, 0, 1)], 4) == [(0, 0, 1, 0, 1)]
    one = dict(SETTINGS, games_per_shard=4)
    selfplay.generate(4, tmp_path / "one", seed=3, workers=1, **one)
    selfplay.generate(4, tmp_path / "two", seed=3, workers=2, **one)
    assert shard_bytes(tmp_path / "one") == shard_bytes(tmp_path / "two")


def test_resume_and_damaged_shards(tmp_path):
    selfplay.generate(6, tmp_path / "ref", seed=5, **SETTINGS)
    run = tmp_path / "run"
    selfplay.generate(6, run, seed=5, **SETTINGS)
    (run / "shard-000001.npz").unlink()                       # lost
    (run / "shard-000002.npz").write_bytes(b"junk")            # damaged
    (run / "shard-000000.npz.part").write_bytes(b"half")        # an interrupted write
    done = []
    selfplay.generate(6, run, seed=5, on_shard=lambda d, t: done.append(d), **SETTINGS)
    assert len(done) == 2                                     # only the two missing ones
    assert shard_bytes(run) == shard_bytes(tmp_path / "ref")
    with pytest.raises(cy.SettingsError, match="other settings"):
        selfplay.generate(6, run, seed=6, **SETTINGS)


def test_a_dead_worker_is_replaced(tmp_path):
    selfplay.generate(8, tmp_path / "ref", seed=9, **SETTINGS)
    killed = []

    def kill_one(done, total):
        if not killed:
            children = multiprocessing.active_children()
            if children:
                os.kill(children[0].pid, 9)
                killed.append(children[0].pid)

    selfplay.generate(8, tmp_path / "run", seed=9, workers=2, on_shard=kill_one, **SETTINGS)
    assert killed
    assert shard_bytes(tmp_path / "run") == shard_bytes(tmp_path / "ref")


def test_bad_paths_give_clear_errors(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(ShardError, match="cannot create"):
        selfplay.generate(1, blocker / "run", **SETTINGS)
    with pytest.raises(ShardError, match="no self-play run"):
        selfplay.load(tmp_path / "missing")
    readonly = tmp_path / "ro"
    readonly.mkdir()
    readonly.chmod(0o500)
    try:
        if os.access(readonly, os.W_OK):
            pytest.skip("running as a user who can write anywhere")
        with pytest.raises(ShardError):
            selfplay.generate(1, readonly, **SETTINGS)
        assert not list(readonly.glob("shard-*"))
    finally:
        readonly.chmod(0o700)


def test_full_disk_leaves_no_complete_looking_shard(tmp_path, monkeypatch):
    import cythello._files as files
    real = files.os.fsync
    calls = []

    def full(fd):
        calls.append(fd)
        if len(calls) > 1:                       # the manifest is written, the shard not
            raise OSError(28, "No space left on device")
        real(fd)
    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(ShardError, match="No space left"):
        selfplay.generate(2, tmp_path, seed=1, **SETTINGS)
    assert not list(tmp_path.glob("shard-*"))                 # neither .npz nor .part
    assert (tmp_path / "run.json").exists()


def test_a_manifest_is_whole_or_absent_and_a_damaged_one_explained(tmp_path, monkeypatch):
    import cythello._files as files

    def full(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(files.os, "fsync", full)
    with pytest.raises(ShardError, match="No space left"):
        selfplay.generate(2, tmp_path, seed=1, **SETTINGS)
    assert list(tmp_path.iterdir()) == []                     # no 0-byte run.json
    monkeypatch.undo()
    (tmp_path / "run.json").write_bytes(b"")                  # as an older version left it
    with pytest.raises(ShardError, match="damaged.*delete it"):
        selfplay.generate(2, tmp_path, seed=1, **SETTINGS)
    (tmp_path / "run.json").unlink()
    selfplay.generate(2, tmp_path, seed=1, **SETTINGS)


def test_matches_in_parallel_equal_serial():
    openings = random_openings(3, plies=4, seed=2)
    # Solves of 10 empties, well inside the solver's 2 s cap even on a busy machine.
    a = cy.MCTSPlayer(iterations=150, seed=1, eval_weights="default", leaf_eval=1.0,
                      endgame_empties=10)
    b = cy.MCTSPlayer(iterations=150, seed=2, endgame_empties=10)
    serial = run_match(a, b, 6, openings)
    parallel = run_match(a, b, 6, openings, workers=2)
    assert [g.transcript() for g in serial.games] == [g.transcript() for g in parallel.games]
    assert (serial.wins, serial.draws, serial.losses) == \
        (parallel.wins, parallel.draws, parallel.losses)


def test_ray_backend_gives_the_same_bytes(tmp_path):
    pytest.importorskip("ray", reason="Ray is optional: pip install 'cythello[ray]'")
    import ray as ray_module
    selfplay.generate(4, tmp_path / "local", seed=7, workers=2, **SETTINGS)
    ray_module.init(num_cpus=2, include_dashboard=False, ignore_reinit_error=True,
                    log_to_driver=False)
    try:
        selfplay.generate(4, tmp_path / "ray", seed=7, backend="ray", **SETTINGS)
        openings = random_openings(2, plies=4, seed=2)
        # Solves of 10 empties: the default 20 can outlast the solver's 2 s cap on a busy
        # machine in one run and not the other, and then the games differ.
        a = cy.MCTSPlayer(iterations=100, seed=1, endgame_empties=10)
        b = cy.MCTSPlayer(iterations=100, seed=2, rollout="random", endgame_empties=10)
        local = run_match(a, b, 4, openings)
        remote = run_match(a, b, 4, openings, backend="ray")
    finally:
        ray_module.shutdown()
    assert shard_bytes(tmp_path / "local") == shard_bytes(tmp_path / "ray")
    assert [g.transcript() for g in local.games] == [g.transcript() for g in remote.games]


def test_generate_checks_its_arguments(tmp_path):
    for bad in (dict(games=0), dict(games=2, workers=0), dict(games=2, backend="mpi"),
                dict(games=2, time_limit=1.0), dict(games=2, threads=2),
                dict(games=2, temperature=0)):
        games = bad.pop("games")
        with pytest.raises((cy.SettingsError, TypeError)):
            selfplay.generate(games, tmp_path / "x", progress=False, **bad)



def test_round_robin_crosstable_and_ratings():
    from cythello.match import MatchResult, Tournament, round_robin
    players = {"strong": cy.MCTSPlayer(iterations=300, seed=1),
               "weak": cy.MCTSPlayer(iterations=20, seed=2, rollout="random"),
               "random": cy.RandomPlayer(3)}
    t = round_robin(players, 4, openings=random_openings(2, plies=4, seed=5))
    ratings = dict(zip(t.names, t.ratings()))
    assert abs(sum(ratings.values())) < 1e-6
    assert ratings["strong"] > ratings["random"]
    table = t.crosstable()
    assert "strong" in table and "Elo" in table
    assert t.points(0, 1) + t.points(1, 0) == 4
    # The fit matches a hand-made case: A beats B 3-1, B beats C 3-1, A beats C 4-0.
    made = Tournament(["A", "B", "C"], {(0, 1): MatchResult(3, 0, 1), (1, 2): MatchResult(3, 0, 1),
                                        (0, 2): MatchResult(4, 0, 0)})
    a, b, c = made.ratings()
    assert a > b > c


@pytest.mark.parametrize("temperature", [math.inf, 1e-9, 1e6])
def test_any_positive_temperature_draws_only_searched_moves(tmp_path, temperature):
    # An infinite temperature made visits ** 0 weigh every square alike, illegal ones too
    # ("g2 is not legal for black"); a tiny one overflowed the powers.
    out = tmp_path / "run"
    selfplay.generate(2, out, seed=3, iterations=30, games_per_shard=2, progress=False,
                      temperature=temperature, temperature_moves=60)
    data = selfplay.load(out)
    selfplay.replay_check(data)
    assert len(set(data["game"].tolist())) == 2


def test_visit_weights_at_the_edges():
    from cythello.search.puct import visit_weights
    visits = np.array([0, 3, 0, 12, 1])
    assert list(visit_weights(visits, math.inf)) == [0, 1, 0, 1, 1]
    assert list(visit_weights(visits, 1.0)) == pytest.approx([0, 0.25, 0, 1, 1 / 12])
    assert list(visit_weights(visits, 1e-9)) == [0, 0, 0, 1, 0]
    assert list(visit_weights(np.zeros(3), 1.0)) == [0, 0, 0]
