"""Making a set of balanced start positions, reproducibly (the XOT idea, with cythello's
own search): every position ``plies`` moves from the start, one per class of the 8 board
symmetries, valued by alpha-beta searches of rising depth, and kept when the deepest
search finds it within ``within`` discs of even.

Searching every position at the final depth would take days, so the search runs in
stages: each stage searches only the positions the stage before left within its margin
(a shallow score strays from a deep one by about 2 discs at depth 10 and 1 at depth 14,
measured on 8-ply positions against depth 20; the margins leave several times that).
Alpha-beta is deterministic and each position is searched afresh (``search_many``), so the
same settings give the same file, byte for byte, on any number of workers, and a run cut
short resumes from its work folder::

    python3 -m cythello.openings.make --out src/cythello/openings/balanced.txt \\
        --sample 14000 --work /tmp/openings --workers 2

(the shipped set: 8 plies, stages 10/14/20 with Multi-ProbCut 1.5, within 2 discs, over
a seeded sample of 14,000 of the 67,245 positions: the depth-20 search takes seconds a
position, and all of them would take most of a day on 2 cores).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import re
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Dict, Iterable, List, Optional, Sequence, Tuple

import numpy as np

from .._checks import check_int, check_number
from .._workers import Workers
from ..core._board import Board
from ..errors import SettingsError
from ..squares import F5, square_name

if TYPE_CHECKING:
    from ..eval._patterns import PatternWeights

Key = Tuple[int, int]
# Positions a worker searches per job: small enough that a cut-short run loses little.
CHUNK = 64
# (depth, margin in discs): the default stages before the final one.
DEFAULT_STAGES = ((10, 7.0), (14, 3.5))
DEFAULT_DEPTH = 20
DEFAULT_WITHIN = 2.0
DEFAULT_PROBCUT = 1.5
DEFAULT_PLIES = 8


def positions(plies: int) -> Dict[Key, str]:
    """Every position ``plies`` moves from the start (a forced pass is a move) whose game
    is not over, one per symmetry class: its smallest ``(own, opp)`` key (the side to move
    first) and the smallest transcript, as a string, that reaches one of its transforms.
    The lines start with f5, as Othello writes them: black's four first moves are images
    of each other under the symmetries that keep the start position, so the lines from f5
    reach every class."""
    from ..book._keys import canonical
    check_int("plies", plies, 1, 12)
    found: Dict[Key, str] = {}
    board = Board()
    names = [""] * plies

    def walk(ply: int) -> None:
        if board.is_game_over():
            return
        if ply == plies:
            own, opp, _ = canonical(*board.position())
            line = "".join(names)
            key = (own, opp)
            if key not in found or line < found[key]:
                found[key] = line
            return
        for move in ([F5] if ply == 0 else list(board.legal_moves)):
            names[ply] = square_name(move)      # "pa" for a pass: read back by push_str
            board.push(move)
            walk(ply + 1)
            board.pop()

    walk(0)
    return found


_WORKER: Dict[str, "PatternWeights"] = {}


def _load_weights() -> None:
    from ..eval.weights import default_weights
    _WORKER["weights"] = default_weights()


def _search_chunk(depth: int, probcut: Optional[float], keys: Sequence[Key]
                  ) -> List[Tuple[int, int, float]]:
    """``(own, opp, score)`` of each key: a depth-``depth`` search's score in discs for the
    side to move."""
    from ..search.midgame import search_many
    own = np.array([k[0] for k in keys], dtype=np.uint64)
    opp = np.array([k[1] for k in keys], dtype=np.uint64)
    scores = search_many(own, opp, depth, _WORKER["weights"], probcut)
    return [(k[0], k[1], round(float(s), 2)) for k, s in zip(keys, scores)]


_SCORE_LINE = re.compile(r"[0-9]+ [0-9]+ [+-]?[0-9]+\.[0-9]{2}")


def _read_stage(path: Path) -> Dict[Key, float]:
    """The scores a stage has found so far (its work file: ``own opp score`` a line).  Only
    whole lines count: a last line without its newline (a kill or a full disk cut it:
    ``2.70`` cut to ``2`` would pass for a score) is cut off the file and searched again,
    and a line of another form is searched again."""
    done: Dict[Key, float] = {}
    if not path.exists():
        return done
    try:
        text = path.read_bytes().decode("ascii", errors="replace")
    except OSError as exc:
        raise SettingsError(f"cannot read {path}: {exc.strerror or exc}") from None
    whole, _, partial = text.rpartition("\n")
    if partial:
        try:
            with open(path, "r+b") as fh:
                fh.truncate(len(whole) + 1 if whole else 0)
        except OSError as exc:
            raise SettingsError(f"cannot repair {path}: {exc.strerror or exc}") from None
    for line in whole.split("\n") if whole else []:
        if _SCORE_LINE.fullmatch(line):
            own, opp, score = line.split()
            done[(int(own), int(opp))] = float(score)
    return done


def _check_work(work: Path, settings: Dict[str, object]) -> None:
    """A work folder serves one kind of run: its ``run.json`` records the settings its
    scores depend on (Multi-ProbCut, the weights, the plies), and a run with others is
    refused rather than reusing scores that are not its own (self-play's rule)."""
    path = work / "run.json"
    if path.exists():
        try:
            seen = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            seen = None
        if seen != settings:
            raise SettingsError(f"the work folder {work} holds scores made with other settings "
                                f"({seen}, not {settings}): give another --work folder or "
                                "empty it")
        return
    from .._files import write_atomic
    write_atomic(path, json.dumps(settings, sort_keys=True).encode(), "work folder's run.json",
                 SettingsError)


def search_stage(keys: Iterable[Key], depth: int, probcut: Optional[float], workers: int,
                 work: Optional[Path] = None, say: Callable[[str], None] = print
                 ) -> Dict[Key, float]:
    """Every key's depth-``depth`` score, on ``workers`` processes; with a ``work``
    folder, scores are appended to its file for this depth as they come, and those
    already there are not searched again."""
    path = work / f"depth-{depth}.txt" if work is not None else None
    done = _read_stage(path) if path is not None else {}
    todo = sorted(k for k in set(keys) if k not in done)
    jobs = [(depth, probcut, todo[i:i + CHUNK]) for i in range(0, len(todo), CHUNK)]
    if jobs:
        say(f"depth {depth}: {len(todo):,} positions to search ({len(done):,} done before)")
    started, count = time.monotonic(), 0
    with Workers(workers, initializer=_load_weights) as pool:
        for _, results in pool.run(_search_chunk, jobs):
            for own, opp, score in results:
                done[(own, opp)] = score
            if path is not None:                 # kept at once: a kill loses one chunk
                try:
                    with open(path, "a", encoding="ascii") as out:
                        out.write("".join(f"{own} {opp} {score:.2f}\n"
                                          for own, opp, score in results))
                except OSError as exc:
                    raise SettingsError(f"cannot write {path}: {exc.strerror or exc}") from None
            count += len(results)
            if count % (CHUNK * 50) < CHUNK:
                rate = count / max(1e-9, time.monotonic() - started)
                say(f"  depth {depth}: {count:,}/{len(todo):,}, "
                    f"{rate:.1f} positions a second")
    return {k: done[k] for k in keys}


def make_balanced(plies: int = DEFAULT_PLIES, depth: int = DEFAULT_DEPTH,
                  within: float = DEFAULT_WITHIN,
                  stages: Sequence[Tuple[int, float]] = DEFAULT_STAGES,
                  probcut: Optional[float] = DEFAULT_PROBCUT, workers: int = 1,
                  work: Optional[Path] = None, sample: Optional[int] = None, seed: int = 0,
                  say: Callable[[str], None] = print
                  ) -> Tuple[List[Tuple[str, float]], List[str]]:
    """The balanced positions, as ``(transcript, value)`` sorted by transcript (the value
    in discs for the side to move, by the depth-``depth`` search), and the lines of a
    report of how many each stage kept.  With ``sample``, only that many of the positions,
    drawn by ``seed``, go through the stages (the final depth costs seconds a position)."""
    check_int("plies", plies, 1, 12)
    check_int("depth", depth, 1, 60)
    check_number("within", within, 0, 64)
    for d, margin in stages:
        check_int("stage depth", d, 1, depth)
        check_number("stage margin", margin, within, 64)
    if work is not None:
        try:
            work.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise SettingsError(f"cannot make {work}: {exc.strerror or exc}") from None
        _check_work(work, {"plies": plies, "probcut": probcut, "weights": _weights_digest()})
    lines = positions(plies)
    report = [f"{len(lines):,} positions {plies} moves from the start, distinct up to "
              "symmetry"]
    say(report[0])
    alive = sorted(lines)
    if sample is not None and sample < len(alive):
        check_int("sample", sample, 1, len(alive))
        alive = sorted(random.Random(seed).sample(alive, sample))
        report.append(f"a sample of {sample:,} of them (seed {seed})")
        say(report[-1])
    for d, margin in list(stages) + [(depth, within)]:
        scores = search_stage(alive, d, probcut, workers, work, say)
        alive = [k for k in alive if abs(scores[k]) <= margin]
        report.append(f"depth {d}: {len(scores):,} searched, {len(alive):,} within "
                      f"{margin:g} discs")
        say(report[-1])
    chosen = sorted((lines[k], scores[k]) for k in alive)
    return chosen, report


def write_openings(path: Path, chosen: Sequence[Tuple[str, float]], header: Sequence[str]
                   ) -> None:
    """The openings file: ``#`` comment lines, then ``transcript value`` a line."""
    from .._files import write_atomic
    text = "".join(f"# {line}\n" if line else "#\n" for line in header)
    text += "".join(f"{line} {value:+.2f}\n" for line, value in chosen)
    write_atomic(path, text.encode("ascii"), "openings file", SettingsError)


def _weights_digest() -> str:
    from ..eval import weights
    data = Path(weights.__file__).with_name("default.weights").read_bytes()
    return hashlib.sha256(data).hexdigest()[:16]


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(
        prog="python3 -m cythello.openings.make",
        description="Make a set of balanced openings: every position PLIES moves from the "
                    "start (one per symmetry class) whose alpha-beta value at DEPTH is "
                    "within WITHIN discs of even.")
    ap.add_argument("--out", required=True, help="the openings file to write")
    ap.add_argument("--plies", type=int, default=DEFAULT_PLIES)
    ap.add_argument("--depth", type=int, default=DEFAULT_DEPTH,
                    help="the final search depth (default: %(default)s)")
    ap.add_argument("--within", type=float, default=DEFAULT_WITHIN,
                    help="discs from even kept at the final depth (default: %(default)s)")
    ap.add_argument("--stages", default=",".join(f"{d}:{m:g}" for d, m in DEFAULT_STAGES),
                    help="earlier stages DEPTH:MARGIN,... (default: %(default)s; "
                         "'none': only the final depth)")
    ap.add_argument("--probcut", type=float, default=DEFAULT_PROBCUT,
                    help="Multi-ProbCut's t (0: full width; default: %(default)s)")
    ap.add_argument("--workers", type=int, default=1)
    ap.add_argument("--sample", type=int,
                    help="search only this many of the positions, drawn by --seed")
    ap.add_argument("--seed", type=int, default=0, help="the sample's seed (default: 0)")
    ap.add_argument("--work", help="a folder for the stages' scores, so that a run cut "
                                   "short resumes")
    args = ap.parse_args(argv)
    try:
        stages = [] if args.stages == "none" else [
            (int(d), float(m)) for d, m in (s.split(":") for s in args.stages.split(","))]
    except ValueError:
        ap.error("--stages: DEPTH:MARGIN,..., e.g. 10:7,14:4.5")
    started = time.monotonic()
    try:
        chosen, report = make_balanced(args.plies, args.depth, args.within, stages,
                                       args.probcut or None, args.workers,
                                       Path(args.work) if args.work else None,
                                       args.sample, args.seed)
    except SettingsError as exc:
        ap.error(str(exc))
    values = np.array([v for _, v in chosen]) if chosen else np.zeros(1)
    probcut = f"Multi-ProbCut {args.probcut:g}" if args.probcut else "full width"
    from .._version import __version__
    header = [
        f"cythello balanced openings: {len(chosen):,} positions {args.plies} moves from the "
        "start,",
        "distinct up to symmetry, each within "
        f"{args.within:g} discs of even by a depth-{args.depth} alpha-beta search",
        f"({probcut}, cythello {__version__}'s evaluation, weights sha256 "
        f"{_weights_digest()}...).",
        "Each line: a transcript, then its value in discs for the side to move.",
        "",
        "Made by: python3 -m cythello.openings.make --out FILE --plies "
        f"{args.plies} --depth {args.depth} --within {args.within:g} --stages "
        f"{args.stages} --probcut {args.probcut:g}"
        + (f" --sample {args.sample} --seed {args.seed}" if args.sample else ""),
        *report,
        f"values: mean {values.mean():+.2f}, mean absolute {np.abs(values).mean():.2f}, "
        f"within 1 disc {np.mean(np.abs(values) <= 1):.0%}",
    ]
    write_openings(Path(args.out), chosen, header)
    print(f"wrote {len(chosen):,} openings to {args.out} "
          f"({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
