"""The opening book: its file format (round trip, every kind of bad file refused), lookups
by symmetry, the values it backs up, a build that is the same with any number of workers
and after a resume, learning from games, and players, engines and the CLI playing from it."""
import os
import random
import struct
import subprocess
import sys
import zlib

import numpy as np
import pytest

from cythello import Board, MCTSPlayer, transform_square
from cythello.book import Book, BookBuilder, BookError, BuildSettings, build_book, load_book
from cythello.book._keys import canonical, children
from cythello.book.file import MAGIC, RECORD, read_book, write_book
from cythello.search.clock import Clock

TINY = BuildSettings(plies=6, depth=2)
CYTHELLO = [sys.executable, "-m", "cythello"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    """A tiny book (6 plies, depth-2 leaves), built end to end."""
    path = tmp_path_factory.mktemp("book") / "tiny.cybook"
    book = build_book(path, TINY, progress=False)
    return path, book


def all_boards(book):
    for r in book.records:
        yield Board.from_bitboards(int(r["own"]), int(r["opp"]))


# -- keys ------------------------------------------------------------------------------------

def test_canonical_key_is_the_same_for_every_symmetry():
    board = Board.from_transcript("f5d6c3d3c4f4")
    keys = {canonical(*board.transform(k).position())[:2] for k in range(8)}
    assert len(keys) == 1
    own, opp, k = canonical(*board.position())
    assert board.transform(k).position() == (own, opp)


def test_children_follow_the_rules_passes_and_the_end():
    board = Board.from_transcript("f5d6c3")
    kids = children(*board.position())
    assert [m for m, *_ in kids] == sorted(board.legal_moves)
    for move, own, opp, sign, _ in kids:
        after = board.copy(stack=False)
        after.push(move)
        assert sign == -1 and canonical(*after.position())[:2] == (own, opp)
    # Black's only move fills the board: the game ends, valued exactly (64-0), no child.
    end = Board("X" * 62 + "O- X")
    assert children(*end.position()) == [(63, 0, 0, 0, 64)]


def test_children_after_a_forced_pass_keep_the_mover():
    # Black plays and white has no reply while black still has moves: the child is the
    # position after white's pass, black to move again (+1).
    board = Board("XXXXXXXOXXXXXXX-XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXX-- X")
    for move, own, opp, sign, exact in children(*board.position()):
        after = board.copy(stack=False)
        after.push(move)
        if after.is_game_over():
            assert sign == 0 and exact == after.outcome().score_for(0)
        elif after.must_pass():
            assert sign == 1
            after.push(64)
            assert canonical(*after.position())[:2] == (own, opp)


# -- the file --------------------------------------------------------------------------------

def test_round_trip_is_byte_identical(tiny, tmp_path):
    path, book = tiny
    again = Book.load(path)
    assert np.array_equal(again.records, book.records) and again.header == book.header
    copy = tmp_path / "copy.cybook"
    again.save(copy)
    assert copy.read_bytes() == path.read_bytes()
    assert again.header["build"]["plies"] == 6 and again.header["positions"] == len(book)


def _rewrite(data, body_change):
    """A book whose body is changed and whose checksum is made valid again."""
    body = body_change(data[:-4])
    return body + struct.pack("<I", zlib.crc32(body))


def _bad_files(data):
    hlen = struct.unpack("<I", data[12:16])[0]
    count_at = 16 + hlen
    yield "truncated", data[: len(data) // 2]
    yield "checksum", data[:40] + bytes([data[40] ^ 1]) + data[41:]
    yield "magic", b"NOTABOOK" + data[8:]
    yield "empty", b""
    yield "version", _rewrite(data, lambda b: b[:8] + struct.pack("<I", 99) + b[12:])
    yield "header length", _rewrite(data, lambda b: b[:12] + struct.pack("<I", 1 << 30)
                                    + b[16:])
    yield "count", _rewrite(data, lambda b: b[:count_at] + struct.pack("<I", 7)
                            + b[count_at + 4:])
    # A zlib bomb: a payload that inflates far beyond what the count allows.
    bomb = zlib.compress(b"\0" * (50 << 20), 9)
    yield "bomb", _rewrite(data, lambda b: b[:count_at + 4] + struct.pack("<I", len(bomb))
                           + bomb)
    header = b"[1, 2]"
    yield "header type", _rewrite(data, lambda b: b[:12] + struct.pack("<I", len(header))
                                  + header + b[16 + hlen:])
    deep = b"[" * 100_000 + b"]" * 100_000
    yield "deep header", _rewrite(data, lambda b: b[:12] + struct.pack("<I", len(deep))
                                  + deep + b[16 + hlen:])


def test_bad_files_are_refused_with_a_clear_error(tiny, tmp_path):
    path, _ = tiny
    data = path.read_bytes()
    for name, content in _bad_files(data):
        bad = tmp_path / f"{name.replace(' ', '_')}.cybook"
        bad.write_bytes(content)
        with pytest.raises(BookError, match="opening book|book"):
            Book.load(bad)
    with pytest.raises(BookError, match="cannot read"):
        Book.load(tmp_path / "missing.cybook")
    with pytest.raises(BookError, match="cannot read|not a regular file"):
        Book.load(tmp_path)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.cybook"
    os.mkfifo(fifo)
    code = ("import sys; from cythello.book import Book, BookError\n"
            f"try:\n    Book.load({str(fifo)!r})\nexcept BookError as e:\n    print(e)\n")
    # Opening a FIFO for reading blocks until a writer comes: open it non-blocking there.
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert "not a regular file" in out.stdout, out


def test_records_that_make_no_sense_are_refused(tiny, tmp_path):
    path, book = tiny
    for change in ("unsorted", "overlap", "leaf"):
        records = book.records.copy()
        if change == "unsorted":
            records = records[::-1]
        elif change == "overlap":
            records["opp"][0] |= records["own"][0]
        else:
            records["leaf_move"][0] = 70
        bad = tmp_path / f"{change}.cybook"
        write_book(bad, records, book.header)
        with pytest.raises(BookError, match="corrupt"):
            read_book(bad)


# -- what a book says ------------------------------------------------------------------------

def test_symmetric_lookups_agree_and_map_moves_back(tiny):
    _, book = tiny
    for board in list(all_boards(book))[:60]:
        moves = book.moves(board)
        assert moves and book.entry(board) is not None
        for k in range(8):
            turned = board.transform(k)
            assert book.value(turned) == book.value(board)
            assert sorted((transform_square(m.move, k), m.value) for m in moves) == \
                sorted((m.move, m.value) for m in book.moves(turned))
            for m in book.moves(turned):
                assert turned.is_legal(m.move)


def test_the_four_first_moves_are_equal(tiny):
    _, book = tiny
    moves = book.moves(Board())
    assert sorted(m.name for m in moves) == ["c4", "d3", "e6", "f5"]
    assert len({m.value for m in moves}) == 1 and all(m.in_book for m in moves)
    assert book.value(Board()) == moves[0].value


def test_values_are_the_negamax_of_the_moves(tiny):
    _, book = tiny
    for board in all_boards(book):
        entry = book.entry(board)
        moves = book.moves(board)
        assert entry.value == max(m.value for m in moves)
        if entry.leaf_move is not None:
            after = board.copy(stack=False)
            after.push(entry.leaf_move)
            assert after not in book                       # the leaf leaves the book
            assert any(m.move == entry.leaf_move and not m.in_book for m in moves)


def test_choose_is_legal_reproducible_and_varied(tiny):
    _, book = tiny
    start = Board()
    picks = [book.choose(start, 0.0, random.Random(s)).name for s in range(40)]
    assert set(picks) == {"c4", "d3", "e6", "f5"}         # ties drawn evenly
    board = Board.from_transcript("f5")
    best = book.moves(board)[0]
    assert {book.choose(board, 0.0, random.Random(s)).move for s in range(10)} == {best.move}
    wide = [book.choose(board, 64.0, random.Random(s)).move for s in range(200)]
    assert len(set(wide)) == len(book.moves(board)) and wide.count(best.move) > 200 / len(
        book.moves(board))
    assert [book.choose(board, 3.0, random.Random(5)).move for _ in range(3)] == \
        [book.choose(board, 3.0, random.Random(5)).move for _ in range(3)]
    assert book.choose(Board.from_transcript("f5d6c3d3c4f4f6f3e6e7"), 1.0) is None


def test_positions_are_every_book_position_once_each_reached_by_book_moves(tiny):
    _, book = tiny
    everything = book.positions(0, 60)
    keys = [canonical(*board.position())[:2] for board in everything]
    assert len(set(keys)) == len(keys) == len(book)     # each record once, up to symmetry
    for board in everything:
        replay = Board()
        for move in board.move_stack:                   # a line of book moves to it
            assert any(m.move == move and m.in_book for m in book.moves(replay))
            replay.push(move)
        assert replay == board
    some = book.positions(2, 4)
    assert some and all(2 <= len(b.move_stack) <= 4 for b in some)
    assert some == [b for b in everything if 2 <= len(b.move_stack) <= 4]
    assert [len(b.move_stack) for b in some] == sorted(len(b.move_stack) for b in some)
    assert book.positions(0, 0) == [Board()] and book.positions(7, 9) == []
    for bad in ((3, 2), (-1, 4), (1.5, 4)):
        with pytest.raises(ValueError, match="book positions"):
            book.positions(*bad)


# -- building ---------------------------------------------------------------------------------

def test_build_is_the_same_with_one_and_two_workers(tiny, tmp_path):
    path, book = tiny
    two = build_book(tmp_path / "two.cybook", TINY, workers=2, progress=False)
    assert (tmp_path / "two.cybook").read_bytes() == path.read_bytes()
    assert len(two) == len(book) > 20


def test_ray_backend_builds_the_same_book(tiny, tmp_path):
    path, _ = tiny
    with pytest.raises(ValueError, match="backend"):
        BookBuilder(TINY, backend="dask")
    pytest.importorskip("ray", reason="Ray is optional: pip install 'cythello[ray]'")
    build_book(tmp_path / "ray.cybook", TINY, backend="ray", progress=False)
    assert (tmp_path / "ray.cybook").read_bytes() == path.read_bytes()


def test_a_resumed_build_ends_where_one_run_does(tiny, tmp_path):
    path, book = tiny
    part = tmp_path / "part.cybook"
    first = BookBuilder(TINY, part)
    first.run(rounds=2)
    assert part.exists() and len(first.positions) < len(book)
    resumed = BookBuilder(None, part)                 # the settings from the file
    assert resumed.settings == TINY and resumed.rounds == 2
    resumed.run()
    resumed.save()
    assert np.array_equal(resumed.book().records, book.records)


def test_budgets_stop_a_build(tmp_path):
    b = BookBuilder(BuildSettings(plies=10, depth=2))
    b.run(max_positions=60)
    assert 60 <= len(b.positions) < 200
    assert all(bin(own | opp).count("1") - 4 <= 10 for own, opp in b.positions)


def test_learning_a_game_adds_its_positions(tiny, tmp_path):
    path, _ = tiny
    target = tmp_path / "learned.cybook"
    target.write_bytes(path.read_bytes())
    rng = random.Random(4)                        # a random game leaves the book early
    b, positions = Board(), []
    while b.ply < 10:
        b.push(rng.choice(list(b.legal_moves)))
        positions.append(b.copy(stack=False))
    assert not all(p in Book.load(target) for p in positions[:6])
    builder = BookBuilder(None, target)
    added = builder.learn(positions)
    assert added > 0
    book = Book.load(target)
    for p in positions:
        if 64 - p.empties() - 4 <= 6:                 # the book's plies
            assert p in book
    for board in all_boards(book):                    # values backed up again
        assert book.entry(board).value == max(m.value for m in book.moves(board))


def test_bad_build_settings_are_errors():
    with pytest.raises(ValueError, match="plies"):
        BuildSettings(plies=0)
    with pytest.raises(ValueError, match="margin"):
        BuildSettings(margin=-1)
    with pytest.raises(TypeError):
        BuildSettings(depth=2.5)
    with pytest.raises(ValueError, match="probcut"):
        BuildSettings(probcut=0)


def test_a_selective_build_values_moves_by_multi_probcut_and_says_so(tmp_path):
    from cythello.eval.weights import load_eval_weights
    from cythello.search.alphabeta._midgame import search_many
    settings = BuildSettings(plies=4, depth=10, probcut=1.0)
    b = BookBuilder(settings, tmp_path / "cut.cybook")
    b.run(rounds=1)
    b.save()
    assert BookBuilder(None, tmp_path / "cut.cybook").settings == settings   # in the header
    # The moves of its last ply's positions are valued by the selective search (9 plies
    # below each move), not by a full-width one.
    book = Book.load(tmp_path / "cut.cybook")
    weights = load_eval_weights("default")
    checked = differ = 0
    for board in all_boards(book):
        if 60 - board.empties() != 4:
            continue
        moves = {m.move: m.value for m in book.moves(board)}
        kids = []
        for move in moves:
            child = board.copy(stack=False)
            child.push(move)
            kids.append(child.position())
        own, opp = (np.array(x, dtype=np.uint64) for x in zip(*kids))
        values = np.array([moves[m] for m in moves])
        assert np.allclose(values, -search_many(own, opp, 9, weights, 1.0), atol=1 / 8)
        differ += not np.allclose(values, -search_many(own, opp, 9, weights), atol=1 / 8)
        checked += 1
    assert checked >= 3 and differ >= 1


# -- playing from it --------------------------------------------------------------------------

def test_player_plays_book_moves_without_searching(tiny):
    path, book = tiny
    player = MCTSPlayer(book=str(path), iterations=300, seed=1)
    result = player.search(Board())
    assert result.stop_reason == "book" and result.iterations == 0
    assert result.best_move_name in ("c4", "d3", "e6", "f5")
    assert {s.name for s in result.moves} == {"c4", "d3", "e6", "f5"}
    assert result.discs == book.value(Board())
    searched = player.search(Board(), book=False)
    assert searched.stop_reason != "book" and searched.iterations > 0


def test_seeded_variety_is_reproducible(tiny):
    path, _ = tiny

    def line(seed):
        player = MCTSPlayer(book=str(path), book_variety=4.0, iterations=50, seed=seed)
        board = Board()
        while board.ply < 6:
            board.push(player.choose_move(board))
        return board.transcript()
    assert line(3) == line(3)
    assert len({line(s) for s in range(8)}) > 1


def test_player_leaves_the_book_cleanly_on_a_clock(tiny):
    path, book = tiny
    player = MCTSPlayer(book=str(path), time_limit=0.05, seed=2)
    board, clock = Board(), Clock(3.0)
    reasons = []
    while board.ply < 12:
        result = player.search(board, clock=clock)
        assert board.is_legal(result.best_move)
        reasons.append(str(result.stop_reason))
        clock = clock.after(result.elapsed)
        board.push(result.best_move)
    assert reasons[0] == "book" and reasons[-1] != "book"
    first_out = reasons.index(next(r for r in reasons if r != "book"))
    assert all(r == "book" for r in reasons[:first_out])
    assert clock.time_left > 0


def test_book_settings_are_checked(tmp_path):
    with pytest.raises(TypeError, match="book"):
        MCTSPlayer(book=12)
    with pytest.raises(BookError, match="cannot read"):
        MCTSPlayer(book=str(tmp_path / "nothing.cybook"))
    with pytest.raises(ValueError, match="book_variety"):
        MCTSPlayer(book_variety=-1)
    assert load_book(None) is None


# -- engines and the command line -------------------------------------------------------------

def test_nboard_hint_and_go_show_book_moves(tiny):
    import io

    from cythello.protocols.nboard import NBoardEngine
    path, _ = tiny
    out = io.StringIO()
    engine = NBoardEngine(out, MCTSPlayer(book=str(path), iterations=100, seed=1))
    for line in ("nboard 2", "hint 4", "go"):
        engine.handle(line)
    lines = out.getvalue().splitlines()
    assert sum(line.startswith("book ") for line in lines) >= 8
    assert any(line.startswith("=== ") for line in lines)


def test_gtp_lists_book_moves(tiny):
    from cythello.protocols.gtp import GtpEngine
    path, _ = tiny
    engine = GtpEngine(MCTSPlayer(book=str(path), iterations=100, seed=1))
    reply = engine.handle("cythello-book_moves")
    assert reply.startswith("= ") and len(reply.strip().splitlines()) == 4
    assert engine.handle("genmove b").strip()[2:] in ("c4", "d3", "e6", "f5")


def test_cli_builds_shows_and_refuses(tmp_path):
    path = tmp_path / "cli.cybook"
    run = lambda *a: subprocess.run(CYTHELLO + list(a), capture_output=True, text=True,
                                    timeout=300)
    out = run("book", "build", str(path), "--plies", "4", "--depth", "2")
    assert out.returncode == 0 and path.exists(), out.stderr
    out = run("book", "show", "f5", "--book", str(path))
    assert out.returncode == 0 and "book" in out.stdout
    out = run("book", "show", "f5d6c3d3c4f4f6f3", "--book", str(path))
    assert out.returncode == 1 and "not in the book" in out.stdout
    out = run("book", "stats", "--book", str(path))
    assert out.returncode == 0 and "positions" in out.stdout
    again = run("book", "build", str(path))
    assert again.returncode == 2 and "extend" in again.stderr
    more = run("book", "extend", str(path), "--plies", "5", "--rounds", "1")
    assert more.returncode == 0, more.stderr
    build = Book.load(path).header["build"]
    assert (build["plies"], build["depth"]) == (5, 2)      # the book's depth, the new plies
    (tmp_path / "bad.cybook").write_bytes(MAGIC + b"\0" * 40)
    bad = run("book", "stats", "--book", str(tmp_path / "bad.cybook"))
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
    games = tmp_path / "games.txt"
    games.write_text("f5d6c3d3c4f4\nnot a game\n")
    learned = run("book", "learn", str(path), str(games))
    assert learned.returncode == 2 and "line 2" in learned.stderr


def test_record_layout_is_stable():
    assert RECORD.itemsize == 22


def test_the_shipped_book_loads_and_is_consistent():
    """The default book: loads, says how it was built, the four first moves equal, and its
    values are the negamax of its moves on a sample of positions."""
    from cythello.book import default_book
    book = default_book()
    assert len(book) > 1000 and book.header["build"]["depth"] >= 1
    first = book.moves(Board())
    assert len(first) == 4 and len({m.value for m in first}) == 1
    for board in list(all_boards(book))[::max(1, len(book) // 200)]:
        moves = book.moves(board)
        assert moves and book.value(board) == max(m.value for m in moves)
        assert all(board.is_legal(m.move) for m in moves)


def test_a_build_reports_each_chunk_of_a_round():
    ticks = []
    b = BookBuilder(BuildSettings(plies=8, depth=2), ticker=lambda *t: ticks.append(t))
    b.run(rounds=3)
    assert ticks and all(0 < done <= todo for done, todo, _ in ticks)
    ends = [t for t in ticks if t[0] == t[1]]
    assert len(ends) == 3                       # each round's last chunk finishes it
    assert all(seconds >= 0 for _, _, seconds in ticks)
