"""WTHOR readers, the games database and its statistics: against hand-decoded records, a
slow reference count over the raw records, symmetric positions pooled, and damaged files
read as far as they can be."""
import os
import struct
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from cythello import PASS, Board, transform_square
from cythello.cli import main
from cythello.core import _replay
from cythello.games import GameDatabase, GamesIndexError, PositionIndex
from cythello.records.game import GameRecord
from cythello.records.ggf import read_ggf
from cythello.records.wthor import (
    WthorError,
    codes_of,
    iter_wthor,
    parse_header,
    read_players,
    read_tournaments,
    read_wtb,
)

WTHOR = Path(__file__).parent / "data" / "wthor"
WTB_1977 = WTHOR / "WTH_1977.wtb"


def wtb_bytes(games, year=2000, claimed=None, depth=24):
    """A .wtb file: ``games`` are (tournament, black, white, black discs, theoretical
    discs, squares)."""
    header = bytes([20, 24, 1, 2]) + struct.pack("<IHH", len(games) if claimed is None
                                                 else claimed, 0, year) + bytes([8, 0, depth, 0])
    body = b"".join(struct.pack("<HHHBB", t, b, w, d, th) + codes_of(squares)
                    for t, b, w, d, th, squares in games)
    return header + body


def squares(transcript):
    return [m for m in Board.from_transcript(transcript).move_stack if m != PASS]


def copy_names(folder):
    for name in ("WTH.JOU", "WTH.TRN"):
        (folder / name).write_bytes((WTHOR / name).read_bytes())


# -- the readers --------------------------------------------------------------------------------

def test_a_record_decodes_as_by_hand():
    # The first record of 1977, decoded by hand from its bytes:
    # 01 00 | 5a 01 | 4b 03 | 22 | 29 | 38 40 21 ...: tournament 1, black 346, white 843,
    # black 34 discs (+4), perfect play 41 discs (+18), f5 (56 = row 5 column 6) d6 c3 ...
    data = WTB_1977.read_bytes()
    header = parse_header(data, "test")
    assert (header.games, header.year, header.depth, header.board_size) == (12, 1977, 24, 8)
    assert str(header.created) == "2007-05-22"
    games = read_wtb(WTB_1977)
    assert (games.tournament[0], games.black[0], games.white[0]) == (1, 346, 843)
    assert (games.black_discs[0], games.theoretical_discs[0]) == (34, 41)
    assert games.moves[0, :3].tolist() == [37, 43, 18]         # f5 d6 c3
    players, tournaments = read_players(WTHOR / "WTH.JOU"), read_tournaments(WTHOR / "WTH.TRN")
    game = next(iter_wthor(WTB_1977))
    assert (game.black, game.white) == (players[346], players[843]) == ("Inoue Hiroshi",
                                                                        "Heiberg Thomas")
    assert game.tournament == tournaments[1] == "World Championship"
    assert (game.year, game.result, game.theoretical, game.theoretical_empties) == (
        1977, 4, 18, 24)
    assert game.transcript().startswith("f5d6c3f3f4d3c4g6")
    assert game.black_discs == 34
    final = game.board()
    assert final.is_game_over() and final.outcome().score == game.result


def test_every_game_replays_as_the_board_does():
    for game in iter_wthor(WTHOR):
        board = Board()
        for move in game.moves:
            if move != PASS:
                board.push(move, implicit_pass=True)
            else:
                assert board.must_pass()
                board.push(PASS)
        assert list(board.move_stack) == list(game.moves)
        assert Board.from_transcript(game.transcript()) == board


def test_passes_are_put_in():
    # A game with a forced pass: replayed from its transcript, the record has PASS there.
    line = ("f5d6c3f3f4d3c4g6f6e6c5c6d7d8e7g5e3d2g4h3f7b5h5g3b4b6c8b8c7e8f8g8h4h6e2d1c1a3"
            "a6a5e1f2g7c2a4h8a2b7f1b3b1b2h7a7a8a1g1g2h2h1")    # WTHOR 1977, game 1
    board = Board.from_transcript(line)
    assert PASS in board.move_stack
    data = np.full((1, 60), _replay.END, np.uint8)
    data[0, :len(squares(line))] = squares(line)
    walk = _replay.replay(data, [Board().black], [Board().white], [0], passes=True)
    assert walk["with_passes"][0, :walk["length"][0]].tolist() == list(board.move_stack)
    assert not walk["illegal"][0]


def test_the_record_converts_to_ggf_and_back(tmp_path):
    game = next(iter_wthor(WTB_1977))
    path = tmp_path / "one.ggf"
    GameDatabase.from_records([game]).write_ggf(path)
    back = GameRecord.from_ggf(read_ggf(str(path))[0])
    assert back.moves == game.moves and back.result == game.result
    assert (back.black, back.white, back.tournament, back.year) == (
        game.black, game.white, game.tournament, game.year)
    assert (back.theoretical, back.theoretical_empties) == (18, 24)


def test_board_at_gives_the_labelled_position():
    game = next(iter_wthor(WTB_1977))
    board = game.board_at(24)
    assert board.empties() == 24 and not board.must_pass()
    assert game.board_at(70) is None


# -- damaged files ------------------------------------------------------------------------------

def test_a_header_that_disagrees_with_the_size_reads_the_whole_records(tmp_path):
    copy_names(tmp_path)
    line = squares("f5d6c3d3c4")
    path = tmp_path / "WTH_2000.wtb"
    path.write_bytes(wtb_bytes([(0, 0, 1, 40, 36, line)] * 3, claimed=4_000_000_000)[:-10])
    problems = []
    games = list(iter_wthor(path, problems=problems))
    assert len(games) == 2
    assert len(problems) == 1 and "WTH_2000.wtb" in problems[0] and "2 whole" in problems[0]


def test_foreign_and_short_files_are_refused_by_name(tmp_path):
    short = tmp_path / "short.wtb"
    short.write_bytes(b"\x14\x07")
    with pytest.raises(WthorError, match="short.wtb.*shorter than the 16-byte header"):
        read_wtb(short)
    ten = tmp_path / "ten.wtb"
    data = bytearray(wtb_bytes([]))
    data[12] = 10
    ten.write_bytes(bytes(data))
    with pytest.raises(WthorError, match="10x10"):
        read_wtb(ten)
    with pytest.raises(WthorError, match="names, not games"):
        read_wtb(WTHOR / "WTH.JOU")                 # a names file is no game file


def test_an_illegal_move_skips_its_game_and_names_it(tmp_path):
    copy_names(tmp_path)
    good = squares("f5d6c3d3c4f4")
    bad = squares("f5d6c3") + [0]                    # a1: not legal there
    path = tmp_path / "WTH_2001.wtb"
    path.write_bytes(wtb_bytes([(0, 0, 1, 40, 36, good), (0, 0, 1, 40, 36, bad),
                                (0, 0, 1, 40, 36, good)]))
    db = GameDatabase.open(path, index=None)
    assert len(db) == 2 and db.skipped == 1
    assert db.problems == ["WTH_2001.wtb, game 2: move 4 (a1) is illegal; game skipped"]
    # A collection with a damaged file in it: the other files are still read.
    (tmp_path / "WTH_2002.wtb").write_bytes(b"junk")
    db = GameDatabase.open(tmp_path, index=None)
    assert len(db) == 2 and any("WTH_2002.wtb" in p for p in db.problems)


def test_the_cli_says_one_line_and_reads_the_rest(tmp_path, capsys):
    copy_names(tmp_path)
    (tmp_path / "WTH_2001.wtb").write_bytes(
        wtb_bytes([(0, 0, 1, 40, 36, squares("f5d6c3")), (0, 0, 1, 40, 36, [0])]))
    assert main(["games", "info", "--db", str(tmp_path), "--no-index-file"]) == 0
    out, err = capsys.readouterr()
    assert out.startswith("1 games") and "game 2: move 1 (a1) is illegal" in err
    assert main(["games", "stats", "--db", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "missing" in err and "Traceback" not in err
    assert main(["games", "find", "--year", "nineteen", "--db", str(tmp_path)]) == 2


# -- the database -------------------------------------------------------------------------------

def reference_stats(records, board):
    """The slow count: replay every game with the Board and compare each position, as
    seen by the side to move, with the 8 transforms of ``board``."""
    if board.must_pass():
        board = board.copy()
        board.push(PASS)
    forms = [board.transform(s).position() for s in range(8)]
    moves, games = Counter(), 0
    for game in records:
        b = game.start.copy(stack=False)
        for move in game.moves:
            if move == PASS:
                b.push(move)
                continue
            if b.position() in forms:
                games += 1
                s = forms.index(b.position())
                moves[[x for x in range(64) if transform_square(x, s) == move][0]] += 1
            b.push(move)
    return games, moves


@pytest.fixture(scope="module")
def db():
    return GameDatabase.open(WTHOR, index=None)


def test_statistics_agree_with_a_slow_count_over_the_records(db):
    records = list(db)
    assert len(records) == len(db) == 20
    for line in ["", "f5d6", "f5f6", "f5d6c3d3c4", "f5f6e6f4"]:
        board = Board.from_transcript(line)
        stats = db.stats(board)
        games, moves = reference_stats(records, board)
        assert stats.games == games, line
        assert {m.move: m.games for m in stats.moves} == dict(moves), line


def test_the_results_are_the_side_to_moves(db):
    stats = db.stats("f5d6")                       # black to move
    records = [g for g in db if g.transcript().startswith("f5d6")]
    c3 = [g for g in records if g.transcript()[4:6] == "c3"]
    assert stats["c3"].games == len(c3)
    assert stats["c3"].mean_score == pytest.approx(np.mean([g.result for g in c3]))
    assert stats["c3"].wins == sum(g.result > 0 for g in c3)
    white = db.stats("f5d6c3")                     # white to move: the signs turn
    after = [g for g in c3]
    assert white.moves[0].mean_score == pytest.approx(
        -np.mean([g.result for g in after if g.transcript()[6:8] == white.moves[0].name]))


def test_symmetric_positions_are_pooled_and_named_in_the_asked_frame():
    line = "f5d6c3d3c4f4"
    base = Board.from_transcript(line)
    games = []
    for s in range(8):
        board = base.transform(s)
        # The same game seen through each symmetry: its moves transformed.
        moves = [transform_square(m, s) for m in base.move_stack]
        start = Board().transform(s)
        b = start.copy()
        for m in moves:
            b.push(m)
        assert b == board
        b.push(list(b.legal_moves)[0])
        games.append(GameRecord.from_board(b, black=f"p{s}", white="q", result=2 * s))
    db = GameDatabase.from_records(games)
    stats = db.stats(base)
    assert stats.games == 8
    # Every game's next move, seen from ``base``: a legal move of base each.
    assert sum(m.games for m in stats.moves) == 8
    assert all(base.is_legal(m.move) for m in stats.moves)
    for s in range(8):
        assert db.stats(base.transform(s)).games == 8


def test_filters(db):
    assert len(db.filter(year=1977)) == 12 and len(db.filter(year=(1977, 1978))) == 20
    assert len(db.filter(year=range(1978, 1979))) == 8
    inoue = db.filter(player="inoue")
    assert len(inoue) and all("Inoue" in (g.black + g.white) for g in inoue)
    assert all("Inoue" in g.black for g in db.filter(black="INOUE"))
    assert len(db.filter(opening="f5d6")) == db.stats("f5d6").games
    assert len(db.filter(opening="f5d6", year=1978)) <= len(db.filter(opening="f5d6"))
    assert db.filter(tournament="no such").stats("").games == 0
    with pytest.raises(TypeError):
        db.filter(player=3)
    with pytest.raises(ValueError):
        db.filter(year=(1990, 1980))


def test_a_finished_or_unknown_position_has_no_moves(db):
    final = db[0].board()
    assert db.stats(final).moves == ()
    nowhere = db.stats("f5f4e3f6d3c3")               # a real position no game reached
    assert nowhere.games == 0 and "none in the database" in nowhere.table()
    with pytest.raises(ValueError):
        db.stats("f5f5")


# -- the index ----------------------------------------------------------------------------------

def test_the_index_is_saved_used_again_and_refused_when_stale_or_damaged(tmp_path):
    for name in ("WTH_1977.wtb", "WTH.JOU", "WTH.TRN"):
        (tmp_path / name).write_bytes((WTHOR / name).read_bytes())
    db = GameDatabase.open(tmp_path)
    path = tmp_path / "cythello-games.index"
    assert db.index_path == path
    expected = db.stats("f5d6").games
    assert "saved" in db.index_state and path.exists()
    again = GameDatabase.open(tmp_path)
    assert again.stats("f5d6").games == expected and again.index_state.startswith("loaded")
    # Other games: the saved index is refused and built again.
    (tmp_path / "WTH_1978.wtb").write_bytes((WTHOR / "WTH_1978.wtb").read_bytes())
    more = GameDatabase.open(tmp_path)
    with pytest.raises(GamesIndexError, match="other games"):
        PositionIndex.load(path, more.table)
    assert more.stats("f5d6").games > expected and "other games" in more.index_state
    # A damaged file: refused, never read as positions.
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    with pytest.raises(GamesIndexError, match="corrupt"):
        PositionIndex.load(path, more.table)
    assert GameDatabase.open(tmp_path).stats("f5d6").games == more.stats("f5d6").games


def test_a_folder_without_write_bits_keeps_its_index_in_the_cache(tmp_path, monkeypatch):
    games = tmp_path / "games"
    games.mkdir()
    (games / "WTH_1977.wtb").write_bytes(WTB_1977.read_bytes())
    monkeypatch.setenv("CYTHELLO_CACHE", str(tmp_path / "cache"))
    os.chmod(games, 0o555)
    try:
        db = GameDatabase.open(games)
        assert db.index_path.parent == tmp_path / "cache"
        db.index()
        assert sorted(os.listdir(games)) == ["WTH_1977.wtb"]
    finally:
        os.chmod(games, 0o755)


def test_keys_agree_across_symmetries_and_with_the_position_key():
    board = Board.from_transcript("f5d6c3d3c4f4f6")
    keys = {_replay.position_key(*board.transform(s).position()) for s in range(8)}
    assert len(keys) == 1
    moves = np.full((1, 60), _replay.END, np.uint8)
    moves[0, :7] = squares("f5d6c3d3c4f4f6")
    k, e = _replay.position_keys(moves, [Board().black], [Board().white], [0], [7])
    before = Board.from_transcript("f5d6c3d3c4f4")
    assert k[-1] == _replay.position_key(*before.position()) != keys.pop()
    assert e.tolist() == list(range(7))
    own, opp, colour = _replay.positions_at(moves, [Board().black], [Board().white], [0],
                                            [0], [6])
    assert (int(own[0]), int(opp[0]), int(colour[0])) == (*before.position(), before.turn)


def test_other_sources_read_alike(tmp_path):
    records = list(iter_wthor(WTB_1977))
    GameDatabase.from_records(records).write_ggf(tmp_path / "games.ggf")
    (tmp_path / "games.txt").write_text("".join(g.transcript() + "\n" for g in records)
                                        + "# a comment\nf5f5\n")
    ggf = GameDatabase.open(tmp_path / "games.ggf", index=None)
    txt = GameDatabase.open(tmp_path / "games.txt", index=None)
    wtb = GameDatabase.open(WTB_1977, index=None)
    assert len(ggf) == len(wtb) == 12 and len(txt) == 12 and txt.skipped == 1
    for line in ("", "f5d6", "f5f6e6"):
        counts = [{m.name: m.games for m in d.stats(line).moves} for d in (ggf, txt, wtb)]
        assert counts[0] == counts[1] == counts[2]
    assert ggf.stats("f5d6").moves[0].mean_score == wtb.stats("f5d6").moves[0].mean_score
    assert txt.stats("f5d6").moves[0].mean_theoretical is None


def test_cli_stats_find_and_export(tmp_path, capsys):
    db = ["--db", str(WTHOR), "--no-index-file"]
    assert main(["games", "stats", "f5d6", *db]) == 0
    out = capsys.readouterr().out
    assert "games through this position" in out and "c3" in out
    assert main(["games", "find", "--player", "inoue", "--limit", "1", *db]) == 0
    captured = capsys.readouterr()
    assert captured.out.count("\n") == 1 and "Inoue" in captured.out
    out_file = tmp_path / "x.ggf"
    assert main(["games", "export", "--year", "1978", "-o", str(out_file), *db]) == 0
    assert len(read_ggf(str(out_file))) == 8
    assert main(["games", "export", "--format", "transcript", "-o", str(tmp_path / "t.txt"),
                 *db]) == 0
    assert len((tmp_path / "t.txt").read_text().splitlines()) == 20
    assert main(["book", "show", "f5d6", *db]) in (0, 1)
    assert "games database:" in capsys.readouterr().out
