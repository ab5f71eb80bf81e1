"""The fourth audit's findings, each as the test that failed before its fix: every file read
through one bounded reader, book records that make sense, engines that quit at once, output
paths checked before the work.  (The concurrency contract: test_contract.py.)"""
import io
import json
import os
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
from cythello.cli.match import read_openings
from cythello.errors import BookError, InvalidBoardError
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
