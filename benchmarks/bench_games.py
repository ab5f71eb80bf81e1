"""The games database on a WTHOR collection: reading and replaying every game, the position
index, lookups, and the statistics checked against a slow count over the raw records.

    python3 benchmarks/bench_games.py ../shared/data/wthor
    python3 benchmarks/bench_games.py ~/othello/wthor --positions "" f5d6 f5d6c3d3c4f4f6f3e6e7

Side by side in one run: cythello's reader (``iter_wthor``: the records, their moves
replayed in C with the passes put in, a GameRecord each) against a plain-Python loop over
the same bytes (each game decoded and replayed with ``Board.push``, as a user's own script
would).  The index is built in memory (nothing is written beside the files); peak memory
is the process's maximum resident set.
"""
import argparse
import resource
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

from cythello import PASS, Board, transform_square
from cythello.core._replay import replay
from cythello.games import GameDatabase
from cythello.records.wthor import (
    GAME_BYTES,
    HEADER_BYTES,
    START_BLACK,
    START_WHITE,
    iter_wthor,
    read_wtb,
)


def plain_python(files):
    """Every game decoded and replayed by hand: the loop cythello's reader replaces."""
    games = moves = 0
    for path in files:
        data = path.read_bytes()
        for at in range(HEADER_BYTES, len(data) - GAME_BYTES + 1, GAME_BYTES):
            board = Board()
            for code in data[at + 8:at + 68]:
                if code == 0:
                    break
                board.push((code // 10 - 1) * 8 + code % 10 - 1, implicit_pass=True)
                moves += 1
            games += 1
    return games, moves


def slow_count(files, board):
    """The reference statistics: every raw record replayed with the Board, each position
    compared with the 8 transforms of ``board``; (games, Counter of moves in its frame)."""
    forms = [board.transform(s).position() for s in range(8)]
    games, moves = 0, Counter()
    for path in files:
        data = path.read_bytes()
        for at in range(HEADER_BYTES, len(data) - GAME_BYTES + 1, GAME_BYTES):
            b = Board()
            for code in data[at + 8:at + 68]:
                if code == 0:
                    break
                square = (code // 10 - 1) * 8 + code % 10 - 1
                if b.must_pass():
                    b.push(PASS)
                here = b.position()
                if here in forms:
                    s = forms.index(here)
                    games += 1
                    moves[next(x for x in range(64) if transform_square(x, s) == square)] += 1
                b.push(square)
    return games, moves


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("folder", help="a folder of WTHOR files (WTH_*.wtb, WTH.JOU, WTH.TRN)")
    ap.add_argument("--positions", nargs="*", default=["", "f5d6", "f5d6c3d3c4f4f6f3e6e7"],
                    help="transcripts whose statistics are shown and checked")
    ap.add_argument("--lookups", type=int, default=200, help="timed lookups a position")
    ap.add_argument("--no-plain", action="store_true", help="skip the plain-Python loop")
    ap.add_argument("--no-check", action="store_true", help="skip the slow reference count")
    args = ap.parse_args()
    folder = Path(args.folder)
    files = sorted(folder.glob("*.wtb"))
    if not files:
        print(f"no .wtb files in {folder}", file=sys.stderr)
        return 2

    start = time.perf_counter()
    played = 0
    for path in files:
        games = read_wtb(path)
        k = len(games)
        played += int(replay(games.moves, np.full(k, START_BLACK, np.uint64),
                             np.full(k, START_WHITE, np.uint64), np.zeros(k, np.uint8),
                             passes=True)["played"].sum())
    arrays = time.perf_counter() - start
    print(f"read_wtb + replay (arrays, passes put in): {played:,} moves in {arrays:.2f} s")
    start = time.perf_counter()
    problems = []
    n = moves = 0
    for game in iter_wthor(folder, problems=problems):
        n += 1
        moves += len(game.moves)
    fast = time.perf_counter() - start
    print(f"iter_wthor: {n:,} games ({moves:,} moves with passes) read and replayed in "
          f"{fast:.2f} s; {len(problems)} problems")
    if not args.no_plain:
        start = time.perf_counter()
        pn, pm = plain_python(files)
        plain = time.perf_counter() - start
        print(f"plain Python (bytes decoded, Board.push): {pn:,} games, {pm:,} moves in "
              f"{plain:.2f} s (no records made); iter_wthor {plain / fast:.1f}x faster, the "
              f"arrays {plain / arrays:.1f}x")

    start = time.perf_counter()
    db = GameDatabase.open(folder, index=None)
    opened = time.perf_counter() - start
    start = time.perf_counter()
    index = db.index()
    built = time.perf_counter() - start
    print(f"GameDatabase.open: {len(db):,} games ({db.skipped} skipped) in {opened:.2f} s; "
          f"index: {len(index):,} positions, {index.nbytes / 2**20:.1f} MiB, built in "
          f"{built:.2f} s")

    for line in args.positions:
        board = Board.from_transcript(line)
        start = time.perf_counter()
        for _ in range(args.lookups):
            stats = db.stats(board)
        each = (time.perf_counter() - start) / args.lookups
        print(f"\n{line or 'start'}: {each * 1000:.2f} ms a lookup")
        print(stats.table(6))
        if not args.no_check:
            start = time.perf_counter()
            games, moves = slow_count(files, board)
            took = time.perf_counter() - start
            same = games == stats.games and dict(moves) == {m.move: m.games
                                                            for m in stats.moves}
            print(f"slow count over the raw records ({took:.0f} s): {games:,} games, "
                  f"{'the same moves and counts' if same else 'DIFFERENT: ' + str(moves)}")
            if not same:
                return 1
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"\npeak memory: {peak:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
