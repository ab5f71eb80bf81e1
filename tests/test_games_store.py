"""Games kept as games (cythello.games.store) and the alpha-beta self-play that writes them
(cythello.selfplay.alphabeta)."""
import io
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest

from cythello import Board
from cythello.games import GameDatabase
from cythello.games.store import STORED, GamesFileError, read_games, write_games
from cythello.search.endgame._solver import Solver
from cythello.selfplay.alphabeta import FastSettings, file_name, generate_games, play_fast_game
from cythello.training.games import game_positions

WTHOR = Path(__file__).parent / "data" / "wthor"
SMALL = dict(depth=2, exact=8, random_plies=(20, 30))


def _columns(db):
    return {name: db.table.columns[name] for name in STORED}


def test_a_games_file_keeps_every_game_as_the_database_read_it(tmp_path):
    db = GameDatabase.open(WTHOR, index=None)
    path = tmp_path / "wthor.npz"
    assert db.write_games(path) == len(db)
    again = GameDatabase.open(path, index=None)
    assert len(again) == len(db) and not again.problems
    for name, column in _columns(db).items():
        assert np.array_equal(again.table.columns[name], column), name
    assert again[17].moves == db[17].moves and again[17].black == db[17].black
    assert again.stats("f5d6").moves == db.stats("f5d6").moves


def test_a_filtered_view_writes_only_its_games(tmp_path):
    db = GameDatabase.open(WTHOR, index=None).filter(year=1978)
    db.write_games(tmp_path / "g.npz")
    again = GameDatabase.open(tmp_path / "g.npz", index=None)
    assert len(again) == len(db) and set(again.table.year.tolist()) == {1978}


def _write(path, **change):
    db = GameDatabase.open(WTHOR / "WTH_1977.wtb", index=None)
    columns = {name: column.copy() for name, column in _columns(db).items()}
    columns.update(change)
    write_games(path, columns, db.table.players, db.table.tournaments)
    return columns


def test_games_whose_moves_do_not_replay_are_left_out_and_named(tmp_path):
    db = GameDatabase.open(WTHOR / "WTH_1977.wtb", index=None)
    moves = db.table.moves.copy()
    moves[3, 0] = 0                                  # a1 is no first move
    _write(tmp_path / "g.npz", moves=moves)
    again = GameDatabase.open(tmp_path / "g.npz", index=None)
    assert len(again) == len(db) - 1 and again.skipped == 1
    assert "g.npz, game 4: its moves do not replay" in again.problems[0]


@pytest.mark.parametrize("change, message", [
    ({"black": "big"}, "player number out of range"),
    ({"start_turn": 2}, "side to move other than 0 or 1"),
    ({"result": 100}, "result outside -64..64"),
    ({"start_white": "overlap"}, "start square holds both colours"),
])
def test_bad_values_refuse_the_file_with_the_game_named(tmp_path, change, message):
    db = GameDatabase.open(WTHOR / "WTH_1977.wtb", index=None)
    c = {name: column.copy() for name, column in _columns(db).items()}
    for name, value in change.items():
        if value == "big":
            c[name][5] = len(db.table.players)
        elif value == "overlap":
            c[name][5] = c["start_black"][5]
        else:
            c[name][5] = value
    write_games(tmp_path / "g.npz", c, db.table.players, db.table.tournaments)
    with pytest.raises(GamesFileError, match=f"game 6: a {message}"):
        read_games(tmp_path / "g.npz")
    # Opened among other files, the bad one is a problem line and the rest is read.
    both = GameDatabase.open(tmp_path / "g.npz", WTHOR / "WTH_1978.wtb", index=None)
    assert any(message in p for p in both.problems) and len(both) > 0


def test_files_that_are_not_games_files_are_refused(tmp_path):
    other = tmp_path / "other.npz"
    np.savez(other, x=np.arange(3))
    with pytest.raises(GamesFileError, match="not a games file"):
        read_games(other)
    cut = tmp_path / "cut.npz"
    _write(tmp_path / "whole.npz")
    cut.write_bytes((tmp_path / "whole.npz").read_bytes()[:500])
    with pytest.raises(GamesFileError, match="corrupt"):
        read_games(cut)
    wrong = tmp_path / "wrong.npz"
    columns = _write(tmp_path / "x.npz")
    buf = io.BytesIO()
    with zipfile.ZipFile(tmp_path / "x.npz") as zf, zipfile.ZipFile(buf, "w") as out:
        for item in zf.infolist():
            if item.filename == "played.npy":
                member = io.BytesIO()
                np.lib.format.write_array(member, columns["played"].astype(np.int64))
                out.writestr(item.filename, member.getvalue())
            else:
                out.writestr(item, zf.read(item))
    wrong.write_bytes(buf.getvalue())
    with pytest.raises(GamesFileError, match="column 'played' is int64"):
        read_games(wrong)


def test_a_fast_game_is_perfect_from_its_exact_empties():
    settings = FastSettings(**SMALL).check()
    for g in range(3):
        game = play_fast_game(g, 5, settings)
        board = game["start"].copy()
        for move in game["moves"]:
            if board.must_pass():
                board.push(64)
            if board.empties() == settings.exact:
                score, _, _ = Solver(table_bits=14).solve(board)
                black = score if board.turn == 0 else -score
                assert black == game["result"]
            board.push(move)
        assert board.is_game_over() and board.outcome().difference == game["result"]
        assert game == play_fast_game(g, 5, settings)      # the same game again


def test_alpha_beta_self_play_is_the_same_bytes_for_any_worker_count_and_grows(tmp_path):
    one, two = tmp_path / "one", tmp_path / "two"
    generate_games(6, one, seed=3, workers=1, games_per_file=3, progress=False, **SMALL)
    generate_games(6, two, seed=3, workers=2, games_per_file=3, progress=False, **SMALL)
    for f in (file_name(0), file_name(1)):
        assert (one / f).read_bytes() == (two / f).read_bytes()
    before = (one / file_name(0)).stat().st_mtime_ns
    generate_games(8, one, seed=3, workers=1, games_per_file=3, progress=False, **SMALL)
    assert (one / file_name(0)).stat().st_mtime_ns == before        # kept, not replayed
    db = GameDatabase.open(one, index=None)
    assert len(db) == 8 and not db.problems
    with pytest.raises(ValueError, match="other settings"):
        generate_games(8, one, seed=4, games_per_file=3, progress=False, **SMALL)
    # Every position the engine moved from, down to the exact empties, is labelled by the
    # game's final score for the side to move.
    positions = game_positions(db, range(SMALL["exact"], 61))
    assert len(positions) > 8
    assert positions.empties.min() == SMALL["exact"]
    result = db.table.result[positions.row]
    for own, opp, label, black in zip(positions.own[:20], positions.opp[:20],
                                      positions.label[:20], result[:20]):
        board = Board.from_bitboards(int(own), int(opp), 0)
        assert abs(label) == abs(black) and board.empties() >= SMALL["exact"]


def test_the_command_writes_games_and_refuses_bad_arguments(tmp_path):
    cmd = [sys.executable, "-m", "cythello.selfplay.alphabeta", "--games", "2", "--out",
           str(tmp_path / "sp"), "--depth", "2", "--exact", "8"]
    done = subprocess.run(cmd, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert "2 games in" in done.stdout
    for bad, message in ((["--depth", "0"], "depth must be between 1 and 20"),
                         (["--random-plies", "x"], "--random-plies expects LO-HI"),
                         (["--random-plies", "30-10"], "random_plies' most")):
        done = subprocess.run(cmd[:6] + [str(tmp_path / "bad")] + bad, capture_output=True,
                              text=True)
        assert done.returncode == 2 and message in done.stderr
        assert "Traceback" not in done.stderr and len(done.stderr.splitlines()) == 1


def test_self_play_games_to_weights_end_to_end_bit_for_bit(tmp_path, capsys):
    """The pipeline Egaroucid's way, on a tiny sample: games played, kept as games, their
    positions labelled by the final scores, the stages fitted -- the same file twice."""
    from cythello.eval.weights import load_weights
    from cythello.training.__main__ import main
    generate_games(12, tmp_path / "sp", seed=9, games_per_file=6, progress=False,
                   depth=2, exact=10, random_plies=(8, 14))
    files = []
    for name in ("a", "b"):
        out = tmp_path / f"{name}.weights"
        assert main(["games", "--db", str(tmp_path / "sp"), "--out", str(out), "--search",
                     "0", "--stages", "5-8"]) == 0
        files.append(out.read_bytes())
    assert files[0] == files[1]
    assert "12 games" in capsys.readouterr().out
    weights, base = load_weights(tmp_path / "a.weights"), load_weights()
    board = next(iter(GameDatabase.open(tmp_path / "sp", index=None))).board_at(30)
    assert len({weights.evaluate(board.transform(k)) for k in range(8)}) == 1
    assert weights.evaluate(board) != base.evaluate(board)
