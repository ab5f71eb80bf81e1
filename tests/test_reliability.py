"""The fourth and fifth audits' findings, each as the test that failed before its fix: every
file read through one bounded reader, book records that make sense, engines that quit at
once, output paths checked before the work and never replacing a device, array files
bounded by what they hold and written whole.  (The concurrency contract:
test_contract.py.)"""
import io
import json
import os
import stat
import struct
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile
import zlib

import numpy as np
import pytest

import cythello as cy
from cythello.book import Book
from cythello.book._keys import canonical
from cythello.book.file import FORMAT_VERSION, MAGIC, NO_MOVE, RECORD, VALUE_SCALE
from cythello.errors import BookError, InvalidBoardError
from cythello.openings import read_openings
from cythello.selfplay.shards import ShardError, read_shard

PY = sys.executable
CYTHELLO = [PY, "-m", "cythello"]
POSIX = os.name == "posix"
# A middle-game position out of the book (a random game's 16 moves), black to move.
MIDGAME = "c4c5f6c3b5g7e3e6c2f3g3a5h8b3f4f2"


def run_cli(args, data="", timeout=60):
    return subprocess.run(CYTHELLO + args, input=data, capture_output=True, text=True,
                          timeout=timeout)


# -- openings files (finding 1) ----------------------------------------------------------------

@pytest.mark.skipif(not POSIX, reason="/dev/zero and FIFOs are POSIX")
def test_openings_from_a_device_or_a_fifo_are_refused_at_once(tmp_path):
    with pytest.raises(InvalidBoardError, match="/dev/zero is not a regular file"):
        read_openings("/dev/zero")
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    with pytest.raises(InvalidBoardError, match="not a regular file"):
        read_openings(str(fifo))                     # no writer: it used to wait for ever
    out = run_cli(["match", "random", "random", "--games", "2", "--openings", "/dev/zero"],
                  timeout=60)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == [
        "cythello match: error: openings file /dev/zero is not a regular file"]


def test_openings_files_in_utf8_with_a_bom_and_in_latin1(tmp_path):
    bom = tmp_path / "bom.txt"
    bom.write_bytes(b"\xef\xbb\xbff5d6c3\n# a comment\n\n" + cy.STARTING_BOARD_STRING.encode())
    boards = read_openings(str(bom))
    assert [b.ply for b in boards] == [3, 0]
    latin = tmp_path / "latin.txt"
    latin.write_bytes("f5d6 \u00e9\n".encode("latin-1"))
    with pytest.raises(InvalidBoardError, match=r"latin\.txt is not UTF-8 text \(byte 5"):
        read_openings(str(latin))


# -- opening books (findings 2 and 4) ------------------------------------------------------------

def _book_file(path, count, raw, compressed=None):
    """A book file claiming ``count`` records, whose payload is ``raw`` compressed (or
    ``compressed`` as it is)."""
    header = b"{}"
    payload = zlib.compress(raw, 9) if compressed is None else compressed
    body = (MAGIC + struct.pack("<II", FORMAT_VERSION, len(header)) + header
            + struct.pack("<II", count, len(payload)) + payload)
    path.write_bytes(body + struct.pack("<I", zlib.crc32(body)))
    return path


def _start_record(value=0, leaf_move=NO_MOVE, leaf_value=0):
    own, opp = cy.Board().position()
    key_own, key_opp, _ = canonical(own, opp)
    rec = np.zeros(1, RECORD)
    rec["own"], rec["opp"] = key_own, key_opp
    rec["value"], rec["leaf_move"], rec["leaf_value"], rec["depth"] = (
        value, leaf_move, leaf_value, 8)
    return rec


def test_book_records_that_make_no_sense_are_refused_on_load(tmp_path):
    good = _book_file(tmp_path / "good.cybook", 1, _start_record(+3 * VALUE_SCALE).tobytes())
    assert Book.load(good).stats()["by_ply"] == {0: 1}
    few = _start_record()
    few["own"], few["opp"] = 1, 2                 # two discs: no game reaches it
    cases = {
        "empty centre square": few,
        "value beyond": _start_record(4096 * VALUE_SCALE // 8),
        "leaf value beyond": _start_record(leaf_move=19, leaf_value=-65 * VALUE_SCALE),
        "leaf move onto a taken square": _start_record(leaf_move=27),
        "leaf move off the board": _start_record(leaf_move=70),
    }
    for i, (what, rec) in enumerate(cases.items()):
        path = _book_file(tmp_path / f"bad{i}.cybook", 1, rec.tobytes())
        with pytest.raises(BookError, match=what):
            Book.load(path)
    # The CLI says so in one line (Book.stats() used to raise numpy's error).
    out = run_cli(["book", "stats", "--book", str(tmp_path / "bad0.cybook")])
    assert out.returncode == 2 and len(out.stderr.strip().splitlines()) == 1
    assert "empty centre square" in out.stderr


def test_a_book_claiming_more_than_deflate_can_give_is_refused_before_inflating(tmp_path):
    path = _book_file(tmp_path / "claim.cybook", 1 << 26, b"\0" * 4096)
    with pytest.raises(BookError, match="more than deflate can give"):
        Book.load(path)


def test_a_zlib_bomb_is_refused_after_its_first_part(tmp_path):
    raw = b"\0" * (RECORD.itemsize * 400_000)            # 8.8 MB of nonsense records
    path = _book_file(tmp_path / "bomb.cybook", 400_000, raw)
    assert path.stat().st_size < 20_000
    tracemalloc.start()
    try:
        with pytest.raises(BookError, match="empty centre square"):
            Book.load(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 << 20               # one inflated part (1 MiB) and a copy, not 8.8 MB


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS as Linux has it")
def test_the_shipped_book_loads_under_an_address_space_limit():
    # The reader used to ask for read(1.48 GB) at once: a MemoryError under `ulimit -v`.
    code = textwrap.dedent("""\
        import resource, sys
        limit = 1536 << 20
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        from cythello.cli import main
        sys.exit(main(["book", "show", "f5"]))
        """)
    out = subprocess.run([PY, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "book" in out.stdout and "Traceback" not in out.stderr


# -- shards and caches: arrays through the bounded reader -------------------------------------------

def _npz(path, members):
    with zipfile.ZipFile(path, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return path


def test_a_shard_claiming_a_huge_array_is_refused_without_allocating_it(tmp_path):
    member = io.BytesIO()
    np.lib.format.write_array(member, np.zeros(4, np.uint64))
    header = member.getvalue().replace(b"(4,)", b"(4000000000000,)".ljust(4))
    path = _npz(tmp_path / "shard-000000.npz", {"black.npy": header})
    with pytest.raises(ShardError, match="claims .* bytes of data it does not hold"):
        read_shard(path)
    pickled = io.BytesIO()
    np.lib.format.write_array(pickled, np.array([object()], dtype=object), allow_pickle=True)
    path = _npz(tmp_path / "shard-000001.npz", {"black.npy": pickled.getvalue()})
    with pytest.raises(ShardError, match="Python objects"):
        read_shard(path)
    (tmp_path / "shard-000002.npz").write_bytes(b"PK\x03\x04 not a zip")
    with pytest.raises(ShardError, match="corrupt"):
        read_shard(tmp_path / "shard-000002.npz")


# -- engines that quit at once (finding 3) ----------------------------------------------------------

@pytest.mark.parametrize("search", ["uct", "puct"])
@pytest.mark.parametrize("ending", ["quit", "eof"])
def test_gtp_quit_or_end_of_input_stops_a_running_genmove(search, ending):
    proc = subprocess.Popen(CYTHELLO + ["gtp", "--time", "60", "--search", search],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        board = cy.Board()
        for i, move in enumerate(cy.Board.from_transcript(MIDGAME).move_stack):
            proc.stdin.write(f"play {'bw'[i % 2]} {cy.square_name(move)}\n")
            board.push(move)
        proc.stdin.write("genmove b\n")
        proc.stdin.flush()
        # Every play answered: the genmove behind them is being served.
        for _ in board.move_stack:
            assert proc.stdout.readline() == "=\n" and proc.stdout.readline() == "\n"
        # Bounded far below the 60 s it used to go on searching for (communicate closes
        # the input after the quit, or at once).
        out, _ = proc.communicate("quit\n" if ending == "quit" else "", timeout=30)
        assert proc.returncode == 0
    finally:
        proc.kill()
        proc.wait()
    replies = [r for r in out.split("\n\n") if r.strip()]
    assert len(replies) == 1 + (ending == "quit")
    assert cy.parse_move(replies[0].split()[1]) in board.legal_moves


# -- output paths (finding 5) ----------------------------------------------------------------------

def test_analyse_svg_of_one_position_draws_it_with_the_best_move(tmp_path):
    svg = tmp_path / "pos.svg"
    out = run_cli(["analyse", "f5d6c3", "--iterations", "300", "--json", "--svg", str(svg)])
    assert out.returncode == 0, out.stderr
    best = json.loads(out.stdout)["best_move"]          # stdout stays JSON
    text = svg.read_text()
    assert text.startswith("<svg") and "#1565c0" in text
    assert best in cy.Board.from_transcript("f5d6c3").legal_moves


def test_an_unwritable_output_is_refused_before_the_work(tmp_path):
    missing = str(tmp_path / "no" / "such" / "folder.svg")
    for args in (["analyse", "f5d6c3d3c4f4f6", "--game", "--time", "60", "--svg", missing],
                 ["analyse", MIDGAME, "--time", "60", "--svg", str(tmp_path)],
                 ["match", "expert", "expert", "--games", "50", "--svg", missing]):
        out = run_cli(args, timeout=30)                 # not after 60 s of analysis
        assert out.returncode == 2
        assert len(out.stderr.strip().splitlines()) == 1 and "cannot write SVG" in out.stderr
    assert list(tmp_path.iterdir()) == []              # nothing left behind


def test_gtp_command_line_limits_win_over_the_controllers_clock():
    """``cythello gtp --iterations N`` (or ``--time``) wins over ``time_settings``, as its
    help says; the clock still caps it.  (It used to search the clock's whole budget.)"""
    from cythello.protocols.gtp import GtpEngine
    from cythello.search.clock import Clock

    class Recording(cy.MCTSPlayer):
        def search(self, board, **kwargs):
            self.calls.append(kwargs)
            return super().search(board, **kwargs)

    for limits, expected in (((40, None), (40, None)), ((None, 0.05), (None, 0.05)),
                             (None, (None, None))):
        player = Recording(iterations=40, seed=1, book=None)
        player.calls = []
        engine = GtpEngine(player, limits=limits)
        assert engine.handle("time_settings 300 0 0") == "=\n\n"
        reply = engine.handle("genmove b")
        assert reply.startswith("= ")
        call = player.calls[-1]
        assert isinstance(call["clock"], Clock)
        assert (call.get("iterations"), call.get("time_limit")) == expected


# == The fifth audit ================================================================================
# -- output paths that cannot replace a device (finding 1) ------------------------------------------

ROOT_ONLY = pytest.mark.skipif(not POSIX or os.geteuid() != 0,
                               reason="making a device node needs root")


def _null_device(tmp_path):
    """A character device like /dev/null, made here (never /dev itself)."""
    import stat
    path = tmp_path / "null"
    os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(1, 3))
    return path


@ROOT_ONLY
def test_an_output_that_is_a_device_is_written_through_not_replaced(tmp_path):
    import stat

    from cythello._files import write_atomic
    device = _null_device(tmp_path)
    write_atomic(device, b"x" * 100, "test output", OSError)
    assert stat.S_ISCHR(os.stat(device).st_mode)
    out = run_cli(["analyse", "f5d6", "--iterations", "200", "--svg", str(device)])
    assert out.returncode == 0, out.stderr
    from cythello.book.store import default_book
    default_book().save(device)
    assert stat.S_ISCHR(os.stat(device).st_mode)          # still the device
    assert sorted(p.name for p in tmp_path.iterdir()) == ["null"]   # no .part left


@pytest.mark.skipif(not POSIX, reason="FIFOs are POSIX")
def test_an_output_fifo_is_written_through_or_refused_never_waited_on(tmp_path):
    import threading

    from cythello._files import write_atomic
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    out = run_cli(["analyse", "f5d6", "--iterations", "200", "--svg", str(fifo)], timeout=60)
    assert out.returncode == 2 and "nothing is reading it" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1
    got = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    for _ in range(200):                                # until the reader has opened it
        try:
            write_atomic(fifo, b"through the pipe", "test output", OSError)
            break
        except OSError as exc:
            assert "nothing is reading it" in str(exc)
            import time
            time.sleep(0.01)
    reader.join(10)
    assert got == [b"through the pipe"] and os.path.exists(fifo)


def test_outputs_replace_files_whole_and_write_through_links(tmp_path):
    from cythello._files import write_atomic
    target = tmp_path / "real.txt"
    target.write_text("old")
    link = tmp_path / "link.txt"
    link.symlink_to(target)
    write_atomic(link, b"new", "test output", OSError)
    assert link.is_symlink() and target.read_text() == "new"
    with pytest.raises(OSError, match="it is a folder"):
        write_atomic(tmp_path, b"x", "test output", OSError)
    # A write that fails half-way leaves neither a file nor its temporary.
    fresh = tmp_path / "fresh.bin"
    real_replace = os.replace

    def full_disk(*args):
        raise OSError(28, "No space left on device")
    os.replace = full_disk
    try:
        with pytest.raises(OSError, match="No space left"):
            write_atomic(fresh, b"data", "test output", OSError)
    finally:
        os.replace = real_replace
    assert not fresh.exists() and not list(tmp_path.glob("*fresh.bin*"))


def test_outputs_never_go_through_a_temporary_name_someone_else_made(tmp_path):
    # The old fixed name PATH.part, made a link to another file or a FIFO beforehand,
    # is neither written through nor waited on; the output is a plain file.
    from cythello._files import write_atomic
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    out = tmp_path / "out.svg"
    (tmp_path / "out.svg.part").symlink_to(victim)
    os.mkfifo(tmp_path / "out.bin.part")
    write_atomic(out, b"<svg/>", "test output", OSError)
    write_atomic(tmp_path / "out.bin", b"data", "test output", OSError)
    assert victim.read_text() == "keep me"
    assert not out.is_symlink() and out.read_bytes() == b"<svg/>"
    assert (tmp_path / "out.bin").read_bytes() == b"data"
    # The mode a file made by open() would have (not mkstemp's 0600), and a replaced
    # file keeps its own.
    umask = os.umask(0o022)
    os.umask(umask)
    assert stat.S_IMODE(out.stat().st_mode) == 0o666 & ~umask
    os.chmod(out, 0o640)
    write_atomic(out, b"<svg>2</svg>", "test output", OSError)
    assert stat.S_IMODE(out.stat().st_mode) == 0o640


def test_concurrent_saves_of_one_path_all_succeed(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    from cythello._files import write_atomic
    out = tmp_path / "book.bin"
    payloads = [bytes([i]) * 4096 for i in range(100)]
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda data: write_atomic(out, data, "test output", OSError), payloads))
    assert out.read_bytes() in payloads
    assert sorted(p.name for p in tmp_path.iterdir()) == ["book.bin"]


def test_the_ggf_and_svg_outputs_of_a_match_go_through_the_same_writer(tmp_path):
    folder = tmp_path / "pictures"
    folder.mkdir()
    (folder / "game-001.svg").mkdir()                  # a folder where a picture goes
    out = run_cli(["match", "random", "random", "--games", "2", "--openings", "start",
                   "--svg-dir", str(folder)])
    assert out.returncode == 2 and "cannot write SVG file" in out.stderr
    assert "Traceback" not in out.stderr


# -- array files: bounded by what they really hold (finding 4), written whole (finding 5) ----------

def test_an_array_file_claiming_far_more_than_it_holds_is_refused_before_inflating(tmp_path):
    path = tmp_path / "shard-000000.npz"
    header = io.BytesIO()
    np.lib.format.write_array(header, np.zeros(1, np.uint8))
    head = header.getvalue().replace(b"(1,)", b"(200000000,)".ljust(4))
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf, \
            zf.open("black.npy", "w", force_zip64=True) as member:
        member.write(head)
        chunk = bytes(1 << 20)
        for _ in range(200):                            # 200 MB of zeros: about 200 KB
            member.write(chunk)
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ShardError, match="not a file of cythello's arrays"):
            read_shard(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 << 20                              # nothing inflated


def test_a_damaged_training_cache_is_computed_again(tmp_path):
    from cythello._files import write_npz
    from cythello.errors import SettingsError
    from cythello.training.pipeline import _cached
    cache = tmp_path / "labels-r0-stage00.npz"
    write_npz(cache, {"labels": np.arange(5.0)}, "training cache", SettingsError)
    assert list(_cached(cache, ("labels",), 5)["labels"]) == [0, 1, 2, 3, 4]
    assert _cached(cache, ("labels",), 6) is None       # written for other positions
    assert _cached(cache, ("labels", "own"), None) is None
    cache.write_bytes(cache.read_bytes()[:40])          # cut short, as by a full disk
    assert _cached(cache, ("labels",), 5) is None
    assert _cached(tmp_path / "missing.npz", ("labels",)) is None


# -- players freed by their last reference (finding 2) ----------------------------------------------

@pytest.mark.parametrize("spec", ["mcts:time=0.05,threads=2,reuse_tree=1",
                                  "puct:time=0.05,threads=2",
                                  "alphabeta:time=0.05,threads=2,probcut=1.5"])
def test_a_dropped_pondering_player_is_freed_at_once_without_the_cycle_collector(spec):
    import gc
    import threading
    import weakref
    board = cy.Board.from_transcript("f5d6c3d3c4f4")
    before = set(threading.enumerate())
    gc.disable()                     # the cycle collector would hide a reference cycle
    try:
        player = cy.make_player(spec)
        player.search(board)
        player.ponder(board)
        assert player.pondering
        ref = weakref.ref(player)
        del player
        assert ref() is None         # freed by its reference count alone
        for thread in set(threading.enumerate()) - before:
            thread.join(30)          # its pondering ended with it
            assert not thread.is_alive()
    finally:
        gc.enable()


# -- threads and the hand-off to alpha-beta (finding 3) ---------------------------------------------

@pytest.mark.parametrize("spec", ["puct:time=0.01,alphabeta_empties=30",
                                  "mcts:time=0.01,alphabeta_empties=30"])
def test_searches_from_two_threads_with_the_alphabeta_hand_off(spec):
    import random
    import threading
    rng = random.Random(1)
    boards = []
    while len(boards) < 20:                  # on both sides of the hand-off
        board = cy.Board()
        plies = rng.choice([20, 30, 36, 40])
        while board.ply < plies and not board.is_game_over():
            board.push(rng.choice(list(board.legal_moves)))
        if not board.is_game_over():
            boards.append(board)
    player = cy.make_player(spec)
    errors, moves = [], []

    def work(seed):
        r = random.Random(seed)
        for _ in range(25):
            board = r.choice(boards)
            try:
                move = player.search(board).best_move
                moves.append(board.is_legal(move))
            except Exception as exc:             # the phase switched under a running search
                errors.append(repr(exc))

    threads = [threading.Thread(target=work, args=(i,)) for i in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and len(moves) == 50 and all(moves)


# -- a stop while pondering starts (finding 9) ------------------------------------------------------

@pytest.mark.parametrize("spec", ["puct:time=0.05", "mcts:time=0.05,reuse_tree=1",
                                  "alphabeta:time=0.05,probcut=1.5"])
def test_a_stop_while_pondering_starts_ends_the_pondering(spec):
    import threading
    import time
    board = cy.Board.from_transcript("f5d6c3d3c4f4")
    player = cy.make_player(spec)
    lost = 0
    for i in range(40):
        starter = threading.Thread(target=player.ponder, args=(board,))
        starter.start()
        time.sleep(0.0005 * (i % 5))
        player.stop()
        starter.join()
        deadline = time.monotonic() + 2.0        # a stopped pondering returns soon
        while player.pondering and time.monotonic() < deadline:
            time.sleep(0.005)
        lost += player.pondering
        player.stop_pondering()
    assert lost == 0


# -- weights at their extremes (finding 10) ---------------------------------------------------------

@pytest.mark.parametrize("value", [32767, -32768])
def test_extreme_weights_give_scores_within_the_game_and_searches_that_end(tmp_path, value):
    from cythello.eval.weights import load_weights, read_weights, save_weights
    packed, _ = read_weights(os.path.join(os.path.dirname(cy.__file__), "eval",
                                          "default.weights"))
    path = tmp_path / "extreme.weights"
    save_weights(path, np.full_like(packed, value), {"test": "every weight at an extreme"})
    weights = load_weights(path)
    board = cy.Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    assert abs(cy.evaluate(board, weights)) <= 64
    for _ in range(3):
        result = cy.AlphaBetaPlayer(time_limit=0.05, probcut=1.5, eval_weights=str(path)).search(board)
        assert 0.0 <= result.win_rate <= 1.0 and abs(result.value) <= 64
    deep = cy.AlphaBetaPlayer(depth=8, eval_weights=str(path))
    assert board.is_legal(deep.search(board).best_move)   # it used to take minutes


def test_win_rates_of_any_value():
    from cythello.search.results import win_rate_of
    assert win_rate_of(-1e6) == 0.0 and win_rate_of(1e6) == 1.0 and win_rate_of(0) == 0.5


# -- settings that accepted infinity, and smaller findings (8, 11) ----------------------------------

def test_bench_seconds_must_be_finite():
    for bad in ("inf", "nan", "-1", "0"):
        out = run_cli(["bench", "--seconds", bad], timeout=30)
        assert out.returncode == 2 and "seconds must be" in out.stderr
        assert len(out.stderr.strip().splitlines()) == 1


def test_specs_name_what_is_wrong_briefly_and_refuse_repeated_keys():
    from cythello.errors import SettingsError
    with pytest.raises(SettingsError) as info:
        cy.make_player("mcts:" + "x" * 1_000_000)
    assert len(str(info.value)) < 1000 and "1,000,005 characters" in str(info.value)
    with pytest.raises(SettingsError, match="'time_limit' is given twice"):
        cy.make_player("mcts:time=1,time=2")
    with pytest.raises(SettingsError, match="'iterations' is given twice"):
        cy.make_player("puct:sims=10,iterations=20")
    out = run_cli(["analyse", "f5d6", "--search", "alphabeta", "--threads", "-1"])
    assert out.returncode == 2 and "a number of threads from 1 to 256, or auto" in out.stderr
    assert len(out.stderr.strip().splitlines()) == 1


def test_a_level_spec_changes_its_search_settings():
    expert = cy.make_player("expert:time=1")
    assert type(expert).__name__ == "PUCTPlayer"
    assert expert.settings.time_limit == 1.0 and expert.settings.iterations is None
    assert expert.settings.endgame_by_time             # the rest is the level's
    medium = cy.make_player("medium:time=0.5,book=none")
    assert medium.settings.iterations is None and medium.book is None
    easy = cy.make_player("easy:iterations=50")
    assert easy.settings.iterations == 50 and easy.settings.time_limit is None


@pytest.mark.skipif(not POSIX, reason="the engine is the POSIX yes(1)")
def test_an_engine_that_never_answers_is_one_line_with_its_timeout():
    import shutil
    if shutil.which("yes") is None:
        pytest.skip("no yes(1)")
    from cythello.protocols.engine import EngineTimeoutError, popen_gtp
    with pytest.raises(EngineTimeoutError, match=r"did not answer within 0\.5 s"):
        popen_gtp("yes", timeout=0.5)


# -- the training command's bad arguments (finding 7) -----------------------------------------------

@pytest.mark.parametrize("extra", [["--rounds", "0"], ["--games", "-5"], ["--workers", "0"],
                                   ["--seed", "-1"], ["--huber", "-1"], ["WORKDIR-IS-A-FILE"],
                                   ["--out", "MISSING/x.weights"]])
def test_the_training_command_refuses_bad_arguments_in_one_line_before_any_work(
        tmp_path, capsys, extra):
    from cythello.training.__main__ import main
    workdir, out = tmp_path / "work", tmp_path / "out.weights"
    if extra == ["WORKDIR-IS-A-FILE"]:
        workdir.write_text("a file")
        extra = []
    extra = [e.replace("MISSING", str(tmp_path / "no" / "such")) for e in extra]
    code = main(["--preset", "tiny", "--workdir", str(workdir), "--out", str(out)] + extra)
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1 and err[0].startswith("python -m cythello.training: ")
    assert not (workdir.is_dir() and any(workdir.iterdir()))      # no work was done


@pytest.mark.parametrize("extra", [["--positions", "0"], ["--selfplay", "NOWHERE"],
                                   ["--out", "MISSING/x.weights"], ["--seed", "-2"]])
def test_the_calibrate_command_refuses_bad_arguments_in_one_line(tmp_path, capsys, extra):
    from cythello.training.__main__ import main
    weights = os.path.join(os.path.dirname(cy.__file__), "eval", "default.weights")
    args = {"--selfplay": str(tmp_path), "--out": str(tmp_path / "c.weights")}
    for key, value in zip(extra[::2], extra[1::2]):
        args[key] = value.replace("NOWHERE", str(tmp_path / "nowhere")).replace(
            "MISSING", str(tmp_path / "no" / "such"))
    code = main(["calibrate", weights] + [x for kv in args.items() for x in kv])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, err
    assert err[0].startswith("python -m cythello.training calibrate: ")


@pytest.mark.parametrize("how", ["SIGTERM", "SIGKILL"])
def test_a_match_stopped_midway_keeps_every_game_it_played(tmp_path, how):
    import signal
    import time

    from cythello.records.ggf import iter_games
    ggf, pictures = tmp_path / "games.ggf", tmp_path / "pictures"
    proc = subprocess.Popen([sys.executable, "-m", "cythello", "match", "random", "random",
                             "--games", "100000", "--ggf", str(ggf), "--svg-dir",
                             str(pictures)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and (not ggf.exists() or ggf.stat().st_size < 2000):
        time.sleep(0.05)
    proc.send_signal(getattr(signal, how))
    _, err = proc.communicate(timeout=60)
    games = list(iter_games(ggf.read_text()))
    assert len(games) >= 2 and all(g.board().is_game_over() for g in games)
    assert len(list(pictures.glob("game-*.svg"))) >= len(games)
    if how == "SIGTERM":                      # ended as Ctrl-C ends it: one line, no trace
        assert proc.returncode != 0 and "Traceback" not in err
        assert "after" in err and len(err.strip().splitlines()) <= 2
