"""Training from a games database: positions labelled by the records' perfect-play scores,
the stages refitted and held out by year, bit for bit reproducible, and the command's
one-line errors."""
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from cythello import Board
from cythello.eval import patterns
from cythello.eval.weights import DEFAULT_PATH, load_weights, read_weights
from cythello.games import GameDatabase
from cythello.records.game import GameRecord
from cythello.training.__main__ import main
from cythello.training.games import fit_from_games, game_positions, split_by_year

WTHOR = Path(__file__).parent / "data" / "wthor"


@pytest.fixture(scope="module")
def db():
    return GameDatabase.open(WTHOR, index=None)


def test_positions_carry_the_movers_theoretical_score(db):
    positions = game_positions(db, [24, 30, 36])
    table = db.table
    assert len(positions) > 0
    for i in range(len(positions)):
        row = int(positions.row[i])
        record = table.record(row)
        board = record.board_at(int(positions.empties[i]))
        own, opp = board.position()
        assert (own, opp) == (int(positions.own[i]), int(positions.opp[i]))
        sign = 1 if board.turn == 0 else -1
        assert positions.label[i] == sign * record.theoretical
        assert positions.exact[i] == (positions.empties[i] == 24)
        assert positions.year[i] == record.year


def test_no_labels_after_the_theoretical_depth(db):
    # The records say nothing exact there: a result equal to the theoretical score is no
    # proof of perfect play.
    assert len(game_positions(db, range(1, 24))) == 0


def test_games_without_a_theoretical_score_are_labelled_by_their_result():
    moves = "f5d6c3d3c4f4f6f3e6e7"
    board = Board()
    record = None
    from cythello import make_player
    player = make_player("alphabeta:depth=1", seed=1)
    for i in range(0, len(moves), 2):
        board.push(moves[i:i + 2])
    while not board.is_game_over():
        board.push(player.play(board).move)
    record = GameRecord.from_board(board)
    db = GameDatabase.from_records([record])
    positions = game_positions(db, [40, 30])
    assert len(positions) == 2
    result = record.result
    for i in range(2):
        b = record.board_at(int(positions.empties[i]))
        assert positions.label[i] == (result if b.turn == 0 else -result)
    assert not positions.exact.any()
    assert len(game_positions(db, [40, 30], results=False)) == 0


def test_split_by_year(db):
    positions = game_positions(db, [24, 28])
    train, held = split_by_year(positions, 1978)
    assert len(train) + len(held) == len(positions)
    assert (train.year < 1978).all() and (held.year >= 1978).all() and len(held)


def test_fit_from_games_is_reproducible_and_touches_only_its_stages(db):
    base, _ = read_weights(DEFAULT_PATH)
    positions = game_positions(db, range(21, 33))
    a, reports = fit_from_games(positions, base, [5, 6, 7], ridge=10.0, held_out_from=1978)
    b, _ = fit_from_games(positions, base, [5, 6, 7], ridge=10.0, held_out_from=1978)
    assert a.dtype == np.int16 and a.shape == base.shape
    assert np.array_equal(a, b)
    untouched = [s for s in range(patterns.N_STAGES) if s not in (5, 6, 7)]
    assert np.array_equal(a[untouched], base[untouched])
    assert not np.array_equal(a[6], base[6])
    assert [r.stage for r in reports] == [5, 6, 7]
    assert reports[1].train > 0
    for e, n, old, new in reports[1].held_out:
        assert e in range(25, 29) and n > 0 and old >= 0 and new >= 0


def test_fit_moves_toward_its_labels(db):
    # With a weak pull the refitted stage explains its training positions better than
    # the weights it started from.
    from cythello.training.fit import packed_features, predict
    base, _ = read_weights(DEFAULT_PATH)
    positions = game_positions(db, range(25, 29))
    packed, _ = fit_from_games(positions, base, [6], ridge=1.0, held_out_from=3000)
    features = packed_features(positions.own, positions.opp)
    before = np.abs(predict(base[6] / patterns.SCALE, features) - positions.label).mean()
    after = np.abs(predict(packed[6] / patterns.SCALE, features) - positions.label).mean()
    assert after < before


def test_the_command_writes_weights_that_load_and_stay_symmetric(tmp_path, capsys):
    out = tmp_path / "games.weights"
    assert main(["games", "--db", str(WTHOR), "--out", str(out), "--stages", "6-7",
                 "--held-out-from", "1978"]) == 0
    text = capsys.readouterr().out
    assert "stage 6 (25-28 empties)" in text and "wrote" in text
    weights = load_weights(out)
    assert weights.info["games"]["count"] == 20
    assert weights.info["games"]["stages"] == [6, 7]
    base = load_weights()
    db = GameDatabase.open(WTHOR, index=None)
    for empties in (27, 30):                  # stages 6 and 7: refitted, still symmetric
        board = db[3].board_at(empties)
        values = {weights.evaluate(board.transform(k)) for k in range(8)}
        assert len(values) == 1
        assert values != {base.evaluate(board)}
    # Twice the same command, the same file.
    again = tmp_path / "again.weights"
    assert main(["games", "--db", str(WTHOR), "--out", str(again), "--stages", "6-7",
                 "--held-out-from", "1978"]) == 0
    assert out.read_bytes() == again.read_bytes()


@pytest.mark.parametrize("args, words", [
    (["--stages", "7-3"], "--stages"),
    (["--stages", "x"], "--stages"),
    (["--ridge", "-1"], "--ridge"),
    (["--base", "/nonexistent/w.weights"], "/nonexistent/w.weights"),
])
def test_bad_arguments_are_one_line(tmp_path, args, words):
    proc = subprocess.run([sys.executable, "-m", "cythello.training", "games", "--db",
                           str(WTHOR), "--out", str(tmp_path / "w.weights"), *args],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert words in proc.stderr and "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_search_labels_bootstrap_from_the_stage_before_and_ignore_the_thread_count(db):
    base, _ = read_weights(DEFAULT_PATH)
    positions = game_positions(db, range(21, 33))
    by_records, _ = fit_from_games(positions, base, [5, 6, 7], held_out_from=1978)
    one, _ = fit_from_games(positions, base, [5, 6, 7], held_out_from=1978, search=1.0,
                            depth=2, workers=1)
    two, _ = fit_from_games(positions, base, [5, 6, 7], held_out_from=1978, search=1.0,
                            depth=2, workers=2)
    assert np.array_equal(one, two)
    # Stage 5 has exact labels only (24 empties): the search changes nothing there.
    assert np.array_equal(one[5], by_records[5])
    assert not np.array_equal(one[6], by_records[6])
