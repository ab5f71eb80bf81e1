"""cythello: a strong, fast Othello (Reversi) engine -- bitboard rules, Monte Carlo Tree
Search, PUCT and alpha-beta searches on a learned evaluation and an exact endgame solver,
compiled with Cython, behind a small python-chess-like API."""
from ._version import __version__
from .errors import (
    BookError, EvaluatorError, IllegalMoveError, InvalidBoardError, InvalidMoveError,
    PlayerBusyError, SettingsError, WeightsError,
)
from . import squares as _squares
from .squares import *  # noqa: F403  (colours, squares A1..H8, PASS, names)
from .core._board import STARTING_BOARD_STRING, Board, LegalMoves, Outcome, transform_square
from .core._perft import perft
from .search.uct._rollout import PlayoutStats, random_playouts
from .records.obf import ObfPosition, parse_obf_line, read_obf
from .records.game import GameRecord
from .games import GameDatabase
from .search.players import Player, RandomPlayer
from .search.presets import PRESETS
from .search.results import MoveStats, SearchResult
from .search.uct import MCTSPlayer, SearchSettings
from .search.alphabeta import AlphaBetaPlayer
from .search.presets import LEVELS
from .search.states import Proof, StopReason, ValueKind
from .search.alphabeta import AlphaBetaSettings
from .search.limits import Limit, PlayResult
from .match import MatchResult, play_game, run_match
from .openings import balanced_openings, read_openings
from .stats import SPRT


def build_info() -> "dict[str, object]":
    """How this copy of cythello was built and which code paths it runs."""
    import platform
    import sys

    from .search.uct._pool import NODE_BYTES
    from .core._cpu import cpu_has_v3
    from .eval._patterns import EVAL_BUILD
    from .eval.weights import default_weights
    from .search.endgame._solver import SOLVER_BUILD
    from .search.uct._rollout import PLAYOUT_BUILD

    return {
        "version": __version__,
        # The playouts run the x86-64-v3 build (AVX2, BMI1/2, POPCNT) when the CPU has it
        # and the wheel carries it, else the portable build (baseline instructions only).
        "rules_path": PLAYOUT_BUILD,
        "solver_path": SOLVER_BUILD,
        "eval_path": EVAL_BUILD,
        # Where the shipped evaluation weights came from (cythello's own training run).
        "eval_weights": default_weights().info,
        "cpu_has_x86_64_v3": cpu_has_v3(),
        "node_bytes": NODE_BYTES,
        "machine": platform.machine(),
        "python": sys.version.split()[0],
        "implementation": platform.python_implementation(),
    }

from .search.endgame import (  # noqa: E402
    EndgamePass, SolveAborted, SolveResult, solve, solve_moves, solve_outcome, solve_selective,
)
from .eval import evaluate  # noqa: E402
from .search.analysis import MoveReview, analyse_game  # noqa: E402
from .search.puct import PUCTPlayer, PUCTSettings  # noqa: E402
from . import nn  # noqa: E402
from .players import make_player  # noqa: E402

__all__ = [
    "__version__", "build_info",
    "Board", "LegalMoves", "Outcome", "STARTING_BOARD_STRING", "perft", "random_playouts",
    "transform_square",
    "PlayoutStats", "ObfPosition", "parse_obf_line", "read_obf", "GameRecord", "GameDatabase",
    "MCTSPlayer", "AlphaBetaPlayer", "RandomPlayer", "Player", "LEVELS", "PRESETS",
    "SearchResult", "StopReason", "Proof", "ValueKind",
    "MoveStats", "SearchSettings", "PUCTPlayer", "PUCTSettings", "AlphaBetaSettings", "Limit",
    "PlayResult", "nn",
    "make_player",
    "MatchResult", "play_game", "run_match", "balanced_openings", "read_openings", "SPRT",
    "analyse_game", "MoveReview",
    "solve", "solve_moves", "solve_outcome", "solve_selective", "SolveResult", "SolveAborted",
    "EndgamePass", "evaluate",
    "IllegalMoveError", "InvalidBoardError", "InvalidMoveError", "SettingsError",
    "PlayerBusyError", "WeightsError", "EvaluatorError", "BookError",
] + _squares.__all__
