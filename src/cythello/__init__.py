"""cythello: a fast Othello (Reversi) engine -- bitboard rules and Monte Carlo Tree Search
compiled with Cython, behind a small python-chess-like API."""
from ._version import __version__
from .errors import IllegalMoveError, InvalidBoardError, InvalidMoveError, SettingsError
from .squares import *  # noqa: F401,F403  (colours, squares A1..H8, PASS, names)
from .squares import BLACK, WHITE, PASS, SQUARE_NAMES, parse_move, parse_square, square_name
from ._board import (
    STARTING_BOARD_STRING, Board, LegalMoves, Outcome, PlayoutStats, perft, random_playouts,
)
from .obf import ObfPosition, parse_obf_line, read_obf
from .players import MCTSPlayer, MoveStats, Player, PRESETS, RandomPlayer, SearchResult
from .match import MatchResult, play_game, run_match
