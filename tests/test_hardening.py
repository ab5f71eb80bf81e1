"""The audits' reproducers (hangs, silent wrong answers, unbounded memory), each as a test,
grouped by the part of cythello they exercise, plus a bounded fuzz of the protocol engines
and the parsers with random bytes.  (Stops, Ctrl-C and worker processes: test_stops.py.)"""
import math
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

import cythello as cy
from cythello import Board, MCTSPlayer
from cythello.errors import InvalidBoardError, PlayerBusyError, SettingsError
from cythello.protocols.engine import (
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    popen_gtp,
)
from cythello.records.ggf import GgfGame, parse_game, parse_move_item
from cythello.search.endgame._solver import Solver
from cythello.search.uct._tree import SearchTree

DATA = Path(__file__).parent / "data"
PY = sys.executable
CYTHELLO = [PY, "-m", "cythello"]


def run_engine(args, data, env_extra=None, timeout=60):
    env = dict(os.environ)
    env.update(env_extra or {})
    return subprocess.run(CYTHELLO + args, input=data, capture_output=True, timeout=timeout,
                          env=env)


# Black to move, 30 empties (FFO #57): the exact solve takes a minute or more (FFO #49, 26
# empties, took seconds once the solver got faster: too little for a stop to come first).
HARD = "-------------------XXOOO--XXXOOO--XXOXOO-OOOXXXO--OXOO-O-OOOOO-- X"


# -- protocols: the NBoard and GTP engines ---------------------------------------------------------

def test_invalid_utf8_does_not_kill_the_engines():
    strict = {"PYTHONIOENCODING": "utf-8:strict"}
    out = run_engine(["nboard", "--iterations", "50"], b"nboard 2\nmove \xff\nping 2\n", strict)
    assert out.returncode == 0
    assert b"pong 2" in out.stdout
    out = run_engine(["gtp", "--iterations", "50"], b"name\nplay b \xff\n1 name\nquit\n", strict)
    assert out.returncode == 0, out.stderr
    assert b"=1 cythello" in out.stdout


def test_nboard_survives_junk_and_huge_lines():
    junk = "set game " + "A" * 64000
    huge = "move " + "f" * 1_200_000
    start = time.monotonic()
    out = run_engine(["nboard", "--iterations", "50"],
                     f"nboard 2\n{junk}\nping 1\n{huge}\nping 2\n".encode())
    assert time.monotonic() - start < 20
    text = out.stdout.decode()
    assert "pong 1" in text and "pong 2" in text
    assert all(len(line) < 2000 for line in text.splitlines())      # nothing echoed back


def _nboard(args):
    return subprocess.Popen(CYTHELLO + ["nboard"] + args, stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)


def _read_until(proc, predicate, limit=30):
    lines = []
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        lines.append(line.strip())
        if predicate(line.strip()):
            break
    return lines


def test_end_of_input_stops_a_running_search():
    proc = _nboard(["--time", "60"])
    try:
        proc.stdin.write("nboard 2\nping 1\n")
        proc.stdin.flush()
        _read_until(proc, lambda l: l == "pong 1")
        proc.stdin.write("go\n")
        proc.stdin.flush()
        _read_until(proc, lambda l: "thinking" in l)
        start = time.monotonic()
        proc.stdin.close()
        proc.wait(30)                       # not the 60 s the search was given
        assert time.monotonic() - start < 30
    finally:
        if proc.poll() is None:
            proc.kill()


@pytest.mark.parametrize("ping_at", [0.0, 0.4])
def test_ping_stops_the_exact_solve_and_go_still_moves(ping_at):
    board = Board(HARD)
    ggf = GgfGame.from_board(board).to_ggf()
    # 60 s a move: the solve (half of it) would answer the ping late by far, not by a bit.
    proc = _nboard(["--preset", "expert", "--time", "60"])
    try:
        proc.stdin.write(f"nboard 2\nset game {ggf}\nping 1\n")
        proc.stdin.flush()
        _read_until(proc, lambda l: l == "pong 1")
        proc.stdin.write("go\n")
        proc.stdin.flush()
        time.sleep(ping_at)
        start = time.monotonic()
        proc.stdin.write("ping 2\n")
        proc.stdin.flush()
        lines = _read_until(proc, lambda l: l == "pong 2")
        assert time.monotonic() - start < 10
        moves = [l for l in lines if l.startswith("===")]
        assert len(moves) == 1, lines
        move = moves[0].split()[1].split("/")[0].lower()
        assert board.is_legal(move)
        assert not any("error" in l for l in lines)
    finally:
        proc.stdin.close()
        proc.wait(10)


def test_nboard_keeps_its_position_after_a_bad_set_game():
    import io

    from cythello.protocols.nboard import NBoardEngine
    good = GgfGame.from_board(Board.from_transcript("f5d6c3")).to_ggf()
    out = io.StringIO()
    engine = NBoardEngine(out, MCTSPlayer(iterations=20, seed=1))
    engine.run(io.StringIO(f"nboard 2\nset game {good}\nset game (;GM[Othello]BO[8 ---\n"
                           "go\nhint 2\nmove e6\n"), stop_at_eof=False)
    assert engine.board == Board.from_transcript("f5d6c3")
    # ... but does not answer for it: the GUI's game is not that one (a move for the
    # position before would be illegal in the game the GUI sent).
    text = out.getvalue()
    assert "===" not in text and "search " not in text
    assert text.count("no position to search") == 2 and "no position to play on" in text
    engine.run(io.StringIO(f"set game {good}\ngo\n"), stop_at_eof=False)
    assert "===" in out.getvalue()


@pytest.mark.parametrize("clock", ["05:00,N40//02:00", "15:00,L/00:05/02:00", "nan",
                                   "99999999999:00", "5:00/99999999999", "x/y/z"])
def test_nboard_plays_a_game_whose_clock_it_cannot_read_or_that_is_absurd(clock):
    import io

    from cythello.protocols.nboard import NBoardEngine
    game = ("(;GM[Othello]PC[NBoard]PB[]PW[]RE[?]TI[" + clock + "]TY[8]BO[8 -------- "
            "-------- -------- ---O*--- ---*O--- -------- -------- -------- *]B[F5//-3]"
            "W[F6//nan];)")
    out = io.StringIO()
    engine = NBoardEngine(out, MCTSPlayer(iterations=20, seed=1), depth=1)
    engine.run(io.StringIO(f"nboard 2\nset game {game}\ngo\n"), stop_at_eof=False)
    answer = [line for line in out.getvalue().splitlines() if line.startswith("=== ")]
    assert len(answer) == 1
    move = answer[0].split()[1].split("/")[0].lower()
    assert Board.from_transcript("f5f6").is_legal(move)     # the GUI's position


def test_ggs_clock_options_are_read():
    from cythello.search.clock import MAX_CLOCK, parse_ggf_clock
    assert parse_ggf_clock("05:00,N40//02:00") == (300.0, 0.0)
    assert parse_ggf_clock("15:00,L/00:05/02:00") == (900.0, 5.0)
    assert parse_ggf_clock("99999999999:00")[0] == MAX_CLOCK
    with pytest.raises(ValueError, match="clock time"):
        parse_ggf_clock("nan")


def _must_pass_position():
    rng = random.Random(3)
    while True:
        board = Board()
        while not board.is_game_over():
            if board.must_pass():
                return Board(board.board_string())
            board.push(rng.choice(list(board.legal_moves)))


def test_gtp_failed_play_leaves_no_pass():
    from cythello.protocols.gtp import GtpEngine
    start = _must_pass_position()                  # the side to move must pass
    other = "w" if start.turn == cy.BLACK else "b"
    engine = GtpEngine(MCTSPlayer(iterations=20, seed=1))
    engine.board = start.copy()
    occupied = next(sq for sq in range(64) if start.piece_at(sq) is not None)
    assert engine.handle(f"play {other} {cy.square_name(occupied)}").startswith("?")
    assert engine.board == start and engine.board.ply == 0      # no stray pass
    after_pass = start.copy()
    after_pass.push(cy.PASS)
    move = next(iter(after_pass.legal_moves))
    assert engine.handle(f"play {other} {cy.square_name(move)}").startswith("=")
    assert engine.board.move_stack == [cy.PASS, move]
    assert engine.handle("undo").startswith("=")
    assert engine.board == start and engine.board.ply == 0     # the pass went with it


def test_gtp_absurd_clock_and_unicode_ids():
    from cythello.protocols.gtp import GtpEngine
    engine = GtpEngine(MCTSPlayer(iterations=30, seed=1))
    assert engine.handle("time_settings 1e9 0 0").startswith("=")
    assert engine.clocks[cy.BLACK].clock().budget(60) <= 3600
    assert engine.handle("genmove b").startswith("= ")     # 30 iterations: the cap holds
    reply = engine.handle("\u00b2 name")       # a superscript two is no command id
    assert not reply.startswith("=\u00b2") and reply.isascii()


def test_fuzz_protocol_engines_with_random_bytes():
    rng = random.Random(13)
    words = [b"nboard 2", b"set depth 1", b"go", b"hint 3", b"move f5", b"ping 7", b"set game",
             b"analyze", b"genmove b", b"play w d6", b"undo", b"time_left b 1 0", b"showboard"]
    chunks = []
    for _ in range(300):
        if rng.random() < 0.5:
            chunks.append(rng.choice(words) + bytes(rng.randrange(256) for _ in range(
                rng.randrange(0, 12))))
        else:
            chunks.append(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 40))))
    data = b"\n".join(chunks) + b"\nping 99\nquit\n"
    for args in (["nboard", "--iterations", "30"], ["gtp", "--iterations", "30"]):
        out = run_engine(args, data, {"PYTHONIOENCODING": "utf-8:strict"}, timeout=120)
        assert out.returncode == 0, (args, out.stderr[-2000:])
        assert b"Traceback" not in out.stderr


# -- protocols: clients of other engines -----------------------------------------------------------

def _fake(tmp_path, name, code):
    path = tmp_path / name
    path.write_text(textwrap.dedent(code))
    return [PY, str(path)]


def test_client_flooding_engine(tmp_path):
    engine = _fake(tmp_path, "flood.py", """
        import sys
        sys.stdout.write("x" * 50_000_000)
        sys.stdout.flush()
        """)
    start = time.monotonic()
    with pytest.raises((EngineProtocolError, EngineTerminatedError)):
        popen_gtp(engine, timeout=5)
    assert time.monotonic() - start < 10


def test_client_reports_exit_despite_a_grandchild(tmp_path):
    engine = _fake(tmp_path, "spawner.py", f"""
        import subprocess, sys
        subprocess.Popen([{PY!r}, "-c", "import time; time.sleep(60)"])
        for line in sys.stdin:
            words = line.split()
            if "genmove" in line:
                sys.exit(3)                    # dies without answering; the child lives on
            if words and words[0].isdigit():
                print("=" + words[0] + (" 2" if "protocol_version" in line else ""))
                print(flush=True)
        """)
    client = popen_gtp(engine, timeout=20)
    start = time.monotonic()
    with pytest.raises(EngineTerminatedError):
        client.play(Board())
    assert time.monotonic() - start < 5
    client.quit()


def test_client_invalid_utf8_and_gtp_resync(tmp_path):
    engine = _fake(tmp_path, "slow.py", """
        import sys, time
        out = sys.stdout.buffer
        for line in sys.stdin:
            words = line.split()
            ident = words[0] if words and words[0].isdigit() else ""
            if "genmove" in line and not getattr(sys, "slow_done", False):
                sys.slow_done = True
                time.sleep(1.5)                       # too slow the first time
            if "protocol_version" in line:
                body = b"2"
            elif "name" in line:
                body = b"fake\\xff"
            elif "genmove" in line:
                body = b"f5"
            else:
                body = b""
            out.write(b"=" + ident.encode() + b" " + body + b"\\n\\n")
            out.flush()
        """)
    client = popen_gtp(engine, timeout=0.5)
    assert client.name.startswith("fake")
    with pytest.raises(EngineTimeoutError):
        client.play(Board())
    time.sleep(1.5)
    client.timeout = 5
    assert client.play(Board()).move == cy.F5          # the late reply was skipped
    client.quit()


# -- records: GGF, OBF and text files --------------------------------------------------------------

def test_ggf_parsing_is_linear():
    start = time.perf_counter()
    with pytest.raises(InvalidBoardError):
        parse_game("(;" + "A" * 32000 + ";)")
    with pytest.raises(InvalidBoardError):
        parse_game("(;GM[Othello]" + "PB[x]" * 20000 + "junk;)")
    assert time.perf_counter() - start < 10      # a hang bound: quadratic takes minutes


@pytest.mark.parametrize("text", [
    "(;GM[Othello]B[f5]W[d6]B[c3;)",
    "(;GM[Othello]BO[8 ---",
    "(;GM[Othello]BO[8 ---;)",
    "(;GM[Othello]B[f5]junk W[d6];)",
])
def test_malformed_ggf_is_refused(text):
    with pytest.raises(InvalidBoardError):
        parse_game(text)


def test_fuzz_parsers_with_random_text():
    from cythello.records.obf import parse_obf_line
    rng = random.Random(21)
    alphabet = "(;)[]/ABOWPXo-*.+ 0123456789abcdefghGM\n\xff"
    deadline = time.monotonic() + 3
    while time.monotonic() < deadline:
        text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 200)))
        for parse in (parse_game, parse_obf_line, parse_move_item, Board, Board.from_transcript):
            try:
                parse(text)
            except (ValueError, TypeError):
                pass


def test_record_files_in_other_encodings_are_read_or_named(tmp_path):
    """OBF and GGF files: a UTF-8 byte-order mark is read like any UTF-8 file; UTF-16 or
    Latin-1 text, a directory, or a bad line is an InvalidBoardError naming the file."""
    from cythello.records.ggf import read_ggf
    line = (DATA / "fforum-1-19.obf").read_text().splitlines()[0]
    bom = tmp_path / "bom.obf"
    bom.write_bytes(b"\xef\xbb\xbf" + line.encode() + b"\n")
    assert len(list(cy.read_obf(bom))) == 1
    game = "(;GM[Othello]PC[x]PB[a]PW[b]TY[8]BO[8 " + "-" * 27 + "O*------*O" + "-" * 27 + \
        " *]B[F5]W[D6];)"
    ggf = tmp_path / "bom.ggf"
    ggf.write_bytes(b"\xef\xbb\xbf" + game.encode())
    assert len(read_ggf(str(ggf))) == 1
    for name, data in (("utf16.obf", line.encode("utf-16")),
                       ("latin1.obf", line.encode() + " % café".encode("latin-1"))):
        path = tmp_path / name
        path.write_bytes(data)
        with pytest.raises(InvalidBoardError, match=name):
            list(cy.read_obf(path))
    bad = tmp_path / "bad.obf"
    bad.write_text(line + "\nnot a board\n")
    with pytest.raises(InvalidBoardError, match="bad.obf, line 2"):
        list(cy.read_obf(bad))
    with pytest.raises(InvalidBoardError, match="not a regular file"):
        list(cy.read_obf(tmp_path))
    with pytest.raises(InvalidBoardError, match="utf16.ggf"):
        (tmp_path / "utf16.ggf").write_bytes(game.encode("utf-16"))
        read_ggf(str(tmp_path / "utf16.ggf"))


# -- search: the players ---------------------------------------------------------------------------

@pytest.mark.parametrize("threads,interval", [(1, 1e-7), (2, 5e-5)])
def test_tiny_progress_intervals_still_finish(threads, interval):
    calls = []
    player = MCTSPlayer(iterations=100, threads=threads, on_progress=calls.append,
                        progress_interval=interval, seed=1)
    start = time.monotonic()
    result = player.search(Board())
    assert time.monotonic() - start < 10
    assert result.iterations == 100


def test_progress_callback_cannot_reenter_its_player():
    player = MCTSPlayer(time_limit=0.5, seed=1, progress_interval=0.01)

    def again(_result):
        player.search(Board(), iterations=10)

    with pytest.raises(PlayerBusyError, match="on_progress"):
        player.search(Board(), on_progress=again)
    # And reset() from the callback is refused the same way.
    with pytest.raises(PlayerBusyError):
        player.search(Board(), on_progress=lambda r: player.reset())
    assert player.search(Board(), iterations=50).iterations == 50     # still usable


def test_a_stop_before_the_search_starts_is_not_lost():
    """A stop that comes between a caller's decision to search and the search clearing its
    flags (NBoard: the reader sees a ping just then) still stops that search: no solve, no
    tree search, a legal move at once."""
    easy = next(iter(cy.read_obf(DATA / "fforum-1-19.obf"))).board      # 14 empties
    player = MCTSPlayer(iterations=2_000_000, endgame_empties=20, seed=1)
    seen = player.stops
    player.stop()                                  # the reader's stop, just in between
    result = player.search(easy, stops_seen=seen)
    assert result.stop_reason == "stopped" and result.iterations <= 1
    assert easy.is_legal(result.best_move)
    again = player.search(easy, stops_seen=player.stops, time_limit=0.2)   # no stop since
    assert again.stop_reason != "stopped"


MEMORY_SCRIPT = textwrap.dedent("""
    import resource, cythello as cy
    from cythello.match import play_game
    def rss():
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024   # MB (Linux: KB)
    player = cy.MCTSPlayer(time_limit=0.6, max_memory_mb=48, rollout="random", seed=1)
    before = rss()
    board = cy.Board()
    for _ in range(8):
        board.push(player.choose_move(board))
    print(rss() - before)
""")


@pytest.mark.skipif(sys.platform != "linux", reason="ru_maxrss units differ by OS")
def test_tree_reuse_keeps_the_memory_budget():
    out = subprocess.run([PY, "-c", MEMORY_SCRIPT], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    growth = float(out.stdout.split()[-1])
    assert growth < 48 * 1.25, growth


def test_reused_subtree_is_kept_whole():
    board = Board.from_transcript("f5d6c3")
    tree = SearchTree(board, seed=2)
    tree.run(20000)
    child = max(tree.child_stats(), key=lambda c: c.visits)

    def shape(idx, depth):
        return [(c.move, c.visits, round(c.reward, 6), shape(c.node, depth + 1) if depth < 3 else None)
                for c in tree.child_stats(idx)]
    expected = shape(child[4], 0)
    after = board.copy()
    after.push(child[0])
    assert tree.advance(after)
    assert shape(0, 0) == expected
    for visits, child_sum, *_ in tree.node_visit_sums():
        assert child_sum <= visits
    tree.run(1000)                            # and it keeps searching
    assert tree.root_visits == child[1] + 1000


# -- search: the solver ----------------------------------------------------------------------------

def test_solver_stop_stands_until_cleared():
    solver = Solver()
    board = Board(HARD)
    solver.stop()
    start = time.monotonic()
    _, _, aborted = solver.solve(board)
    assert aborted and time.monotonic() - start < 10           # the solve takes a minute
    solver.clear_stop()
    easy = next(iter(cy.read_obf(DATA / "fforum-1-19.obf"))).board      # 14 empties
    score, move, aborted = solver.solve(easy)
    assert not aborted and easy.is_legal(move)


def test_one_solver_refuses_a_second_thread():
    solver = Solver()

    def hold():                                     # the long solve, once it gets the solver
        while True:
            try:
                solver.solve(Board(HARD))
                return
            except PlayerBusyError:
                pass
    worker = threading.Thread(target=hold)
    worker.start()
    try:
        deadline = time.monotonic() + 30
        with pytest.raises(PlayerBusyError):
            while time.monotonic() < deadline:      # until the worker's solve has begun
                solver.solve(Board(HARD), node_limit=1)
    finally:
        solver.stop()
        worker.join(10)


# -- settings: bad numbers give ValueError or TypeError subclasses only ----------------------------

BAD_VALUES = [2**70, -2**70, 1.5, float("nan"), float("inf"), None, "x", True]


def _calls():
    """Each call, and the values of BAD_VALUES that are valid for it (never tried: None
    as run()'s iterations is a search without end)."""
    board = Board()
    small = next(iter(cy.read_obf(DATA / "fforum-1-19.obf"))).board      # quick to solve
    return {
        "Board.transform": (lambda v: board.transform(v), []),
        "transform_square": (lambda v: cy.transform_square(v, 1), []),
        "transform_square symmetry": (lambda v: cy.transform_square(19, v), []),
        "perft": (lambda v: cy.perft(board, v), []),
        "random_playouts": (lambda v: cy.random_playouts(board, v), []),
        "push": (lambda v: board.copy().push(v), []),
        "from_bitboards": (lambda v: Board.from_bitboards(v, 0), []),
        "SearchTree exploration": (lambda v: SearchTree(board, exploration=v), [1.5]),
        "SearchTree max_nodes": (lambda v: SearchTree(board, max_nodes=v), [None]),
        "SearchTree progressive_bias": (lambda v: SearchTree(board, progressive_bias=v), [1.5]),
        "SearchTree.run iterations": (lambda v: SearchTree(board).run(v), [None]),
        # A deadline is a time.monotonic() value: any time, past or future.
        "SearchTree.run deadline": (lambda v: SearchTree(board).run(1, v),
                                    [2**70, 1.5, float("inf")]),
        "SearchTree.child_stats": (lambda v: SearchTree(board).child_stats(v), []),
        "Solver table_bits": (lambda v: Solver(table_bits=v), []),
        "Solver.solve alpha": (lambda v: Solver().solve(small, v, 64), []),
        "Solver.solve node_limit": (lambda v: Solver().solve(small, -64, 64, v), [None]),
        "MCTSPlayer iterations": (lambda v: MCTSPlayer(iterations=v), [None]),
        "MCTSPlayer time_limit": (lambda v: MCTSPlayer(time_limit=v), [1.5, None]),
        "MCTSPlayer exploration": (lambda v: MCTSPlayer(exploration=v), [1.5]),
        "MCTSPlayer eval_scale": (lambda v: MCTSPlayer(eval_scale=v), [1.5]),
        "MCTSPlayer recycle": (lambda v: MCTSPlayer(recycle=v), [True]),
        "solve time_limit": (lambda v: cy.solve(small, time_limit=v), [1.5, None]),
        "parse_move_item": (lambda v: parse_move_item(v), []),
    }


@pytest.mark.parametrize("name", list(_calls()))
def test_bad_numbers_give_clear_errors(name):
    call, valid = _calls()[name]
    for value in BAD_VALUES:
        if any(value is v or value == v for v in valid):
            continue
        with pytest.raises((ValueError, TypeError, IndexError)):
            call(value)


def test_the_audits_examples():
    with pytest.raises(ValueError):
        Board().transform(2**70)
    with pytest.raises(TypeError):
        Board().transform(1.5)
    with pytest.raises(TypeError):
        parse_move_item(5)
    with pytest.raises(SettingsError):
        SearchTree(Board(), exploration=float("nan"))
    assert not math.isnan(MCTSPlayer(exploration=1.0).settings.exploration)


@pytest.mark.parametrize("spec, words", [
    ("mcts:iterations=1_0", "iterations"), ("mcts:iterations=\u0661\u0662", "iterations"),
    ("mcts:time=0\u00b75", "time"), ("puct:search_depth=2_0", "search_depth"),
    ("mcts:seed=\uff11", "seed")])
def test_settings_take_plain_ascii_numbers_only(spec, words):
    from cythello.players import make_player
    with pytest.raises(cy.SettingsError, match=words):
        make_player(spec)


def test_long_setting_values_are_not_echoed_whole():
    from cythello.players import make_player
    with pytest.raises(cy.SettingsError) as info:
        make_player("mcts:iterations=" + "9x" * 2500)
    assert len(str(info.value)) < 400 and "5,000 characters" in str(info.value)
