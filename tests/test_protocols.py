"""Engine protocols end to end over real pipes: NBoard and GTP engines, the engine client
(against cythello itself and scripted fake engines), the command line, GGF and SVG."""
import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET

import pytest

import cythello as cy
from cythello import Board
from cythello.match import play_game
from cythello.protocols.engine import (
    EngineProtocolError,
    EngineTerminatedError,
    EngineTimeoutError,
    Limit,
    popen_gtp,
    popen_nboard,
)
from cythello.records.ggf import GgfGame, iter_games, parse_game

PY = sys.executable
CYTHELLO = [PY, "-m", "cythello"]


def run_cli(args, stdin="", timeout=120):
    return subprocess.run(CYTHELLO + args, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


# -- NBoard -----------------------------------------------------------------------------------

START_GGF = ("(;GM[Othello]PC[NBoard]PB[]PW[]RE[?]TI[5:00]TY[8]BO[8 -------- -------- "
             "-------- ---O*--- ---*O--- -------- -------- -------- *]B[F5]W[F6];)")


class Session:
    """An engine process driven line by line, as a GUI does: the input stays open while
    answers are awaited (end of input tells an NBoard engine that the GUI is gone)."""

    def __init__(self, args):
        self.proc = subprocess.Popen(CYTHELLO + args, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = []

    def send(self, *lines):
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()

    def until(self, predicate, limit=60):
        import time
        deadline = time.monotonic() + limit
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                raise AssertionError(f"the engine ended; it said {self.lines[-5:]}")
            self.lines.append(line.rstrip("\n"))
            if predicate(self.lines[-1]):
                return self.lines[-1]
        raise AssertionError("no answer in time")

    def close(self):
        self.proc.stdin.close()
        rest = self.proc.stdout.read()
        self.lines += rest.splitlines()
        return self.proc.wait(30)


def test_nboard_dialogue():
    engine = Session(["nboard", "--seed", "1"])
    engine.send("nboard 2", "set depth 1", f"set game {START_GGF}", "ping 1", "hint 2")
    engine.until(lambda l: l == "status cythello is waiting")
    engine.send("go")
    engine.until(lambda l: l.startswith("=== "))
    engine.send("set contempt 100", "move E6/0.50/1.2", "this is not a command", "move Z9",
                "move F4", "ping 2", "learn", "go")
    engine.until(lambda l: l.startswith("=== ") and len([x for x in engine.lines
                                                          if x.startswith("=== ")]) == 2)
    assert engine.close() == 0
    lines = engine.lines
    assert lines[0] == "set myname cythello"
    assert "set myname cythello1" in lines
    assert lines.index("pong 1") < lines.index("pong 2")
    search = [l for l in lines if l.startswith("search ")]
    assert len(search) == 2 and all(len(l.split()) >= 5 for l in search)
    # Evaluations are discs for the side to move, depths what the search reached.
    for line in search:
        assert -64 <= float(line.split()[2]) <= 64 and line.split()[4].isdigit()
    moves = [l for l in lines if l.startswith("=== ")]
    assert len(moves) == 2
    first = moves[0].split()[1].split("/")
    assert cy.parse_move(first[0]) in Board.from_transcript("f5f6").legal_moves
    float(first[1]), float(first[2])
    assert any(l.startswith("status error") and "Z9" in l for l in lines)   # told, not dead
    assert "learned" in lines
    assert any(l.startswith("nodestats ") for l in lines)
    # The second go is for the position after f5 f6 e6 f4 (the bad move was ignored).
    after = Board.from_transcript("f5f6e6f4")
    assert cy.parse_move(moves[1].split()[1].split("/")[0]) in after.legal_moves


def test_nboard_and_gtp_ponder_between_commands():
    # NBoard: the position after each move is pondered until the next search; a ping stops
    # it at once, and the session still answers everything and ends cleanly.
    engine = Session(["nboard", "--seed", "1", "--iterations", "2000", "--ponder"])
    engine.send("nboard 2", f"set game {START_GGF}", "ping 1", "go")
    engine.until(lambda l: l.startswith("=== "))
    engine.send("move E6", "move F4", "ping 2", "hint 1", "go")
    engine.until(lambda l: l.startswith("=== ") and len([x for x in engine.lines
                                                          if x.startswith("=== ")]) == 2)
    assert engine.close() == 0
    assert "pong 2" in engine.lines and any(l.startswith("search ") for l in engine.lines)
    # GTP: pondering after each genmove, over at quit.
    from cythello.protocols.gtp import GtpEngine
    gtp = GtpEngine(cy.MCTSPlayer(iterations=500, seed=1), ponder=True)
    assert gtp.handle("genmove b").startswith("= ")
    assert gtp.player.pondering
    reply = next(iter(gtp.board.legal_moves))
    assert gtp.handle(f"play w {cy.square_name(reply)}").startswith("=")
    assert gtp.handle("genmove b").startswith("= ")
    assert gtp.player.pondering
    import io
    gtp.run(io.StringIO("quit\n"), io.StringIO())
    assert not gtp.player.pondering


def test_nboard_serves_the_puct_search_and_ponders():
    engine = Session(["nboard", "--search", "puct", "--iterations", "3000", "--ponder"])
    engine.send("nboard 2", f"set game {START_GGF}", "go")
    engine.until(lambda l: l.startswith("=== "))
    engine.send("move E6", "move F4", "hint 2", "ping 1")
    engine.until(lambda l: l == "pong 1")
    assert engine.close() == 0
    searched = [l for l in engine.lines if l.startswith("search ")]
    # The free text: the effort, then where the value comes from (analyse's words).
    assert len(searched) == 2 and all(l.split()[5].endswith("visits") for l in searched)
    assert all(l.endswith(" win rate") for l in searched)


def test_nboard_and_gtp_serve_the_alphabeta_search_with_depth_lines():
    # The classic engine: search lines with its depth and Multi-ProbCut's probability
    # (Edax's "21@73%"), the nodes as the free text, pondering between moves.
    engine = Session(["nboard", "--search", "alphabeta", "--time", "0.3", "--ponder"])
    engine.send("nboard 2", f"set game {START_GGF}", "go")
    engine.until(lambda l: l.startswith("=== "))
    engine.send("move E6", "move F4", "hint 1")
    engine.until(lambda l: l.startswith("search "))
    engine.send("ping 1")
    engine.until(lambda l: l == "pong 1")
    assert engine.close() == 0
    searched = [l.split() for l in engine.lines if l.startswith("search ")]
    assert len(searched) == 1
    depth, effort = searched[0][4], searched[0][5]
    assert depth.endswith("@87%") and int(depth.split("@")[0]) >= 4
    assert effort.endswith("nodes") and int(effort[:-5]) > 0
    assert searched[0][6] == "alpha-beta"                 # where the value comes from
    assert "-" in searched[0][1]                          # a principal variation
    gtp = Session(["gtp", "--search", "alphabeta", "--time", "0.2"])
    gtp.send("boardsize 8", "clear_board", "play b f5", "genmove w", "quit")
    assert gtp.close() == 0
    answers = [l for l in gtp.lines if l.startswith("= ")]
    assert answers and answers[-1][2:].strip() in ("d6", "f6", "f4")
    bad = subprocess.run(CYTHELLO + ["gtp", "--search", "alphabeta", "--max-nodes", "2000"],
                         input="", capture_output=True, text=True)
    assert bad.returncode == 2 and "--max-nodes: options of the tree searches" in bad.stderr
    threads = Session(["gtp", "--search", "alphabeta", "--time", "0.2", "--threads", "2"])
    threads.send("boardsize 8", "clear_board", "genmove b", "quit")
    assert threads.close() == 0 and any(l.startswith("= ") for l in threads.lines)


def _ping_after(proc, delay, n):
    """Send ``ping n`` to a running engine after ``delay`` seconds; the lines up to
    ``pong n`` and how long the pong took."""
    import time
    time.sleep(delay)
    start = time.monotonic()
    proc.stdin.write(f"ping {n}\n")
    proc.stdin.flush()
    seen = []
    while True:
        line = proc.stdout.readline().strip()
        seen.append(line)
        if line == f"pong {n}":
            return seen, time.monotonic() - start


def test_nboard_ping_interrupts_a_search():
    # depth 60 means 300,000 iterations; the ping must cut it short.
    proc = subprocess.Popen(CYTHELLO + ["nboard"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        proc.stdin.write("nboard 2\nset depth 60\nping 1\n")
        proc.stdin.flush()
        assert proc.stdout.readline().startswith("set myname")
        assert proc.stdout.readline().startswith("set myname")
        assert proc.stdout.readline().strip() == "pong 1"
        proc.stdin.write("go\n")
        proc.stdin.flush()
        seen, waited = _ping_after(proc, 0.05, 2)
        assert waited < 3
        assert any(l.startswith("===") for l in seen)     # the stopped search still answers
    finally:
        proc.stdin.close()
        proc.wait(10)


def test_nboard_pass_when_forced():
    board = Board("-O" + "X" * 62 + " O")
    ggf = GgfGame.from_board(board).to_ggf()
    out = run_cli(["nboard"], f"nboard 2\nset depth 1\nset game {ggf}\ngo\n")
    assert "=== PA" in out.stdout.splitlines()


# -- GTP --------------------------------------------------------------------------------------

def test_gtp_dialogue():
    script = textwrap.dedent("""\
        1 protocol_version
        2 name
        version
        boardsize 9
        boardsize 8
        clear_board
        komi 0
        # a comment line
        play black f5
        play b f5
        play white z9
        play w d6
        10 genmove b
        gogui-rules_game_id
        gogui-rules_board_size
        gogui-rules_side_to_move
        gogui-rules_legal_moves
        gogui-rules_final_result
        set_game Othello
        set_game Chess
        list_games
        time_settings 10 0 0
        time_left w 5 0
        undo
        undo
        undo
        undo
        known_command play
        known_command fly
        frobnicate
        list_commands
        showboard
        quit
        """)
    out = run_cli(["gtp", "--iterations", "300", "--seed", "1"], script)
    assert out.returncode == 0, out.stderr
    replies = [r for r in out.stdout.split("\n\n") if r.strip()]
    it = iter(replies)
    assert next(it) == "=1 2"
    assert next(it) == "=2 cythello"
    assert next(it) == f"= {cy.__version__}"
    assert next(it) == "? unacceptable size"
    assert next(it) == "="          # boardsize 8
    assert next(it) == "="          # clear_board
    assert next(it) == "="          # komi
    assert next(it) == "="          # play black f5
    assert next(it) == "? wrong color"
    assert next(it).startswith("? not a move")
    assert next(it) == "="          # play w d6
    genmove = next(it)
    assert genmove.startswith("=10 ")
    assert cy.parse_move(genmove.split()[1]) in Board.from_transcript("f5d6").legal_moves
    assert next(it) == "= Othello"
    assert next(it) == "= 8"
    assert next(it) == "= white"
    assert len(next(it).split()) >= 2
    assert next(it) == "= unknown"
    assert next(it) == "="
    assert next(it) == "? unsupported game"
    assert next(it) == "= Othello"
    assert next(it) == "="
    assert next(it) == "="
    assert [next(it) for _ in range(4)] == ["=", "=", "=", "? cannot undo"]
    assert next(it) == "= true"
    assert next(it) == "= false"
    assert next(it) == "? unknown command"
    commands = next(it)
    for name in ("genmove", "time_left", "gogui-rules_board", "set_game", "showboard"):
        assert name in commands.split()
    assert "a b c d e f g h" in next(it)
    assert next(it) == "="


def test_gtp_inserts_forced_pass_and_reports_result():
    from cythello.protocols.gtp import GtpEngine
    engine = GtpEngine(cy.MCTSPlayer(iterations=50, seed=1))
    engine.board = Board("-O" + "X" * 62 + " O")
    assert engine.handle("genmove b") == "= a1\n\n"        # white's pass inserted first
    assert engine.handle("gogui-rules_final_result") == "= B+64\n\n"
    assert engine.handle("genmove w") == "= pass\n\n"


# -- the engine client ------------------------------------------------------------------------

def test_client_drives_cythello_gtp_and_nboard_engines():
    board = Board.from_transcript("f5d6c3")
    with popen_gtp(CYTHELLO + ["gtp", "--iterations", "200"]) as gtp:
        assert gtp.name == "cythello"
        result = gtp.play(board, Limit(time=0.2))
        assert result.move in board.legal_moves
    with popen_nboard(CYTHELLO + ["nboard"]) as nb:
        assert nb.name.startswith("cythello")
        result = nb.play(board, Limit(depth=1))
        assert result.move in board.legal_moves and result.eval is not None
        assert result.info["nodes"] > 0


def test_full_game_between_cythello_and_its_own_engines():
    with popen_gtp(CYTHELLO + ["gtp", "--iterations", "100"]) as gtp, \
            popen_nboard(CYTHELLO + ["nboard"], limit=Limit(depth=1)) as nb:
        final = play_game(gtp, nb)
    assert final.is_game_over()


FAKE_DIES = "import sys\nsys.stdin.readline()\nsys.exit(3)\n"
FAKE_NONSENSE_GTP = textwrap.dedent("""\
    import sys
    for line in sys.stdin:
        words = line.split()
        if words and words[0].isdigit():      # a command id (this engine never echoes it)
            words = words[1:]
        cmd = words[0] if words else ""
        if cmd == "protocol_version":
            print("= 2\\n", flush=True)
        elif cmd == "genmove":
            print("= h9\\n", flush=True)
        else:
            print("=\\n", flush=True)
    """)
FAKE_ILLEGAL_NBOARD = textwrap.dedent("""\
    import sys
    for line in sys.stdin:
        w = line.split()
        if w and w[0] == "ping":
            print("pong " + w[1], flush=True)
        elif w and w[0] == "go":
            print("=== A1/0.0/0.1", flush=True)
    """)
FAKE_SILENT = "import sys, time\nsys.stdin.readline()\ntime.sleep(30)\n"


def _fake(tmp_path, name, source):
    path = tmp_path / name
    path.write_text(source)
    return [PY, str(path)]


def test_client_errors(tmp_path):
    with pytest.raises(EngineTerminatedError):
        popen_gtp(_fake(tmp_path, "dies.py", FAKE_DIES))
    with pytest.raises(EngineTerminatedError):
        popen_nboard(_fake(tmp_path, "dies2.py", FAKE_DIES))
    with pytest.raises(EngineTerminatedError, match="cannot start"):
        popen_gtp(["/nonexistent/engine"])
    with popen_gtp(_fake(tmp_path, "nonsense.py", FAKE_NONSENSE_GTP)) as engine, \
            pytest.raises(EngineProtocolError, match="not a move"):
        engine.play(Board())
    with popen_nboard(_fake(tmp_path, "illegal.py", FAKE_ILLEGAL_NBOARD)) as engine, \
            pytest.raises(EngineProtocolError, match="illegal move"):
        engine.play(Board())
    with pytest.raises(EngineTimeoutError):
        popen_nboard(_fake(tmp_path, "silent.py", FAKE_SILENT), timeout=0.5)


# -- command line -----------------------------------------------------------------------------

def test_cli_match_against_own_gtp_and_nboard_engines(tmp_path):
    ggf = tmp_path / "games.ggf"
    svg = tmp_path / "final.svg"
    gtp = f"gtp:{PY} -m cythello gtp --iterations 100"
    out = run_cli(["match", "mcts:iterations=100", gtp, "--games", "2", "--ggf", str(ggf),
                   "--svg", str(svg), "--svg-dir", str(tmp_path / "pictures"), "--seed", "1"])
    assert out.returncode == 0, out.stderr
    assert "game 2/2" in out.stdout and "Elo" in out.stdout
    games = list(iter_games(ggf.read_text()))
    assert len(games) == 2 and all(g.board().is_game_over() for g in games)
    # The record starts after the opening's 8 moves (no one's choice): its BO is the
    # opening position, and every move in it was a player's, with its time.
    assert all(g.start.empties() == 52 for g in games)
    assert all(m.time is not None and m.time >= 0 for g in games for m in g.moves)
    ET.fromstring(svg.read_text())
    pictures = sorted((tmp_path / "pictures").glob("game-*.svg"))
    assert [p.name for p in pictures] == ["game-001.svg", "game-002.svg"]
    assert all(ET.fromstring(p.read_text()).tag.endswith("svg") for p in pictures)
    nboard = f"nboard:{PY} -m cythello nboard --iterations 100"
    out = run_cli(["match", "easy", nboard, "--games", "1", "--seed", "2"])
    assert out.returncode == 0, out.stderr
    assert "easy against nboard" in out.stdout and "from easy's side" in out.stdout


def test_cli_play_a_whole_game_through_stdin():
    # A scripted human: some commands and bad moves first, then every square name over and
    # over, with a "pass" after each round; the illegal ones are answered with the legal
    # list and skipped, so the game reaches its end whatever the engine plays.
    board = Board.from_transcript("f5d6c3d3c4")
    from cythello import SQUARE_NAMES
    script = "\n".join(["help", "zz9", "a1", "undo", "hint"] + (SQUARE_NAMES + ["pass"]) * 60)
    out = run_cli(["play", board.board_string(), "--iterations", "50", "--seed", "3"], script)
    assert out.returncode == 0, out.stderr
    assert "game over:" in out.stdout
    assert "transcript:" in out.stdout
    assert "is not legal" in out.stdout and "not a move" in out.stdout
    assert "hint:" in out.stdout and "nothing to undo" in out.stdout


def test_cli_analyse_and_errors():
    out = run_cli(["analyse", "f5d6", "--iterations", "500", "--json", "--seed", "1"])
    assert out.returncode == 0, out.stderr
    import json
    data = json.loads(out.stdout)
    assert data["iterations"] == 500 and data["best_move_name"]
    bad = run_cli(["analyse", "f5f5"])
    assert bad.returncode == 2 and "illegal" in bad.stderr
    bad = run_cli(["analyse", "--iterations", "-3"])
    assert bad.returncode == 2 and "iterations" in bad.stderr
    bad = run_cli(["match", "easy", "grandmaster"])
    assert bad.returncode == 2 and "unknown player" in bad.stderr


# -- records and pictures ---------------------------------------------------------------------

def test_ggf_round_trip_with_passes_evals_and_times():
    rng = __import__("random").Random(4)
    for _ in range(20):
        b = Board()
        while not b.is_game_over():
            b.push(rng.choice(list(b.legal_moves)))
        evals = [round(rng.uniform(-10, 10), 2) for _ in b.move_stack]
        times = [round(rng.uniform(0, 3), 2) for _ in b.move_stack]
        game = GgfGame.from_board(b, "alice", "bob", evals=evals, times=times)
        text = game.to_ggf()
        again = parse_game(text)
        assert again.board() == b and again.board().move_stack == b.move_stack
        assert [m.eval for m in again.moves] == evals
        assert again.black == "alice" and again.tags["RE"] == game.tags["RE"]
        assert again.to_ggf() == text


def test_ggf_reads_real_world_records():
    text = ("1 (;GM[Othello]PC[GGS/os]DT[2003.12.15_12:33:18.MST]PB[Saio1200]PW[Saio3000]"
            "RB[2196.37]RW[2200.35]TI[05:00//02:00]TY[8]RE[+0.000]BO[8 -------- -------- "
            "-------- ---O*--- ---*O--- -------- -------- -------- *]B[d3//0.01]W[c5//0.01]"
            "B[f6/1.5/0.01];)\n2 (;GM[Othello]BO[8 ---------------------------O*------*O"
            "--------------------------- *]B[F5];)")
    games = list(iter_games(text))
    assert len(games) == 2
    assert games[0].board() == Board.from_transcript("d3c5f6")
    assert games[0].moves[2].eval == 1.5 and games[0].moves[0].time == 0.01
    assert games[1].board() == Board.from_transcript("f5")
    with pytest.raises(cy.InvalidBoardError):
        parse_game("(;GM[Chess];)")
    with pytest.raises(cy.IllegalMoveError):
        parse_game("(;GM[Othello]B[a1];)")
    with pytest.raises(cy.InvalidBoardError):
        parse_game("(;GM[Othello]BO[8 ---];)")


def test_svg_is_well_formed():
    b = Board.from_transcript("f5d6c3")
    root = ET.fromstring(b._repr_svg_())
    assert root.tag.endswith("svg")
    circles = [e for e in root.iter() if e.tag.endswith("circle")]
    # 7 discs + legal-move dots + the last-move ring
    assert len(circles) == b.discs(0) + b.discs(1) + len(b.legal_moves) + 1
    ET.fromstring(b.to_svg(last_move=None, legal=False, size=200))


def test_cli_bench_and_help():
    out = run_cli(["bench", "--seconds", "0.05"])
    assert out.returncode == 0, out.stderr
    assert "random playouts/s" in out.stdout and "bytes per node" in out.stdout
    bare = run_cli([])
    assert bare.returncode == 2 and "analyse" in bare.stdout and "nboard" in bare.stdout
    for command in ("analyse", "play", "match", "solve", "nboard", "gtp", "bench"):
        assert run_cli([command, "--help"]).returncode == 0


def test_nboard_own_limits_win_over_set_depth():
    import io

    from cythello.protocols.nboard import NBoardEngine
    ggf = GgfGame.from_board(Board.from_transcript("f5d6c3")).to_ggf()

    def visits_of_hint(depth_sets_budget, depth):
        out = io.StringIO()
        engine = NBoardEngine(out, cy.MCTSPlayer(iterations=777, seed=1, reuse_tree=False),
                              depth_sets_budget=depth_sets_budget)
        engine.run(io.StringIO(f"nboard 2\nset depth {depth}\nset game {ggf}\nhint 64\n"), stop_at_eof=False)
        lines = [l for l in out.getvalue().splitlines() if l.startswith("search ")]
        return sum(int(l.split()[5][:-len("visits")]) for l in lines)   # the effort

    assert visits_of_hint(False, 20) == 777        # the engine's own limit wins
    assert visits_of_hint(True, 1) == 5000         # set depth 1 = 5,000 iterations


def test_nboard_analyze_scores_every_position():
    import io

    from cythello.protocols.nboard import NBoardEngine
    ggf = GgfGame.from_board(Board.from_transcript("f5d6c3d3c4")).to_ggf()
    out = io.StringIO()
    engine = NBoardEngine(out, cy.MCTSPlayer(iterations=300, seed=1), depth=1)
    # (No ping after it: a ping read after a command interrupts that command.)
    engine.run(io.StringIO(f"nboard 2\nset game {ggf}\nanalyze\n"), stop_at_eof=False)
    lines = out.getvalue().splitlines()
    analysis = [l.split() for l in lines if l.startswith("analysis ")]
    assert [int(a[1]) for a in analysis] == [5, 4, 3, 2, 1, 0]
    assert all(-64 <= float(a[2]) <= 64 for a in analysis)
    assert lines[-1] == "status cythello is waiting"


def test_nboard_ping_stops_analyze():
    # A long analysis (depth 60: 30,000 iterations per position, 30 positions) is cut short
    # by the ping that follows it.
    rng = __import__("random").Random(8)
    board = Board()
    while board.ply < 30:
        board.push(rng.choice(list(board.legal_moves)))
    ggf = GgfGame.from_board(board).to_ggf()
    proc = subprocess.Popen(CYTHELLO + ["nboard"], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        proc.stdin.write(f"nboard 2\nset depth 60\nset game {ggf}\nanalyze\n")
        proc.stdin.flush()
        seen, waited = _ping_after(proc, 0.3, 3)
        assert waited < 3
        assert len([l for l in seen if l.startswith("analysis ")]) < 30
    finally:
        proc.stdin.close()
        proc.wait(10)


def test_make_player_specs():
    from cythello.players import make_player
    p = make_player("mcts:iterations=300,rollout=random,endgame_empties=10,progressive_bias=2,"
                    "time=1.5,max_nodes=none").settings
    assert (p.iterations, p.rollout, p.endgame_empties, p.progressive_bias, p.time_limit,
            p.max_nodes) == (300, "random", 10, 2.0, 1.5, None)
    assert make_player("mcts:preset=hard,threads=2").settings.threads == 2
    # A level is the search that won its matches, at the level's settings.
    from cythello.search.presets import LEVEL_SEARCH, PUCT_LEVELS
    hard = make_player("hard")
    assert isinstance(hard, cy.PUCTPlayer) and LEVEL_SEARCH["hard"] == "puct"
    assert hard.settings.iterations == PUCT_LEVELS["hard"]["iterations"]
    assert isinstance(make_player("easy"), cy.MCTSPlayer)
    assert make_player("mcts:preset=hard").settings.iterations == cy.PRESETS["hard"]["iterations"]
    assert isinstance(make_player("random", seed=1), cy.RandomPlayer)
    with pytest.raises(cy.SettingsError, match="unknown setting 'flavour'"):
        make_player("mcts:flavour=vanilla")
    with pytest.raises(cy.SettingsError, match="unknown player"):
        make_player("gtp:")
    # A bad value names the setting and the type it needs.
    with pytest.raises(cy.SettingsError, match="iterations expects an integer .*, not 'abc'"):
        make_player("mcts:iterations=abc")
    with pytest.raises(cy.SettingsError, match="recycle expects true or false, not 'maybe'"):
        make_player("mcts:recycle=maybe")
    with pytest.raises(cy.SettingsError, match="depth expects an integer 1-60, not 'x'"):
        make_player("alphabeta:depth=x")
    with pytest.raises(cy.SettingsError, match="needs a value"):
        make_player("mcts:iterations")
    assert make_player("mcts:leaf_eval=1,eval_weights=default").settings.leaf_eval == 1.0
    assert make_player("alphabeta:depth=3").depth == 3


def test_every_search_setting_can_be_given_in_a_spec():
    """The spec parser and the documentation table derive from SearchSettings: each field
    is documented and readable from text."""
    import dataclasses

    from cythello import SearchSettings
    from cythello.players import make_player
    from cythello.search.settings import parse_setting, settings_table
    table = settings_table(SearchSettings)
    samples = {"rollout": "random", "parallel": "root", "eval_weights": "default",
               "time_limit": "2", "max_memory_mb": "64", "max_nodes": "1000",
               "iterations": "300", "seed": "3", "eval_scale": "4", "book": "default"}
    for f in dataclasses.fields(SearchSettings):
        assert f"| `{f.name}` |" in table
        sample = samples.get(f.name) or {bool: "false", int: "3", float: "0.5"}[type(f.default)]
        player = make_player(f"mcts:{f.name}={sample}")
        assert getattr(player.settings, f.name) == parse_setting(f.name, sample, SearchSettings)


def gtp_budget(engine, colour):
    """Seconds the next genmove of ``colour`` is budgeted by the engine's clock (what the
    player computes from the clock it is given), or None: no clock, the player's limits."""
    clock = engine.clocks.get(colour)
    return None if clock is None else clock.clock().budget(engine.board.empties())


def test_gtp_time_budget():
    from cythello.protocols.gtp import GtpEngine
    engine = GtpEngine(cy.MCTSPlayer(iterations=50, seed=1))
    assert gtp_budget(engine, cy.BLACK) is None                 # no clock: own limits
    engine.handle("time_settings 0 5 0")
    assert gtp_budget(engine, cy.BLACK) is None                 # GTP: no time limit
    from cythello.search.clock import Clock
    engine.handle("time_settings 300 0 0")                    # 300 s absolute, 30 moves left
    assert gtp_budget(engine, cy.BLACK) == pytest.approx(Clock(300).budget(60))
    assert 8 < gtp_budget(engine, cy.BLACK) < 300 / 30          # an even share, less a reserve
    engine.handle("time_left b 10 2")                         # byo-yomi: 2 stones in 10 s
    assert gtp_budget(engine, cy.BLACK) == pytest.approx(Clock(10, 0, 2).budget(60))
    assert gtp_budget(engine, cy.BLACK) <= 10 / 3               # never close to the flag
    engine.handle("time_left w 0 0")
    assert gtp_budget(engine, cy.WHITE) == 0.01


class _TimedPlayer(cy.MCTSPlayer):
    """An MCTS player whose searches take ``seconds`` on a fake monotonic clock (what GTP's
    genmove times its moves by) and that records the clocks it was given."""

    def __init__(self, now, seconds, **settings):
        super().__init__(**settings)
        self.now, self.seconds, self.clocks, self.results = now, seconds, [], []

    def search(self, board, **kwargs):
        self.clocks.append(kwargs.get("clock"))
        self.results.append(super().search(board, **kwargs))
        self.now[0] += self.seconds
        return self.results[-1]


@pytest.fixture
def fake_time(monkeypatch):
    # Only GTP's view of time: the search itself keeps the real clock.
    import types

    import cythello.protocols.gtp as gtp
    now = [1000.0]
    monkeypatch.setattr(gtp, "time", types.SimpleNamespace(monotonic=lambda: now[0]))
    return now


def test_gtp_keeps_its_own_clock_without_time_left(fake_time):
    # A controller that sends time_settings only: the engine counts its own moves' time
    # (before, every move was budgeted from the whole main time: several times the clock).
    from cythello.protocols.gtp import GtpEngine
    from cythello.search.clock import Clock
    player = _TimedPlayer(fake_time, 10.0, iterations=30, seed=1)
    engine = GtpEngine(player)
    engine.handle("time_settings 60 0 0")
    engine.handle("genmove b")
    engine.handle("genmove w")
    engine.handle("genmove b")
    assert player.clocks == [Clock(60.0), Clock(60.0), Clock(50.0)]
    assert engine.clocks[cy.BLACK].main_left == 40.0 and engine.clocks[cy.WHITE].main_left == 50.0
    assert gtp_budget(engine, cy.BLACK) == pytest.approx(Clock(40.0).budget(engine.board.empties()))
    engine.handle("clear_board")                              # a new game, fresh clocks
    assert engine.clocks[cy.BLACK].main_left == 60.0
    engine.handle("time_left b 7 0")                          # the controller's clock wins
    engine.handle("genmove b")
    assert player.clocks[-1] == Clock(7.0)
    assert engine.clocks[cy.BLACK].main_left == 0.0           # 10 s taken: out of time
    engine.handle("genmove w")
    engine.handle("genmove b")                                # still moves, on the minimum
    assert gtp_budget(engine, cy.BLACK) == 0.01


def test_gtp_own_clock_goes_into_canadian_byo_yomi(fake_time):
    from cythello.protocols.gtp import GtpEngine
    from cythello.search.clock import ByoYomiClock, Clock
    player = _TimedPlayer(fake_time, 7.0, iterations=30, seed=1)
    engine = GtpEngine(player)
    engine.handle("time_settings 5 10 2")           # 5 s, then 10 s for every 2 moves
    assert engine.clocks[cy.BLACK] == ByoYomiClock(5.0, 10.0, 2)
    engine.handle("genmove b")                      # 5 s of main time + 2 of the period
    assert player.clocks[0] == Clock(5.0, 5.0)      # the byo-yomi as 5 s a move
    assert engine.clocks[cy.BLACK] == ByoYomiClock(0.0, 10.0, 2, 8.0, 1)
    engine.handle("genmove w")
    engine.handle("genmove b")
    assert player.clocks[2] == Clock(8.0, 0.0, 1)   # the period's last move: all it has
    assert engine.clocks[cy.BLACK] == ByoYomiClock(0.0, 10.0, 2, 10.0, 2)   # a new period
    # Straight into byo-yomi without main time; GTP's "byo-yomi time 0": none at all.
    assert ByoYomiClock.start(0, 30, 5) == ByoYomiClock(0.0, 30.0, 5, 30.0, 5)
    engine.handle("time_settings 60 0 5")
    assert engine.clocks[cy.WHITE] == ByoYomiClock(60.0)
    engine.handle("time_left w 12 3")               # in a period: 3 moves in 12 s
    assert engine.clocks[cy.WHITE] == ByoYomiClock(0.0, 0.0, 0, 12.0, 3)


def test_gtp_clock_keeps_a_level_cap():
    # Under GTP's clock, as under every clock, a preset's iteration cap still holds: the
    # easy preset does not search a minute a move because the game has a long clock.
    from cythello.protocols.gtp import GtpEngine
    player = _TimedPlayer([0.0], 0.0, **{**cy.SearchSettings.preset("easy").as_dict(),
                                         "seed": 1})
    engine = GtpEngine(player)
    engine.handle("time_settings 1800 0 0")
    engine.handle("genmove b")
    assert player.results[0].iterations == 200


@pytest.mark.parametrize("kind", ["gtp", "nboard"])
def test_an_engine_client_dropped_without_quit_ends_its_engine(kind):
    import gc
    import time

    from cythello.players import make_player
    client = make_player(f"{kind}:{PY} -m cythello {kind} --iterations 50")
    proc = client._pipe.proc
    assert proc.poll() is None
    del client
    gc.collect()
    deadline = time.monotonic() + 10
    while proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.05)
    assert proc.poll() is not None
