"""The command line as a user meets it: one-line errors with a non-zero status, quiet closed
pipes, board strings however they are typed, help for everything, whole-game analysis,
and a friendlier ``play``."""
import json
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import cythello as cy
from cythello import Board
from cythello.records.ggf import GgfGame, write_ggf

PY = sys.executable
CYTHELLO = [PY, "-m", "cythello"]
DATA = Path(__file__).parent / "data"


def run_cli(args, stdin="", timeout=120):
    return subprocess.run(CYTHELLO + args, input=stdin, capture_output=True, text=True,
                          timeout=timeout)


def one_line_error(out, *words):
    assert out.returncode == 2, (out.returncode, out.stdout, out.stderr)
    assert "Traceback" not in out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, lines
    for word in words:
        assert word in lines[0], (word, lines[0])


def test_missing_files_are_one_line_errors(tmp_path):
    one_line_error(run_cli(["solve", str(tmp_path / "nonexistent.obf")]), "nonexistent.obf")
    one_line_error(run_cli(["match", "easy", "random", "--openings", str(tmp_path / "missing")]),
                   "missing")
    one_line_error(run_cli(["analyse", str(tmp_path / "nothing.ggf")]), "nothing.ggf")
    bad = tmp_path / "bad.txt"
    bad.write_text("f5d6\nzz\n")
    one_line_error(run_cli(["match", "easy", "random", "--openings", str(bad)]), "line 2")


def test_setting_errors_name_the_setting():
    one_line_error(run_cli(["match", "mcts:iterations=abc", "random", "--games", "1"]),
                   "iterations", "integer", "'abc'")
    one_line_error(run_cli(["match", "mcts:flavour=1", "random"]), "unknown setting")


def test_board_strings_however_typed():
    start = Board().board_string()
    one_line_error(run_cli(["analyse", start[:63] + " X"]), "64 squares", "63")
    one_line_error(run_cli(["analyse", start.split()[0]]), "side to move")
    board = Board.from_transcript("f5d6c3")
    text = board.board_string()                     # starts with '-'
    assert text.startswith("-")
    options = ["--iterations", "200", "--json"]
    for args in (["analyse", text] + options, ["analyse", "--board", text] + options,
                 ["analyse"] + options + ["--", text], ["analyse", f"--board={text}"] + options):
        out = run_cli(args)
        assert out.returncode == 0, (args, out.stderr)
        assert json.loads(out.stdout)["board"] == text


def test_closed_pipe_ends_quietly():
    proc = subprocess.Popen(CYTHELLO + ["analyse", "--json", "--iterations", "3000"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.readline()
    proc.stdout.close()                     # like `| head -1`
    err = proc.stderr.read().decode()
    code = proc.wait(60)
    assert "Traceback" not in err and "BrokenPipe" not in err
    assert code in (0, 141)


def test_version_and_help_for_everything():
    out = run_cli(["--version"])
    assert out.returncode == 0 and out.stdout.strip() == f"cythello {cy.__version__}"
    from cythello.cli import build_parser
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, command in sub.choices.items():
        for action in command._actions:
            if action.dest in ("help",):
                continue
            assert action.help, f"{name}: {action.option_strings or action.dest} has no help"
    assert "60" in run_cli(["solve", "--help"]).stdout        # --time's default is shown


def test_solve_out_of_time_reports_what_it_found():
    hard = "-------------------XXOOO--XXXOOO--XXOXOO-OOOXXXO--OXOO-O-OOOOO-- X"   # FFO #57, 30 empties
    out = run_cli(["solve", "--board", hard, "--time", "0.5"])
    assert out.returncode == 1, out.stderr              # the job was not done
    line = next(l for l in out.stdout.splitlines() if "out of time" in l)
    assert "score in [" in line
    assert "0 nodes" not in line and " 0.00" not in line
    # The summary counts what the unsolved position cost (it said "0 nodes in 0.00 s").
    summary = out.stdout.strip().splitlines()[-1]
    assert summary.startswith("0 solved, 1 out of time") and " 0 nodes" not in summary
    assert "in 0.00 s" not in summary


def test_solve_says_at_once_when_a_position_is_beyond_an_exact_solve():
    out = run_cli(["solve", "f5d6c3", "--time", "0.2"])
    assert out.returncode == 1
    assert "has 57 empties" in out.stderr and "stop after 0.2 s" in out.stderr


def test_solve_reads_comment_lines_of_an_obf_file(tmp_path):
    suite = tmp_path / "two.obf"
    lines = (DATA / "fforum-1-19.obf").read_text().splitlines()
    positions = [line for line in lines if line.strip() and not line.startswith("%")][:2]
    suite.write_text("# made by hand\n% the usual comment\n" + "\n".join(positions) + "\n")
    out = run_cli(["solve", str(suite)])
    assert out.returncode == 0, out.stderr
    assert "2 solved, 0 out of time; 2/2 match the listed scores" in out.stdout


def test_solve_passes_prints_each_pass_as_it_ends():
    line = (DATA / "fforum-1-19.obf").read_text().splitlines()[0]
    out = run_cli(["solve", "--passes", line])
    assert out.returncode == 0, out.stderr
    rows = [r.split() for r in out.stdout.splitlines()[1:-1]]
    assert [r[2] for r in rows] == ["@73%", "@87%", "@95%", "@98%", "@99%", "WLD", "exact"]
    assert rows[-2][3] == "win" and rows[-1][3] == "+18" and "WRONG" not in out.stdout
    assert out.stdout.strip().splitlines()[-1] == "1 solved exactly, 0 not within 60 s"
    hard = "-------------------XXOOO--XXXOOO--XXOXOO-OOOXXXO--OXOO-O-OOOOO-- X"   # FFO #57, 30 empties
    out = run_cli(["solve", "--passes", "--board", hard, "--time", "0.3"])
    assert out.returncode == 1 and "0 solved exactly, 1 not within 0.3 s" in out.stdout


def test_match_says_whose_score_and_bounds_a_sweep():
    out = run_cli(["match", "mcts:iterations=200", "random", "--games", "2", "--seed", "1"])
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-2]
    assert "from mcts:iterations=200's side" in last
    assert "Elo >" in last and "±" not in last          # a perfect score: a bound, no ± bar
    from cythello.match import MatchResult
    assert "±" in MatchResult(3, 1, 2).summary()


def test_analyse_a_whole_game(tmp_path):
    board = Board()
    player = cy.MCTSPlayer(iterations=300, seed=1)
    while not board.is_game_over():
        board.push(player.choose_move(board))
    path = tmp_path / "game.ggf"
    write_ggf(str(path), [GgfGame.from_board(board, black="a", white="b")])
    svg = tmp_path / "graph.svg"
    out = run_cli(["analyse", str(path), "--iterations", "300", "--seed", "2", "--svg", str(svg)])
    assert out.returncode == 0, out.stderr
    rows = [l for l in out.stdout.splitlines() if l[:4].strip().isdigit()]
    assert len(rows) == len(board.move_stack)
    assert "discs given away against the choices of the PUCT search at 300 iterations" in out.stdout
    root = ET.fromstring(svg.read_text())
    assert root.tag.endswith("svg") and "polyline" in svg.read_text()
    # A transcript with --game, as JSON.
    out = run_cli(["analyse", "f5d6c3d3c4f4", "--game", "--iterations", "200", "--json"])
    data = json.loads(out.stdout)
    assert [r["move"] for r in data] == ["f5", "d6", "c3", "d3", "c4", "f4"]
    assert all(r.get("forced") or r.get("best_value") is not None for r in data)


def test_analyse_with_puct():
    # A position: every move's visits and discs (from PUCT's win rates); a game: a row a
    # move with values; UCT's own options are refused by name.
    out = run_cli(["analyse", "f5d6c3d3c4", "--search", "puct", "--iterations", "2000",
                   "--seed", "1"])
    assert out.returncode == 0, out.stderr
    assert "best move:" in out.stdout and "discs" in out.stdout
    # A book position leads with the book's value (deep searches), the value to trust most;
    # the search's own figures follow, each naming its source.
    assert out.stdout.startswith("opening book: +0.00 discs for white (the book's deep")
    assert "discs (from the win rate)" in out.stdout
    table = out.stdout.split("proof", 1)[1].strip().split("\n\n", 1)[0].splitlines()
    # discs each, and where they come from in the words of NBoard's lines and the JSON
    assert len(table) >= 2 and all(row.split()[5:] == ["win", "rate"] for row in table)
    data = json.loads(run_cli(["analyse", "f5d6c3d3c4", "--search", "puct", "--iterations",
                               "500", "--json"]).stdout)
    assert data["value_kind"] == "win rate"
    assert {row["value_kind"] for row in data["moves"] if row["visits"]} == {"win rate"}
    out = run_cli(["analyse", "f5d6c3d3c4f4", "--game", "--search", "puct", "--iterations",
                   "300", "--json"])
    assert out.returncode == 0, out.stderr
    reviews = json.loads(out.stdout)
    assert len(reviews) == 6 and all(r["best_value"] is not None for r in reviews
                                     if not r["forced"])
    bad = run_cli(["analyse", "f5", "--search", "puct", "--rollout", "random"])
    assert bad.returncode == 2 and "--rollout: the UCT search's options" in bad.stderr


def test_analyse_with_alphabeta():
    out = run_cli(["analyse", "f5d6c3d3c4", "--search", "alphabeta", "--time", "0.3"])
    assert out.returncode == 0, out.stderr
    summary = next(l for l in out.stdout.splitlines() if l.startswith("depth "))
    assert "@87%" in summary and "nodes in" in summary
    assert "pv: " in out.stdout and " discs (alpha-beta score, depth " in out.stdout
    nodes = run_cli(["analyse", "f5d6c3d3c4", "--search", "alphabeta", "--iterations",
                     "20000", "--json"])
    assert nodes.returncode == 0, nodes.stderr
    found = json.loads(nodes.stdout)
    assert found["stop_reason"] in ("iterations", "depth") and found["depth"] >= 3
    assert found["value_kind"] == "alpha-beta"
    assert found["nodes"] <= 20000 + 100_000            # the iteration under way ends
    bad = run_cli(["analyse", "f5", "--search", "alphabeta", "--exploration", "1"])
    assert bad.returncode == 2 and "--exploration: options of the tree searches" in bad.stderr


def test_analyse_without_options_runs_the_strong_search_for_two_seconds():
    out = run_cli(["analyse", "f5d6c3", "--json"])
    assert out.returncode == 0, out.stderr
    data = json.loads(out.stdout)
    assert data["stop_reason"] == "time" and data["iterations"] > 1000
    assert data["discs"] is not None and all(m["discs"] is not None for m in data["moves"])
    assert "searching" not in out.stderr                 # no progress line off a terminal


def test_play_shows_the_game_as_it_goes(tmp_path):
    save = tmp_path / "game.ggf"
    script = "\n".join(["moves", "d3", "moves", "undo", "c4", f"save {save}", "quit"]) + "\n"
    out = run_cli(["play", "--iterations", "50", "--seed", "3"], script)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "(no moves yet)" in text
    assert "[X]" in text                            # the last move is marked on the board
    assert "last move d3" in text
    assert "1.X d3 2.O" in text                     # the move list
    assert "took back" in text and "d3 (you)" in text
    assert "saved the game" in text
    game = cy.records.ggf.read_ggf(str(save))[0]
    assert game.board().move_stack[0] == cy.C4


def test_undo_in_play_stops_at_the_position_the_game_started_from():
    # From f5d6 (black to move: you), "undo" before any move of yours has nothing to take
    # back; it used to take back the opening's moves and call them yours.
    script = "\n".join(["undo", "c3", "undo", "undo", "quit"]) + "\n"
    out = run_cli(["play", "f5d6", "--iterations", "50", "--seed", "3"], script)
    assert out.returncode == 0, out.stderr
    said = [line for line in out.stdout.splitlines()
            if "nothing to undo" in line or "took back" in line]
    assert said[0].endswith("nothing to undo")
    assert "took back c3 (you), " in said[1] and "(cythello)" in said[1]
    assert said[2].endswith("nothing to undo")


def test_play_with_pondering_plays_and_exits():
    # The engine ponders while the "human" types: each search starts from that tree, and
    # quitting ends the pondering (the process exits at once, no thread left behind).
    script = "\n".join(["d3", "board", "hint", "c5", "undo", "quit"]) + "\n"
    out = run_cli(["play", "--iterations", "300", "--seed", "2", "--ponder"], script)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("cythello plays") >= 1 and "hint:" in out.stdout


def test_play_against_puct_with_pondering_and_a_clock():
    # The PUCT player through the same game loop: moves, a hint, an undo (a new game for
    # the player), pondering on the human's time and a clock, on two threads.
    script = "\n".join(["d3", "hint", "e6", "undo", "c6", "quit"]) + "\n"
    # No book (medium's, the default preset's): every reply is a search.
    out = run_cli(["play", "--search", "puct", "--iterations", "300", "--seed", "2",
                   "--book", "none", "--ponder", "--clock", "0:30", "--threads", "2"], script)
    assert out.returncode == 0, out.stderr
    assert out.stdout.count("cythello plays") == 3 and "hint:" in out.stdout
    assert "discs from it)" in out.stdout.split("hint:", 1)[1].splitlines()[0]   # PUCT: from its win rate
    assert "took back" in out.stdout and "not legal" not in out.stdout
    assert "left)" in out.stdout
    bad = run_cli(["play", "--search", "puct", "--parallel", "root"], "")
    assert bad.returncode == 2 and "--parallel: the UCT search's options" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_play_on_a_game_clock():
    out = run_cli(["play", "--color", "white", "--clock", "0:04+0.5", "--preset", "expert",
                   "--seed", "1"], "c3\nquit\n")
    assert out.returncode == 0, out.stderr
    # Each engine move reports its time and what is left: 4 s less the moves, plus 0.5 each.
    left = [line for line in out.stdout.splitlines() if line.startswith("cythello plays")]
    assert left and all("left)" in line for line in left)
    bad = run_cli(["play", "--clock", "five minutes"], "")
    assert bad.returncode == 2 and "not a clock time" in bad.stderr
    assert "Traceback" not in bad.stderr


def test_play_announces_passes_and_shows_the_final_board():
    # A position where white (the engine) must pass after black's move, near the end.
    board = Board("XXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXXOO-O--- X")
    script = "\n".join(cy.SQUARE_NAMES + ["pass"]) * 3 + "\n"
    out = run_cli(["play", board.board_string(), "--iterations", "50", "--seed", "1"], script)
    assert out.returncode == 0, out.stderr
    assert "game over:" in out.stdout
    tail = out.stdout[out.stdout.index("game over:") - 400:]
    assert "a b c d e f g h" in tail                 # the final board is shown


def test_selfplay_command(tmp_path):
    out = run_cli(["selfplay", "--games", "3", "--out", str(tmp_path / "run"), "--seed", "4",
                   "--iterations", "40", "--games-per-shard", "2"])
    assert out.returncode == 0, out.stderr
    assert "3 games" in out.stdout
    from cythello import selfplay
    data = selfplay.load(tmp_path / "run")
    assert len(set(data["game"].tolist())) == 3
    one_line_error(run_cli(["selfplay", "--games", "0", "--out", str(tmp_path / "x")]),
                   "games")


def test_a_match_says_what_it_plays_and_how_long_is_left():
    out = run_cli(["match", "easy", "random", "--games", "3"])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0] == ("3 games of easy against random from balanced openings, each played "
                        "with both colours, one at a time; a line as each game ends")
    assert "left" in lines[1] and "left" in lines[2] and "left" not in lines[3]


def test_a_match_line_names_the_first_players_result_and_its_own_discs_first():
    out = run_cli(["match", "random", "mcts:iterations=100", "--games", "2", "--seed", "3",
                   "--openings", "start"])
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "from the start position" in lines[0]
    for line, colour in zip(lines[1:3], ("black", "white")):
        mine, theirs = map(int, line.split(" lost ")[1].split()[0].split("-"))
        assert line.startswith(f"game {'12'[colour == 'white']}/2: random ({colour}) lost ")
        assert mine < theirs and "against mcts:iterations=100" in line


def test_a_match_stops_when_its_sprt_decides_and_says_so():
    out = run_cli(["match", "mcts:iterations=100", "random", "--games", "100", "--seed", "1",
                   "--sprt", "0", "200", "--openings", "random"])
    assert out.returncode == 0, out.stderr
    assert "up to 100 games (until the SPRT decides)" in out.stdout
    assert "H1 accepted" in out.stdout.splitlines()[-1]
    played = [line for line in out.stdout.splitlines() if line.startswith("game ")]
    assert 2 <= len(played) < 100 and len(played) % 2 == 0
    one_line_error(run_cli(["match", "easy", "random", "--sprt", "10", "0"]), "elo0")
    one_line_error(run_cli(["match", "easy", "random", "--sprt", "0", "10", "--alpha", "0"]),
                   "alpha")
    one_line_error(run_cli(["match", "easy", "random", "--openings", "random:x"]), "plies")


def test_a_levels_puct_settings_reach_the_command_lines_player(monkeypatch):
    """``--preset L`` (and no preset: the expert's settings) plays the level's PUCT
    settings whole, as make_player(L) does, not only its solver's; the command line's
    budget replaces the level's.  Each level gets a setting beyond the solver's and the
    budget (the command line once dropped such settings)."""
    from cythello.cli import build_parser
    from cythello.cli.common import puct_player_from_args
    from cythello.search.presets import PUCT_LEVELS

    def settings_of(*argv):
        return puct_player_from_args(build_parser().parse_args(["analyse", "f5", *argv])
                                     ).settings

    for level in PUCT_LEVELS:
        monkeypatch.setitem(PUCT_LEVELS, level, {**PUCT_LEVELS[level], "c_puct": 2.5})
    for level, wanted in PUCT_LEVELS.items():
        settings = settings_of("--preset", level)
        assert {key: getattr(settings, key) for key in wanted} == wanted, level
    expert = {k: v for k, v in PUCT_LEVELS["expert"].items() if k != "time_limit"}
    settings = settings_of("--time", "0.5")
    assert {key: getattr(settings, key) for key in expert} == expert
    assert settings.time_limit == 0.5 and settings.iterations is None


def test_a_levels_evaluator_is_the_same_from_python_and_the_command_line():
    """A PUCT level's evaluator settings (the expert's depth-2 leaf values) reach both
    make_player(level) and the command line's player, --preset or none (the expert)."""
    import cythello as cy
    from cythello.cli import build_parser
    from cythello.cli.common import puct_player_from_args
    from cythello.search.presets import PUCT_EVALUATORS, PUCT_LEVELS

    def depth_of(*argv):
        args = build_parser().parse_args(["analyse", "f5", *argv])
        return puct_player_from_args(args).evaluator.search_depth

    assert PUCT_EVALUATORS["expert"]["search_depth"] == 2
    for level in PUCT_LEVELS:
        wanted = PUCT_EVALUATORS.get(level, {}).get("search_depth", 1)
        assert cy.make_player(level).evaluator.search_depth == wanted, level
        assert depth_of("--preset", level) == wanted, level
    assert depth_of("--time", "0.5") == 2


def test_a_tournament_of_one_spec_given_three_times_has_three_entrants():
    from cythello.cli import main
    assert main(["tournament", "random", "random", "random", "--games", "2"]) == 0


def test_analysing_a_match_game_judges_only_the_players_moves(tmp_path):
    ggf = tmp_path / "m.ggf"
    out = run_cli(["match", "easy", "random", "--games", "2", "--ggf", str(ggf), "--seed", "3"])
    assert out.returncode == 0, out.stderr
    out = run_cli(["analyse", str(ggf), "--game-index", "1", "--iterations", "30"])
    assert out.returncode == 0, out.stderr
    last = out.stdout.strip().splitlines()[-1]
    assert "against the choices of the" in last and "30 iterations a move" in last
    assert "from the recorded start (52 empties)" in last
    from cythello.records.ggf import iter_games
    game = list(iter_games(ggf.read_text()))[1]
    played = [m for m in game.moves if m.move != 64]
    counted = [int(n) for n in re.findall(r"over (\d+) moves", last)]
    forced = out.stdout.count("(forced)")
    assert sum(counted) + forced == len(game.moves) and sum(counted) <= len(played)


def test_play_stays_at_game_over_for_save_undo_new_and_quit(tmp_path):
    board = Board("X" * 62 + "O- X")                      # h8 ends the game
    save = tmp_path / "end.ggf"
    script = "\n".join(["h8", "hint", f"save {save}", "undo", "h8", "new", "moves",
                        "quit"]) + "\n"
    out = run_cli(["play", board.board_string(), "--iterations", "50", "--seed", "1"], script)
    assert out.returncode == 0, out.stderr
    text = out.stdout
    # Each end said once: one verdict and one transcript line, the board not shown again.
    assert text.count("you win; transcript: h8") == 2
    first_end = text[:text.index("you win; ")]
    assert first_end.count("a b c d e f g h") == 2       # the start and after h8
    assert "the game is over: save FILE, undo, new" in text   # the prompt's help, and hint's
    assert "saved the game" in text and cy.records.ggf.read_ggf(str(save))[0].board().is_game_over()
    assert "took back h8 (you)" in text
    assert "a new game" in text and text.rstrip().endswith("bye")
    assert "(no moves yet)" in text.split("a new game", 1)[1]


def test_play_can_say_what_the_engine_thought():
    out = run_cli(["play", "--color", "white", "--iterations", "200", "--seed", "1",
                   "--book", "none", "--thinking"], "quit\n")
    assert out.returncode == 0, out.stderr
    said = out.stdout.splitlines()
    at = next(i for i, line in enumerate(said) if line.startswith("cythello plays"))
    assert "iterations in" in said[at + 1] and "most visited:" in said[at + 1]


def test_files_given_as_positions_are_named_as_files(tmp_path):
    """A file where a position is expected is said to be a file (and which files the
    command reads), not misread as a transcript of odd length."""
    ggf = tmp_path / "game.ggf"
    assert run_cli(["match", "easy", "random", "--games", "2", "--ggf", str(ggf)]).returncode == 0
    txt = tmp_path / "game.txt"
    txt.write_text("f5d6c3\n")
    for args, words in (
            (["analyse", str(DATA / "fforum-1-19.obf")], ("names a file", "cythello solve")),
            (["analyse", str(txt)], ("names a file", ".ggf")),
            (["solve", str(ggf)], ("names a file", "cythello analyse")),
            (["solve", "/dev/null"], ("names a file", ".obf")),
            (["analyse", str(ggf), "--game-index", "9"], ("--game-index 9", "2 games",
                                                          "from 0 to 1")),
            (["analyse", str(ggf), "--game-index", "-1"], ("--game-index -1",))):
        one_line_error(run_cli(args), *words)
