"""Bad input gets a clear error, never a crash: random and mutated text through every parser
and protocol handler (a fixed seed, so a failure reproduces)."""
import io
import random

import pytest

import cythello as cy
from cythello import Board
from cythello.protocols.gtp import GtpEngine
from cythello.protocols.nboard import NBoardEngine
from cythello.records.ggf import GgfGame, parse_game
from cythello.records.obf import parse_obf_line

ALPHABET = "XO-xo*.#;:[]()/ \t\n+-0123456789abcdefghABCDEFGHpasPASBWbw%=?\x00\x7f\u00e9"
VALID = [
    cy.STARTING_BOARD_STRING,
    "--XXXXX--OOOXX-O-OOOXXOX-OXOXOXXOXXXOXXX--XOXOXX-XXXOOO--OOOOO-- X; G8:+18; H1:+12;",
    GgfGame.from_board(Board.from_transcript("f5d6c3d3c4")).to_ggf(),
    "f5d6c3d3c4f4f6",
]


def _mutations(rng, count):
    for _ in range(count):
        if rng.random() < 0.4:
            yield "".join(rng.choice(ALPHABET) for _ in range(rng.randint(0, 90)))
        else:
            text = list(rng.choice(VALID))
            for _ in range(rng.randint(1, 4)):
                i = rng.randrange(len(text) + 1)
                op = rng.random()
                if op < 0.4 and text:
                    del text[min(i, len(text) - 1)]
                elif op < 0.8:
                    text.insert(i, rng.choice(ALPHABET))
                elif text:
                    text[min(i, len(text) - 1)] = rng.choice(ALPHABET)
            yield "".join(text)


@pytest.mark.parametrize("parse", [Board, Board.from_transcript, parse_obf_line, parse_game],
                         ids=["board", "transcript", "obf", "ggf"])
def test_parsers_raise_value_errors_only(parse):
    rng = random.Random(1234)
    for text in _mutations(rng, 1500):
        try:
            parse(text)
        except (ValueError, TypeError):
            pass


def test_board_methods_reject_junk_cleanly():
    board = Board()
    junk = [None, 3.5, -1, 65, 2**70, "", "z", "f5f5", b"f5", [], True, object()]
    for value in junk:
        for method in (board.push, board.is_legal, board.flips, board.piece_at):
            try:
                method(value)
            except (ValueError, TypeError, IndexError):
                pass
    assert board == Board()


def test_gtp_engine_never_dies_on_junk():
    engine = GtpEngine(cy.MCTSPlayer(iterations=20, seed=1))
    rng = random.Random(99)
    words = ["play", "genmove", "undo", "boardsize", "time_left", "time_settings", "b", "w",
             "black", "pass", "f5", "z9", "-1", "1e400", "nan", "8", "0", "set_game", "komi"]
    for _ in range(1500):
        line = " ".join(rng.choice(words + [rng.choice(ALPHABET) * rng.randint(1, 3)])
                        for _ in range(rng.randint(0, 4)))
        reply = engine.handle(line)
        assert reply is None or (reply[0] in "=?" and reply.endswith("\n\n"))
        if engine.board.is_game_over():
            engine.handle("clear_board")


def test_nboard_engine_never_dies_on_junk():
    rng = random.Random(7)
    words = ["nboard", "set", "depth", "game", "move", "hint", "go", "ping", "learn",
             "contempt", "F5", "PA", "-3", "999", "x/y/z", "(;GM[Othello]B[z9];)"]
    lines = []
    for _ in range(400):
        lines.append(" ".join(rng.choice(words) for _ in range(rng.randint(0, 4))))
    lines.append("ping 12345")
    out = io.StringIO()
    engine = NBoardEngine(out, cy.MCTSPlayer(iterations=20, seed=1), depth=1)
    engine.handle("set depth 1")
    engine.run(io.StringIO("\n".join(lines) + "\n"))
    assert out.getvalue().splitlines()[-1] == "pong 12345"      # still alive at the end
