"""Properties checked by Hypothesis: the rules against the reference rules on boards from
random legal games and random bit patterns, symmetry, round trips through every format, and
every file reader, protocol parser and settings type fed arbitrary input (a value or a clear
``ValueError``/``TypeError``, never another exception, a crash or a hang).

Profiles (conftest.py): ``ci``, the default, is derandomised (the same examples every run)
and small enough for every push; ``nightly`` tries many more:
``HYPOTHESIS_PROFILE=nightly python -m pytest tests/test_properties.py``."""
import dataclasses
import io
import math

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

import cythello as cy  # noqa: E402
import reference_rules as ref  # noqa: E402
from cythello import Board  # noqa: E402
from cythello.book import Book  # noqa: E402
from cythello.book.store import DEFAULT_PATH  # noqa: E402
from cythello.errors import BookError  # noqa: E402
from cythello.eval.weights import read_weights  # noqa: E402
from cythello.openings import read_openings  # noqa: E402
from cythello.protocols.gtp import GtpEngine  # noqa: E402
from cythello.protocols.nboard import NBoardEngine  # noqa: E402
from cythello.records.ggf import GgfGame, iter_games, parse_game, read_ggf  # noqa: E402
from cythello.records.obf import ObfPosition, parse_obf_line, read_obf  # noqa: E402
from cythello.records.position import board_from_text  # noqa: E402
from cythello.search.puct import PUCTSettings  # noqa: E402
from cythello.search.settings import parse_setting, setting_names  # noqa: E402
from cythello.search.uct import SearchSettings  # noqa: E402
from cythello.selfplay.shards import ShardError, read_shard  # noqa: E402

# Inputs that are not the reader's fault: what every reader may raise for bad input.
CLEAR = (ValueError, TypeError)
FILE_READ = settings(suppress_health_check=[HealthCheck.function_scoped_fixture])


# -- boards ----------------------------------------------------------------------------------------

@st.composite
def played_boards(draw, max_plies=64):
    """A board reached by legal moves (passes included) from the start, with its stack."""
    board = Board()
    for _ in range(draw(st.integers(0, max_plies))):
        moves = list(board.legal_moves)
        if not moves:
            break
        board.push(moves[draw(st.integers(0, len(moves) - 1))])
    return board


@st.composite
def bit_boards(draw):
    """Any two disjoint sets of squares and a side to move: most no game reaches."""
    black = draw(st.integers(0, (1 << 64) - 1))
    white = draw(st.integers(0, (1 << 64) - 1)) & ~black
    return Board.from_bitboards(black, white, draw(st.integers(0, 1)))


def _cells(board):
    text, side = board.board_string().split()
    return [" " if ch == "-" else ch for ch in text], side


@given(st.one_of(played_boards(), bit_boards()))
def test_legal_moves_and_flips_agree_with_the_reference_rules(board):
    cells, side = _cells(board)
    expected = ref.legal_moves(cells, side)
    moves = [m for m in board.legal_moves if m != cy.PASS]
    assert sorted(moves) == expected
    assert board.must_pass() == (not expected and not ref.game_over(cells))
    assert board.is_game_over() == ref.game_over(cells)
    for move in expected:
        assert board.flips(move) == ref.flips(cells, side, move)
        child = board.copy()
        child.push(move)
        assert _cells(child)[0] == ref.play(cells, side, move)


@given(st.one_of(played_boards(), bit_boards()), st.integers(0, 7))
def test_symmetry_maps_moves_and_counts(board, k):
    image = board.transform(k)
    assert image.turn == board.turn and image.empties() == board.empties()
    assert sorted(cy.transform_square(m, k) for m in board.legal_moves if m != cy.PASS) == \
        sorted(m for m in image.legal_moves if m != cy.PASS)
    assert image.must_pass() == board.must_pass()
    assert image.is_game_over() == board.is_game_over()


@given(st.one_of(played_boards(), bit_boards()))
def test_round_trips_through_strings_arrays_and_obf(board):
    text = board.board_string()
    assert Board(text).position() == board.position() and Board(text).turn == board.turn
    assert board_from_text(text).board_string() == text
    again = Board.from_array(board.to_array(), board.turn)
    assert again.board_string() == text
    scores = {m: (i * 7) % 129 - 64 for i, m in enumerate(board.legal_moves) if m != cy.PASS}
    parsed = parse_obf_line(ObfPosition(board, scores, "c").to_line())
    assert parsed.board.board_string() == text and parsed.scores == scores


@given(played_boards())
def test_round_trips_through_transcripts_and_ggf(board):
    again = Board.from_transcript(board.transcript())
    if board.move_stack and board.peek() == cy.PASS:
        # Passes are implicit in a transcript: a forced pass at its end is still to come.
        assert again.must_pass()
        again.push(cy.PASS)
    assert again.board_string() == board.board_string()
    game = parse_game(GgfGame.from_board(board, black="b", white="w").to_ggf())
    assert game.board().board_string() == board.board_string()
    assert [m.move for m in game.moves if m.move != cy.PASS] == \
        [m for m in board.move_stack if m != cy.PASS]


# -- parsers and readers fed anything -----------------------------------------------------------

TEXT = st.text(st.characters(codec="utf-8"), max_size=300)
BYTES = st.binary(max_size=2000)


def _clear_or_value(call, *args, errors=CLEAR):
    try:
        call(*args)
    except errors:
        pass


@given(TEXT)
def test_text_parsers_give_a_value_or_a_clear_error(text):
    _clear_or_value(board_from_text, text)
    _clear_or_value(parse_obf_line, text)
    _clear_or_value(parse_game, text)
    _clear_or_value(lambda t: list(iter_games(t)), text)
    _clear_or_value(Board.from_transcript, text)
    _clear_or_value(Board, text)


WORD = st.one_of(TEXT.map(lambda t: t[:12]), st.sampled_from(
    ["b", "w", "black", "white", "f5", "d3", "pass", "PA", "0", "1", "-3", "8", "60", "1e9",
     "nan", "Othello", cy.STARTING_BOARD_STRING, GgfGame.from_board(Board()).to_ggf()]))
GTP_LINES = st.builds(lambda cmd, args: " ".join([cmd] + args),
                      st.sampled_from(sorted(GtpEngine(cy.RandomPlayer()).commands)),
                      st.lists(WORD, max_size=3))
NBOARD_LINES = st.builds(lambda cmd, args: " ".join([cmd] + args), st.sampled_from(
    ["nboard", "set depth", "set game", "set contempt", "move", "go", "hint", "ping",
     "learn", "analyze"]), st.lists(WORD, max_size=2))


@given(st.lists(st.one_of(TEXT, GTP_LINES), max_size=8))
def test_gtp_answers_any_lines(lines):
    gtp = GtpEngine(cy.MCTSPlayer(iterations=20, seed=1, book=None))
    for line in lines:
        reply = gtp.handle(line)
        assert reply is None or (reply[0] in "=?" and reply.endswith("\n\n")
                                 and reply.isascii())


@given(st.lists(st.one_of(TEXT, NBOARD_LINES), max_size=8))
def test_nboard_answers_any_lines(lines):
    out = io.StringIO()
    nboard = NBoardEngine(out, cy.MCTSPlayer(iterations=20, seed=1, book=None),
                          depth_sets_budget=False)
    nboard.run(io.StringIO("\n".join(lines) + "\n"))
    assert out.getvalue().isascii()
    assert "Traceback" not in out.getvalue()


BOOK_BYTES = DEFAULT_PATH.read_bytes()          # the shipped book, to cut and damage


@FILE_READ
@given(data=BYTES, cut=st.integers(0, 4000), flip=st.integers(0, 4000))
def test_file_readers_give_a_value_or_a_clear_error(tmp_path, data, cut, flip):
    path = tmp_path / "input"
    path.write_bytes(data)
    _clear_or_value(Book.load, path)
    _clear_or_value(read_weights, path)
    _clear_or_value(lambda p: list(read_obf(p)), path)
    _clear_or_value(read_ggf, str(path))
    _clear_or_value(read_openings, str(path))
    _clear_or_value(read_shard, path, errors=(ShardError,) + CLEAR)
    # A real book, cut short or with one byte changed: the checksum or the checks refuse it.
    book = tmp_path / "book.cybook"
    raw = bytearray(BOOK_BYTES)
    cut_at = cut % len(raw)
    book.write_bytes(bytes(raw[:cut_at]))
    with pytest.raises(BookError):
        Book.load(book)
    raw[flip % len(raw)] ^= 0xFF
    book.write_bytes(bytes(raw))
    with pytest.raises(BookError):
        Book.load(book)


# -- settings from any value ----------------------------------------------------------------------

ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(-(1 << 70), 1 << 70),
    st.floats(allow_nan=True, allow_infinity=True), TEXT,
    st.lists(st.integers(), max_size=3), st.just(object()))


@given(st.sampled_from([SearchSettings, PUCTSettings]), st.data())
def test_settings_accept_a_value_or_refuse_it_clearly(cls, data):
    field = data.draw(st.sampled_from([f.name for f in dataclasses.fields(cls)]))
    value = data.draw(ANY_VALUE)
    try:
        made = cls(**{field: value})
    except CLEAR:
        return
    kept = getattr(made, field)
    if isinstance(kept, float):
        assert not math.isnan(kept)             # a NaN setting is refused, never kept


@given(st.sampled_from(setting_names(SearchSettings)), TEXT)
def test_setting_text_parses_or_is_refused_clearly(name, text):
    _clear_or_value(parse_setting, name, text, SearchSettings)
