"""The Board API: construction, moves, text, errors, pickling, numpy."""
import copy
import pickle

import numpy as np
import pytest

import cythello as cy
from cythello import (
    BLACK,
    PASS,
    WHITE,
    Board,
    IllegalMoveError,
    InvalidBoardError,
    InvalidMoveError,
)


def test_start_position():
    b = Board()
    assert b.turn == BLACK
    assert b.piece_at(cy.D4) == WHITE and b.piece_at(cy.E5) == WHITE
    assert b.piece_at(cy.D5) == BLACK and b.piece_at(cy.E4) == BLACK
    assert sorted(cy.square_name(m) for m in b.legal_moves) == ["c4", "d3", "e6", "f5"]
    assert b.board_string() == cy.STARTING_BOARD_STRING
    assert Board(cy.STARTING_BOARD_STRING) == b


def test_squares_and_names():
    assert cy.A1 == 0 and cy.H8 == 63 and cy.F5 == 37 and cy.PASS == 64
    assert cy.SQUARE_NAMES[cy.F5] == "f5"
    assert cy.parse_square("F5") == cy.F5
    assert cy.parse_move("pass") == PASS and cy.parse_move("PA") == PASS
    assert cy.square_name(PASS) == "pass"
    with pytest.raises(InvalidMoveError):
        cy.parse_square("z9")
    with pytest.raises(InvalidMoveError):
        cy.square_name(99)
    with pytest.raises(TypeError):
        cy.parse_square(5)


def test_legal_moves_view_is_live_and_reiterable():
    b = Board()
    view = b.legal_moves
    assert list(view) == list(view)
    assert len(view) == 4 and bool(view)
    assert cy.F5 in view and "f5" in view and cy.A1 not in view and "zz" not in view
    b.push("f5")
    assert len(view) == 3                     # it follows the board
    assert b.legal_moves_mask == sum(1 << m for m in b.legal_moves)


def test_push_pop_peek_round_trip():
    b = Board()
    start = b.copy()
    moves = ["f5", "d6", "c3", "d3", "c4"]
    for m in moves:
        b.push(m)
    assert b.move_stack == [cy.parse_square(m) for m in moves]
    assert b.peek() == cy.C4 and b.ply == 5
    assert b.transcript() == "f5d6c3d3c4"
    for m in reversed(moves):
        assert b.pop() == cy.parse_square(m)
    assert b == start and b.board_string() == start.board_string()
    with pytest.raises(IndexError):
        b.pop()
    with pytest.raises(IndexError):
        b.peek()


def test_push_flips_and_counts():
    b = Board()
    assert b.flips("f5") == [cy.E5]
    b.push(cy.F5)
    assert b.turn == WHITE
    assert b.discs(BLACK) == 4 and b.discs(WHITE) == 1 and b.empties() == 59


def test_copy_is_independent():
    b = Board()
    c = b.copy()
    c.push("f5")
    assert b == Board() and c != b
    assert copy.copy(c) == c and copy.deepcopy(c).move_stack == c.move_stack
    assert c.copy(stack=False).move_stack == []


def test_transcript_round_trip_with_forced_pass():
    # A known game with a forced pass: replay it, check the pass lands on the stack and
    # the transcript (placements only) reads back.
    rng = np.random.default_rng(5)
    for _ in range(30):
        b = Board()
        while not b.is_game_over():
            moves = list(b.legal_moves)
            b.push(moves[rng.integers(len(moves))])
        again = Board.from_transcript(b.transcript())
        assert again == b
        assert again.move_stack == b.move_stack
    assert Board.from_transcript("f5 d6\nc3") == Board.from_transcript("F5D6C3")


def test_transcript_errors():
    with pytest.raises(InvalidMoveError, match="move 2"):
        Board.from_transcript("f5z9")
    with pytest.raises(IllegalMoveError, match="move 2"):
        Board.from_transcript("f5f5")
    with pytest.raises(InvalidBoardError, match="odd"):
        Board.from_transcript("f5d")
    with pytest.raises(TypeError):
        Board.from_transcript(123)


def test_board_string_round_trip_and_errors():
    b = Board.from_transcript("f5d6c3d3c4")
    assert Board(b.board_string()) == b
    with pytest.raises(InvalidBoardError, match="64 squares"):
        Board("XO X")
    with pytest.raises(InvalidBoardError, match="square a1"):
        Board("Z" + "-" * 63 + " X")
    with pytest.raises(InvalidBoardError, match="side to move"):
        Board("-" * 64 + " Q")
    with pytest.raises(InvalidBoardError, match="field"):
        Board("-" * 64)
    with pytest.raises(TypeError):
        Board(42)


def test_illegal_and_invalid_moves():
    b = Board()
    with pytest.raises(IllegalMoveError, match="a1 is not legal"):
        b.push(cy.A1)
    with pytest.raises(IllegalMoveError, match="pass is not legal"):
        b.push(PASS)
    with pytest.raises(InvalidMoveError, match="out of range"):
        b.push(65)
    with pytest.raises(InvalidMoveError, match="out of range"):
        b.push(-1)
    with pytest.raises(InvalidMoveError):
        b.push("k9")
    with pytest.raises(TypeError):
        b.push(3.5)
    with pytest.raises(TypeError):
        b.push(True)
    with pytest.raises(TypeError):
        b.push(None)
    assert not b.is_legal(cy.A1)
    with pytest.raises(IllegalMoveError):
        b.flips(cy.A1)
    assert b == Board()                        # failed pushes changed nothing


def test_pass_is_a_move():
    b = Board("-O" + "X" * 62 + " O")
    assert b.must_pass() and list(b.legal_moves) == [PASS]
    b.push(PASS)
    assert b.turn == BLACK and b.move_stack == [PASS]
    b.push("a1")
    assert b.is_game_over()
    o = b.outcome()
    assert o.winner == BLACK and o.black == 64 and o.white == 0 and o.difference == 64
    assert o.result() == "64-0"
    assert b.pop() == cy.A1 and b.pop() == PASS and b.turn == WHITE


def test_outcome():
    assert Board().outcome() is None
    b = Board("XXXX" + "-" * 30 + "O" * 30 + " X")
    assert b.is_game_over()
    o = b.outcome()
    assert o.winner == WHITE and o.difference == -26 and o.score == -56
    assert o.score_for(WHITE) == 56 and o.score_for(BLACK) == -56
    draw = Board("X" * 32 + "O" * 32 + " X")
    assert draw.outcome().winner is None and draw.outcome().score == 0


def test_from_bitboards():
    b = Board.from_bitboards(Board().black, Board().white, BLACK)
    assert b == Board()
    with pytest.raises(InvalidBoardError, match="share"):
        Board.from_bitboards(1, 1)
    with pytest.raises(InvalidBoardError, match="64 bits"):
        Board.from_bitboards(1 << 64, 0)
    with pytest.raises(InvalidBoardError):
        Board.from_bitboards(0, 0, 2)
    with pytest.raises(TypeError):
        Board.from_bitboards("1", 0)
    assert Board.empty().is_game_over()


def test_text_forms():
    b = Board()
    text = str(b)
    assert text.splitlines()[0] == "  a b c d e f g h"
    assert text.splitlines()[4].startswith("4 - - . O X")
    assert repr(b) == f"Board({cy.STARTING_BOARD_STRING!r})"


def test_equality_and_hash():
    a = Board.from_transcript("f5d6")
    b = Board(a.board_string())
    assert a == b and a != "not a board"
    # Hashing a mutable board is deprecated (as python-chess's boards are unhashable):
    # it still works in 0.4, with a warning that names the key to use instead.
    with pytest.warns(DeprecationWarning, match="board_string"):
        assert hash(a) == hash(b)
    with pytest.warns(DeprecationWarning):
        assert len({a, b, Board()}) == 2
    assert len({a.board_string(), b.board_string(), Board().board_string()}) == 2


def test_pickle_keeps_position_and_stack():
    b = Board.from_transcript("f5d6c3d3c4")
    c = pickle.loads(pickle.dumps(b))
    assert c == b and c.move_stack == b.move_stack
    assert c.root() == Board()


def test_numpy_views():
    b = Board.from_transcript("f5")
    a = b.to_array()
    assert a.shape == (8, 8) and a.dtype == np.int8
    assert a[4, 5] == 1 and a[3, 3] == -1 and a.sum() == b.discs(BLACK) - b.discs(WHITE)
    p = b.planes()
    assert p.shape == (2, 8, 8) and p.dtype == np.float32
    assert p[0].sum() == b.discs(WHITE)        # white to move: its discs first
    assert p[1].sum() == b.discs(BLACK)


def test_perft_and_playout_argument_errors():
    with pytest.raises(ValueError):
        cy.perft(Board(), -1)
    with pytest.raises(TypeError):
        cy.perft(Board(), "3")
    with pytest.raises(TypeError):
        cy.perft(None, 3)
    with pytest.raises(ValueError):
        cy.random_playouts(Board(), -5)
    with pytest.raises(ValueError, match="10\\*\\*9"):
        cy.random_playouts(Board(), 10**10)
    with pytest.raises(ValueError, match="0-20"):
        cy.perft(Board(), 21)
    with pytest.raises(TypeError):
        cy.random_playouts(Board(), 10, seed="x")


def test_internal_views_reject_none():
    from cythello.core._board import LegalMoves
    with pytest.raises(TypeError):
        LegalMoves(None)
    with pytest.raises(TypeError):
        Board.from_transcript("f5", start="not a board")


def _slow_transform_square(sq, k):
    r, c = divmod(sq, 8)
    if k & 1:
        c = 7 - c
    if k & 2:
        r = 7 - r
    if k & 4:
        r, c = c, r
    return r * 8 + c


def test_symmetries_move_every_square_as_described():
    for k in range(8):
        mapped = [cy.transform_square(sq, k) for sq in range(64)]
        assert mapped == [_slow_transform_square(sq, k) for sq in range(64)]
        assert sorted(mapped) == list(range(64))                 # a permutation
        assert cy.transform_square(PASS, k) == PASS
    with pytest.raises(ValueError):
        cy.transform_square(cy.A1, 8)


def test_symmetries_preserve_the_game():
    board = Board.from_transcript("f5d6c3d3c4f4f6f3e6e7")
    images = board.symmetries()
    assert images[0] == board and len({b.board_string() for b in images}) == 8
    for k, image in enumerate(images):
        assert image.move_stack == [] and image.turn == board.turn
        assert sorted(image.legal_moves) == sorted(cy.transform_square(m, k)
                                                   for m in board.legal_moves)
        assert cy.perft(image, 3) == cy.perft(board, 3)
        for sq in range(64):
            assert image.piece_at(cy.transform_square(sq, k)) == board.piece_at(sq)
        m = list(board.legal_moves)[0]
        assert image.flips(cy.transform_square(m, k)) == sorted(
            cy.transform_square(f, k) for f in board.flips(m))
    # The start position is unchanged by the 4 symmetries that keep the d4-e5 diagonal
    # (identity, transpose, half turn, anti-transpose); the other 4 swap the centre colours.
    start = Board().symmetries()
    assert [b == Board() for b in start] == [k in (0, 3, 4, 7) for k in range(8)]
    assert len({b.board_string() for b in start}) == 2
    with pytest.raises(ValueError):
        board.transform(-1)


def test_from_array_inverts_to_array():
    for transcript in ("", "f5d6c3d3c4f4f6f3e6e7", "f5f6e6f4e3c5c4e7"):
        b = Board.from_transcript(transcript)
        again = Board.from_array(b.to_array(), b.turn)
        assert again == b
        assert Board.from_array(b.to_array().tolist(), b.turn) == b      # any array-like
    with pytest.raises(InvalidBoardError, match="shape"):
        Board.from_array(np.zeros((8, 7)))
    with pytest.raises(InvalidBoardError, match="only 1"):
        Board.from_array(np.full((8, 8), 2))
    with pytest.raises(InvalidBoardError):
        Board.from_array(np.zeros((8, 8)), turn=5)


def test_push_with_implicit_pass():
    b = Board("-O" + "X" * 62 + " O")             # white must pass; black may take a1
    with pytest.raises(IllegalMoveError, match="a1 is not legal for white"):
        b.push("a1")
    b.push("a1", implicit_pass=True)
    assert b.move_stack == [PASS, cy.A1] and b.is_game_over()
    c = Board("-O" + "X" * 62 + " O")
    with pytest.raises(IllegalMoveError, match="b1 is not legal for black"):
        c.push("b1", implicit_pass=True)
    assert c.move_stack == [] and c.turn == WHITE            # a failed push changes nothing
    d = Board()
    d.push("f5", implicit_pass=True)                         # no pass needed: a plain push
    assert d.move_stack == [cy.F5]


def test_render_marks_the_last_move_and_keeps_the_columns():
    board = Board.from_transcript("f5d6c3")
    assert str(board) == board.render()
    lines = board.render("c3").splitlines()
    assert lines[3] == "3 - -[X]. - . - -"
    assert lines[-1] == "white to move (X 5, O 2; last move c3)"
    # Every row keeps the header's columns, the bracketed one too.
    assert all(len(line) == len(lines[0]) for line in lines[1:9])
    assert board.render(63).splitlines()[8].endswith("-[-]")
    assert "\033[" in board.render(colour=True)
    with pytest.raises(ValueError):
        board.render(65)


def test_a_finished_games_diagram_says_who_won_not_who_is_to_move():
    won = cy.Board("X" * 40 + "O" * 24 + " O")                  # full: black 40-24
    assert won.render().splitlines()[-1] == "game over: black wins by 16 (X 40, O 24)"
    drawn = cy.Board("X" * 32 + "O" * 32 + " X")
    assert drawn.render().splitlines()[-1] == "game over: a draw (X 32, O 32)"
    wiped = cy.Board("O" * 10 + "-" * 54 + " X")                 # no black disc left
    assert wiped.render().splitlines()[-1] == "game over: white wins by 64 (X 0, O 10)"
    assert cy.Board().render().splitlines()[-1] == "black to move (X 2, O 2)"
