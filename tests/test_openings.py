"""Start positions for matches (cythello.openings): the shipped balanced set, how it is
made, files of openings, and the names the command line takes."""
import numpy as np
import pytest

import cythello as cy
from cythello.errors import InvalidBoardError, SettingsError
from cythello.eval.weights import default_weights
from cythello.openings import (
    BALANCED_FILE,
    balanced_openings,
    openings_for,
    random_openings,
    read_opening_values,
    read_openings,
)
from cythello.openings.make import make_balanced, positions
from cythello.search.midgame import search


def _classes(plies):
    """Positions ``plies`` moves from the start up to symmetry, the plain way: every line
    from every first move, each board named by the smallest string of its 8 images."""
    found = set()

    def walk(board, left):
        if board.is_game_over():
            return
        if left == 0:
            found.add(min(b.board_string() for b in board.symmetries()))
            return
        for move in list(board.legal_moves):
            board.push(move)
            walk(board, left - 1)
            board.pop()

    walk(cy.Board(), plies)
    return found


@pytest.mark.parametrize("plies", [1, 2, 3, 5])
def test_positions_are_every_class_of_symmetric_positions_once(plies):
    found = positions(plies)
    assert len(found) == len(_classes(plies))
    boards = {line: cy.Board.from_transcript(line) for line in found.values()}
    assert all(line.startswith("f5") and len(line) == 2 * plies for line in boards)
    assert {min(b.board_string() for b in board.symmetries())
            for board in boards.values()} == _classes(plies)


def test_the_balanced_set_is_made_by_the_searches_it_names(tmp_path):
    weights = default_weights()
    chosen, report = make_balanced(plies=4, depth=6, within=2.0, stages=[(2, 6.0)],
                                   probcut=None, work=tmp_path, say=lambda text: None)
    assert report[0].startswith("60 positions 4 moves")
    kept = dict(chosen)
    assert [line for line, _ in chosen] == sorted(kept)
    for line in positions(4).values():
        board = cy.Board.from_transcript(line)
        deep = search(board, 6, weights)[0]
        shallow = search(board, 2, weights)[0]
        if line in kept:
            assert abs(deep) <= 2.0 and kept[line] == pytest.approx(deep, abs=0.005)
        else:
            assert abs(deep) > 2.0 or abs(shallow) > 6.0
    # The work folder holds each stage's scores; a second run searches nothing again.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["depth-2.txt", "depth-6.txt",
                                                         "run.json"]
    said = []
    again, _ = make_balanced(plies=4, depth=6, within=2.0, stages=[(2, 6.0)], probcut=None,
                             work=tmp_path, say=said.append)
    assert again == chosen and not any("to search" in line for line in said)


def test_the_work_folder_serves_one_kind_of_run_and_trusts_only_whole_lines(tmp_path):
    settings = dict(plies=4, depth=4, within=3.0, stages=[], say=lambda text: None)
    chosen, _ = make_balanced(probcut=None, work=tmp_path, **settings)
    with pytest.raises(SettingsError, match="other settings"):
        make_balanced(probcut=1.5, work=tmp_path, **settings)
    # A last line cut short (``-1.75`` cut to ``-1``), and lines of another form: searched
    # again, not trusted, no traceback.
    stage = tmp_path / "depth-4.txt"
    lines = stage.read_text().splitlines()
    own, opp, score = lines[-1].split()
    stage.write_text("\n".join(lines[:-1]) + "\nnot a score\n12 x 1.00\n"
                     + f"{own} {opp} {score[:2]}")
    said = []
    again, _ = make_balanced(probcut=None, work=tmp_path,
                             **{**settings, "say": said.append})
    assert again == chosen
    assert any("1 positions to search" in line or "1 position" in line for line in said)
    assert stage.read_text().endswith("\n")


def test_a_sample_of_positions_is_drawn_by_its_seed():
    one, report = make_balanced(plies=4, depth=4, within=3.0, stages=[], sample=20, seed=5,
                                say=lambda text: None)
    two, _ = make_balanced(plies=4, depth=4, within=3.0, stages=[], sample=20, seed=5,
                           say=lambda text: None)
    assert one == two and "a sample of 20" in report[1]
    with pytest.raises(SettingsError, match="stage margin"):
        make_balanced(plies=4, depth=4, within=3.0, stages=[(2, 1.0)])


def test_the_shipped_set_is_balanced_distinct_and_eight_moves_in():
    found = read_opening_values(BALANCED_FILE)
    assert len(found) >= 1000
    assert all(value is not None and abs(value) <= 2.0 for _, value in found)
    boards = [board for board, _ in found]
    assert all(len(b.move_stack) == 8 and b.empties() == 52 for b in boards)
    assert all(b.transcript().startswith("f5") for b in boards)
    assert len({min(s.board_string() for s in b.symmetries()) for b in boards}) == len(boards)
    # The header says how it was made.
    head = BALANCED_FILE.read_text(encoding="ascii").splitlines()[:12]
    assert any("python3 -m cythello.openings.make" in line for line in head)


def test_the_shipped_set_in_a_seeded_order():
    everything = balanced_openings(seed=None)
    assert len(everything) == len(read_openings(BALANCED_FILE))
    first = balanced_openings(10, seed=3)
    assert first == balanced_openings(10, seed=3) != balanced_openings(10, seed=4)
    assert {b.board_string() for b in first} <= {b.board_string() for b in everything}
    close = balanced_openings(within=1.0, seed=None)
    values = {b.board_string(): v for b, v in read_opening_values(BALANCED_FILE)}
    assert close and all(abs(values[b.board_string()]) <= 1.0 for b in close) and len(close) < len(everything)
    first[0].push(first[0].legal_moves_mask.bit_length() - 1)   # a copy: the set is unchanged
    assert balanced_openings(10, seed=3)[0].ply == 8
    with pytest.raises(SettingsError, match="count"):
        balanced_openings(len(everything) + 1)


def test_files_of_openings_with_and_without_values(tmp_path):
    path = tmp_path / "openings.txt"
    path.write_text("# a comment\n% another\nf5d6c3d3c4f4f6f3 +0.62\n"
                    "f5f6e6f4\n\n" + cy.Board().board_string() + "\n"
                    "f5d6 -1\n", encoding="utf-8")
    found = read_opening_values(path)
    assert [v for _, v in found] == [0.62, None, None, -1.0]
    assert found[0][0] == cy.Board.from_transcript("f5d6c3d3c4f4f6f3")
    assert found[2][0] == cy.Board()
    path.write_text("f5d6\nf5d6z9 +1\n", encoding="utf-8")
    with pytest.raises(InvalidBoardError, match="line 2"):
        read_openings(path)


def test_openings_by_name(tmp_path):
    assert openings_for("start", 5) is None
    assert openings_for("balanced", 5, seed=2) == balanced_openings(seed=2)
    random6 = openings_for("random:6", 5, seed=1)
    assert len(random6) == 5 and all(b.ply == 6 for b in random6)
    assert openings_for("random", 3, seed=1) == random_openings(3, 4, seed=1)
    with pytest.raises(SettingsError, match="plies"):
        openings_for("random:six", 5)
    path = tmp_path / "x.txt"
    path.write_text("f5d6\n", encoding="utf-8")
    assert openings_for(str(path), 5) == [cy.Board.from_transcript("f5d6")]
    with pytest.raises(InvalidBoardError, match="cannot read"):
        openings_for(str(tmp_path / "missing"), 5)


def test_a_match_plays_each_balanced_opening_with_both_colours():
    result = cy.run_match(cy.RandomPlayer(seed=1), cy.RandomPlayer(seed=2), 6)
    starts = balanced_openings(3, seed=0)
    for g, final in enumerate(result.games):
        start = starts[g // 2].move_stack
        assert final.move_stack[:len(start)] == start
    assert len(result.margins) == 6 and result.pentanomial().pairs == 3


def test_a_match_ends_when_its_sprt_decides():
    strong, weak = cy.MCTSPlayer(iterations=300, seed=1), cy.RandomPlayer(seed=2)
    result = cy.run_match(strong, weak, 200, sprt=cy.SPRT(0, 100), workers=2)
    assert result.decision() == "H1" and result.played % 2 == 0 and result.played < 60
    assert result.sprt.llr(result.pentanomial()) >= result.sprt.bounds[1]
    # Decided at the first pair where the ratio crossed its bound, not later.
    before = cy.MatchResult(margins=result.margins[:-2], sprt=result.sprt)
    assert before.decision() is None
    with pytest.raises(TypeError, match="sprt"):
        cy.run_match(strong, weak, 2, sprt=(0, 100))


@pytest.mark.slow
def test_values_and_positions_agree_with_a_fresh_search():
    """A few of the shipped values, searched again as the header says (depth 20 with
    Multi-ProbCut 1.5 takes seconds a position), each on its position's symmetry-class
    key as the maker searches it."""
    from cythello.book._keys import canonical
    from cythello.search.midgame import search_many
    found = read_opening_values(BALANCED_FILE)[:3]
    keys = [canonical(*board.position()) for board, _ in found]
    own = np.array([k[0] for k in keys], dtype=np.uint64)
    opp = np.array([k[1] for k in keys], dtype=np.uint64)
    scores = search_many(own, opp, 20, default_weights(), 1.5)
    assert [round(float(s), 2) for s in scores] == [v for _, v in found]


def test_a_match_reads_only_the_openings_it_plays(tmp_path):
    import tracemalloc

    from cythello.openings import openings_for
    path = tmp_path / "many.txt"
    path.write_text("f5d6\nf5f6\n" * 200_000)                # 400,000 lines, 2 MB
    tracemalloc.start()
    boards = openings_for(str(path), 10)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    assert len(boards) == 10 and boards[1] == cy.Board.from_transcript("f5f6")
    assert peak < 40 * 2 ** 20                  # the text once, not a Board a line (~900 MB)


def test_a_finished_game_is_no_opening(tmp_path):
    from cythello.errors import InvalidBoardError
    from cythello.openings import read_openings
    path = tmp_path / "over.txt"
    path.write_text("f5d6\r\n" + "X" * 64 + " O\n")
    with pytest.raises(InvalidBoardError, match="line 2: the game is over"):
        read_openings(path)
    assert len(read_openings(path, limit=1)) == 1
