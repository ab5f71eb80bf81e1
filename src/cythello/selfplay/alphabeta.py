"""Self-play at scale, in Egaroucid's manner: a random prefix of varying length, then a
fast alpha-beta game played perfectly from ``exact`` empties, kept as a *game* (its start
after the prefix, its moves, its final score) in games files (:mod:`cythello.games.store`,
~40 bytes a game) that grow run after run.

    python -m cythello.selfplay.alphabeta --games 100000 --out selfplay/ --workers 16
    python -m cythello.training games --db selfplay/ --search 0 --out selfplay.weights

Every position the engine moved from is labelled by the game's final score: the score of
the game as the engine went on to play it and perfectly from ``exact`` empties, so the
record's ``theoretical`` score is its result, from ``exact`` empties (the random moves
are not part of the record: their positions' later moves were not the engine's choice).
Game ``g`` of a run seeded ``s`` is the same whichever worker plays it, so a run's files
are the same bytes for any worker count, and a later run with more ``games`` in the same
folder plays only the games it lacks.
"""
from __future__ import annotations

import argparse
import random
import sys
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from .._checks import check_int, check_number, parse_range_text
from .._version import __version__
from .._workers import Workers
from ..core._board import Board
from ..core._replay import END
from ..eval import PatternWeights, load_weights
from ..games.store import GamesFileError, read_games, write_games
from ..search.alphabeta._midgame import search
from ..search.endgame._solver import Solver
from ..squares import PASS
from .games import game_seed
from .run import _check_manifest, _failures_as_shard_error, _pieces, _Progress

_PathLike = Union[str, Path]
TABLE_BITS = 16                 # the solver's table a game (1 MB: solves from 20 empties)


@dataclass(frozen=True)
class FastSettings:
    """How each game is played: ``random_plies`` (lo, hi) uniformly random moves first (the
    count drawn uniformly from that range), then a ``depth``-ply alpha-beta search a move
    (Multi-ProbCut at ``probcut``; None: off) over ``weights`` (a weights file; None: the
    shipped ones), and the exact solver from ``exact`` empties."""

    depth: int = 8
    exact: int = 20
    random_plies: Tuple[int, int] = (8, 36)
    probcut: Optional[float] = 1.5
    weights: Optional[str] = None

    def check(self) -> "FastSettings":
        check_int("depth", self.depth, 1, 20)
        check_int("exact", self.exact, 0, 30)
        lo, hi = self.random_plies
        check_int("random_plies' least", lo, 0, 59)
        check_int("random_plies' most", hi, lo, 59)
        if self.probcut is not None:
            check_number("probcut", self.probcut, 0.5, 4.0)
        if self.weights is not None:
            _weights(self.weights)          # a bad file is refused before any game
        return self


@lru_cache(maxsize=4)
def _weights(path: Optional[str]) -> PatternWeights:
    return load_weights(path)


def play_fast_game(game: int, seed: int, settings: FastSettings) -> Dict[str, Any]:
    """Game ``game`` of a run seeded ``seed``: its ``start`` (after the random prefix), its
    ``moves`` without passes, black's final disc difference (``result``) and the empty
    squares left at its end (``end_empties``)."""
    rng = random.Random(game_seed(seed, game))
    lo, hi = settings.random_plies
    while True:                              # a prefix that ends the game is drawn again
        board = Board()
        for _ in range(rng.randint(lo, hi)):
            moves = list(board.legal_moves)
            if not moves:
                if board.is_game_over():
                    break
                board.push(PASS)
                continue
            board.push(rng.choice(moves))
        if not board.is_game_over():
            break
    start = Board.from_bitboards(board.black, board.white, board.turn)
    weights = _weights(settings.weights)
    # A fresh table a game keeps the game the same whatever was solved before it (of two
    # moves with the best score, the one found first is played).
    solver = Solver(table_bits=TABLE_BITS, weights=weights)
    played: List[int] = []
    while not board.is_game_over():
        if board.must_pass():
            board.push(PASS)
            continue
        if board.empties() <= settings.exact:
            _, move, _ = solver.solve(board)
        else:
            _, move, _ = search(board, settings.depth, weights, probcut=settings.probcut)
        board.push(move)
        played.append(move)
    outcome = board.outcome()
    assert outcome is not None
    return {"start": start, "moves": played, "result": outcome.difference,
            "end_empties": board.empties()}


def _play_file_piece(first: int, count: int, seed: int, settings: FastSettings
                     ) -> List[Dict[str, Any]]:
    return [play_fast_game(g, seed, settings) for g in range(first, first + count)]


def _columns(games: Sequence[Dict[str, Any]], settings: FastSettings
             ) -> Dict[str, np.ndarray]:
    n = len(games)
    moves = np.full((n, 60), END, np.uint8)
    for i, g in enumerate(games):
        moves[i, :len(g["moves"])] = g["moves"]
    result = np.array([g["result"] for g in games], np.int8)
    # Perfect from ``exact`` empties (or from the end, for a game over before that).
    theory_at = np.array([max(settings.exact, g["end_empties"]) for g in games], np.int8)
    return {"moves": moves,
            "start_black": np.array([g["start"].black for g in games], np.uint64),
            "start_white": np.array([g["start"].white for g in games], np.uint64),
            "start_turn": np.array([g["start"].turn for g in games], np.uint8),
            "played": np.array([len(g["moves"]) for g in games], np.int16),
            "black": np.zeros(n, np.int32), "white": np.zeros(n, np.int32),
            "tournament": np.zeros(n, np.int32), "year": np.zeros(n, np.int16),
            "result": result, "theoretical": result, "theoretical_empties": theory_at}


def file_name(number: int) -> str:
    return f"games-{number:06d}.npz"


def _complete(path: Path, count: int) -> bool:
    if not path.exists():
        return False
    try:
        columns, _, _ = read_games(path)
    except GamesFileError:
        return False                                  # damaged: played again
    return len(columns["played"]) == count


def generate_games(games: int, out_dir: _PathLike, seed: int = 0, workers: int = 1,
                   depth: int = 8, exact: int = 20,
                   random_plies: Tuple[int, int] = (8, 36), probcut: Optional[float] = 1.5,
                   weights: Optional[str] = None, games_per_file: int = 5000,
                   progress: Optional[bool] = None) -> Path:
    """Play games ``0 .. games-1`` of the run seeded ``seed`` into ``out_dir`` (files of
    ``games_per_file`` games, see the module), on ``workers`` processes, and return the
    folder.  Files already there are kept; a folder holds one run's settings."""
    check_int("games", games, 1, 1 << 40)
    check_int("workers", workers, 1, 1024)
    check_int("games_per_file", games_per_file, 1, 1 << 20)
    check_int("seed", seed, -(1 << 63), (1 << 64) - 1)
    settings = FastSettings(depth, exact, tuple(random_plies), probcut,   # type: ignore[arg-type]
                            weights).check()
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise GamesFileError(f"cannot create {out}: {exc.strerror or exc}") from None
    manifest = {"kind": "alpha-beta self-play", "seed": seed,
                "games_per_file": games_per_file,
                "settings": {**asdict(settings), "random_plies": list(settings.random_plies)},
                "cythello": __version__}
    _check_manifest(out, manifest)
    files = [(i, first, min(games_per_file, games - first))
             for i, first in enumerate(range(0, games, games_per_file))]
    todo = [f for f in files if not _complete(out / file_name(f[0]), f[2])]
    bar = _Progress(len(files), len(files) - len(todo), games_per_file,
                    sys.stderr.isatty() if progress is None else progress)
    names = [f"cythello {__version__} alpha-beta depth {depth}, exact from {exact}"]
    tournaments = [f"self-play, seed {seed}"]
    pieces = _pieces(todo, max(workers, 1) * 8)      # small jobs: progress and balance
    jobs = [(first, count, seed, settings) for _, _, _, first, count in pieces]
    parts: Dict[int, Dict[int, List[Dict[str, Any]]]] = {}
    with _failures_as_shard_error(), Workers(workers) as pool:
        for i, result in pool.run(_play_file_piece, jobs):
            number, piece, count = pieces[i][:3]
            got = parts.setdefault(number, {})
            got[piece] = result
            if len(got) == count:
                played = [g for k in range(count) for g in got[k]]
                write_games(out / file_name(number), _columns(played, settings), names,
                            tournaments)
                bar.update(sum(len(g["moves"]) for g in played))
                del parts[number]
    bar.close()
    return out


def main(argv: Optional[Sequence[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python -m cythello.selfplay.alphabeta",
        description="Fast alpha-beta self-play kept as games (Egaroucid's manner: a random "
                    "prefix, then the engine, perfect from --exact empties).")
    ap.add_argument("--games", type=int, required=True, help="games of the run (a later "
                    "run with more plays only the games the folder lacks)")
    ap.add_argument("--out", required=True, type=Path, help="the folder of games files")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--depth", type=int, default=8, help="search depth a move (default 8)")
    ap.add_argument("--exact", type=int, default=20,
                    help="perfect play from this many empties (default 20)")
    ap.add_argument("--random-plies", default="8-36", metavar="LO-HI",
                    help="random moves first, their count drawn from LO-HI (default 8-36)")
    ap.add_argument("--probcut", default="1.5",
                    help="Multi-ProbCut's threshold, or 'off' (default 1.5)")
    ap.add_argument("--weights", help="weights file the search uses (default: shipped)")
    ap.add_argument("--games-per-file", type=int, default=5000)
    args = ap.parse_args(argv)
    try:
        plies = parse_range_text("--random-plies", args.random_plies)
        probcut = None if args.probcut == "off" else float(args.probcut)
        out = generate_games(args.games, args.out, seed=args.seed, workers=args.workers,
                             depth=args.depth, exact=args.exact, random_plies=plies,
                             probcut=probcut, weights=args.weights,
                             games_per_file=args.games_per_file)
    except KeyboardInterrupt:
        print("interrupted; the files written are kept (run again to go on)",
              file=sys.stderr)
        return 130
    except (ValueError, OSError) as exc:
        print(f"python -m cythello.selfplay.alphabeta: error: {exc}", file=sys.stderr)
        return 2
    print(f"{args.games:,} games in {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
