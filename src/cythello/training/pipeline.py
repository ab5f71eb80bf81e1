"""The evaluation-training pipeline: self-play games -> positions -> labels -> fitted
weights, stage by stage from the end of the game backwards.

    python -m cythello.training --preset full --start-weights benchmarks/data/eval-0.2.0.weights \
        --workdir train-run --out my.weights --workers 2
    python -m cythello.training --preset tiny --workdir /tmp/t --out /tmp/t.weights

1. Self-play (``cythello.selfplay``) from randomised openings (the first moves drawn in
   proportion to the search's visits, then an occasional random move), on all workers:
   ``player="mcts"``, the MCTS engine (with the weights of the round before from the
   second round on), or ``player="puct"``, the PUCT search guided by the pattern
   evaluation (:class:`~cythello.nn.PatternEvaluator`) of the round before, and in the
   first round of ``start_weights``: four to five times as many games a second, and
   games of the stronger engine.
2. Positions: every position of those games plus off-path positions (one random move
   away), deduplicated.
3. Labels and fit, stage by stage from the fewest empties: a stage whose positions have at
   most ``exact_empties`` empty squares is labelled by the exact solver; a later stage by a
   ``depth``-ply alpha-beta search whose leaves fall into the stages already fitted
   (Buro's bootstrapping, used for Logistello).  Each stage is a sparse ridge fit pulled
   toward the stage before it (``cythello.training.fit``).
4. Calibration (``cythello.training.calibrate``): the bootstrapped stages get offsets
   that make the evaluation agree with its own value one move later, measured on
   ``calibration`` positions of the last round's games (bootstrapping lets a bias toward
   the side to move add up from stage to stage).

The same preset and seed give the same weights file, bit for bit.  Everything lands in
``workdir`` (self-play shards, labels, a report); a run that stops can be started again
and picks up the self-play shards and labels already made.
"""
from __future__ import annotations

import hashlib
import json
import time
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional

import numpy as np

from .._checks import check_int, check_number
from .._files import check_writable, read_npz, write_atomic, write_npz
from ..errors import SettingsError
from ..eval import PatternWeights, patterns
from ..eval.weights import load_weights, save_weights, unpack
from ..selfplay import generate
from . import data as tdata
from .calibrate import calibrate, sample_boards
from .fit import fit_stage, fit_stage_huber, packed_features, predict, quantize
from .labels import exact_scores, search_scores


@dataclass(frozen=True)
class Config:
    """The knobs of a training run (see the presets)."""

    games: int = 24000              # self-play games per round
    player: str = "mcts"            # self-play engine: "mcts" or "puct"
    iterations: int = 400           # MCTS iterations per self-play move
    simulations: int = 100          # PUCT simulations per self-play move
    start_weights: str = ""         # weights file guiding round 1's PUCT games
    temperature_moves: int = 12     # first moves drawn in proportion to visits
    epsilon: float = 0.03           # then a random move with this probability
    off_path: float = 0.5           # off-path positions per game position
    exact_empties: int = 16         # stages up to this many empties: exact labels
    depth: int = 4                  # search depth of the other labels (one stage deep)
    ridge: float = 30.0             # pull toward the previous stage's weights
    huber: float = 0.0              # Huber loss's threshold in discs (0: squared error)
    rounds: int = 3                 # self-play rounds (round 2+ plays with the last weights)
    seed: int = 1
    games_per_shard: int = 100
    calibration: int = 20000        # positions for the side-to-move calibration (0: none)


PRESETS: Dict[str, Config] = {
    # Seconds: checks the whole pipeline end to end (the test suite runs it).
    "tiny": Config(games=12, iterations=60, exact_empties=8, depth=1, rounds=2, off_path=0.3,
                   temperature_moves=4, games_per_shard=4, calibration=300),
    # A few minutes on 2 cores: a usable, weaker evaluation.
    "small": Config(games=1500, iterations=200, rounds=1, games_per_shard=50),
    # What cythello ships (its time: docs/tutorials/evaluation.md): PUCT self-play guided
    # by 0.2.0's evaluation (give its file as start_weights), then a second round guided
    # by the first round's weights, fitted to the positions of both (--rounds 1 gives the
    # file of 0.3.0's first release).
    "full": Config(player="puct", games=40000, rounds=2, temperature_moves=16,
                   games_per_shard=256),
    # What cythello 0.2.0 shipped (MCTS self-play, three rounds; before mobility).
    "full-0.2": Config(),
}


def _log(message: str, log: Optional[Callable[[str], None]]) -> None:
    if log is not None:
        log(message)


def _selfplay_settings(config: Config, round_index: int,
                       weights_file: Optional[Path]) -> Dict[str, Any]:
    if config.player == "puct":
        from ..nn import PatternEvaluator
        guide = weights_file if round_index > 0 and weights_file is not None else config.start_weights
        # search_depth=0: the static evaluation's values, as the shipped weights' runs.
        return {"evaluator": PatternEvaluator(load_weights(guide), search_depth=0),
                "batch_games": 256,
                "iterations": config.simulations, "dirichlet_alpha": 0.5,
                "dirichlet_fraction": 0.25}
    settings: Dict[str, Any] = {"iterations": config.iterations, "rollout": "heuristic",
                                "progressive_bias": 4.0}
    if round_index > 0 and weights_file is not None:
        # The engine as it plays with an evaluation: evaluated leaves, minimax backups.
        settings.update(eval_weights=str(weights_file), leaf_eval=1.0, minimax_weight=0.5)
    return settings


def fit_all(own: np.ndarray, opp: np.ndarray, config: Config, workers: int, workdir: Path,
            tag: str, log: Optional[Callable[[str], None]] = None) -> "tuple[np.ndarray, List[Dict[str, Any]]]":
    """Label and fit every stage, fewest empties first; returns the packed int16 weights
    and per-stage statistics."""
    empties = tdata.empties_of(own, opp)
    stage = (np.maximum(empties - 1, 0)) // patterns.STAGE_WIDTH
    packed = np.zeros((patterns.N_STAGES, patterns.packed_size()), dtype=np.int16)
    fitted = np.zeros((patterns.N_STAGES, patterns.packed_size()))
    stats: List[Dict[str, Any]] = []
    for s in range(patterns.N_STAGES):
        mask = stage == s
        s_own, s_opp = own[mask], opp[mask]
        top = (s + 1) * patterns.STAGE_WIDTH
        cache = workdir / f"labels-{tag}-stage{s:02d}.npz"
        started = time.monotonic()
        method = "exact" if top <= config.exact_empties else f"search depth {config.depth}"
        cached = _cached(cache, ("labels",), len(s_own))
        if cached is not None:
            labels = cached["labels"]
        else:
            if top <= config.exact_empties:
                labels = _exact_with_memory(s_own, s_opp, workers,
                                            workdir / f"exact-stage{s:02d}.npz")
            else:
                current = PatternWeights(unpack(packed), {"training": tag})
                labels = search_scores(s_own, s_opp, config.depth, current, workers)
            write_npz(cache, {"labels": labels}, "training cache", SettingsError)
        label_time = time.monotonic() - started
        feats = packed_features(s_own, s_opp)
        prior = fitted[s - 1] if s > 0 else None
        started = time.monotonic()
        if not len(labels):
            w = prior if prior is not None else np.zeros(patterns.packed_size())
        elif config.huber > 0:
            w = fit_stage_huber(feats, labels, config.ridge, config.huber, prior=prior)
        else:
            w = fit_stage(feats, labels, config.ridge, prior=prior)
        fitted[s] = w
        packed[s] = quantize(w)
        residual = predict(w, feats) - labels if len(labels) else np.zeros(0)
        stats.append({"stage": s, "empties": [top - patterns.STAGE_WIDTH + 1, top],
                      "positions": int(mask.sum()), "labels": method,
                      "train_mae": float(np.abs(residual).mean()) if len(residual) else None,
                      "label_seconds": round(label_time, 1),
                      "fit_seconds": round(time.monotonic() - started, 1)})
        _log(f"  stage {s:2d} ({stats[-1]['empties'][0]}-{top} empties): "
             f"{stats[-1]['positions']:,} positions, {method} labels "
             f"({label_time:.0f} s), train MAE {stats[-1]['train_mae'] or 0:.2f}", log)
    return packed, stats


def _cached(path: Path, names: "tuple[str, ...]", rows: Optional[int] = None
            ) -> Optional[Dict[str, np.ndarray]]:
    """The arrays of a work directory's cache file, read as every file is (bounded, no
    pickles), or None when there is none or it is damaged: a cache that lacks an array,
    holds arrays of different lengths (or not ``rows`` of them) or cannot be read is
    computed again, never trusted (caches are written whole, but an older cythello wrote
    them in place)."""
    if not path.exists():
        return None
    try:
        arrays = read_npz(path, "training cache", SettingsError)
    except SettingsError:
        return None
    if any(name not in arrays or arrays[name].ndim != 1 for name in names):
        return None
    lengths = {len(arrays[name]) for name in names}
    if len(lengths) != 1 or rows is not None and lengths != {rows}:
        return None
    return arrays


def _exact_with_memory(own: np.ndarray, opp: np.ndarray, workers: int,
                       memory: Path) -> np.ndarray:
    """Exact scores, solving only positions no earlier round solved (an exact score does
    not depend on the weights, so it is kept across rounds in ``memory``)."""
    # uint64, never float: a bitboard through float64 loses its low bits.
    known_own = known_opp = np.zeros(0, np.uint64)
    known = np.zeros(0)
    m = _cached(memory, ("own", "opp", "labels"))
    if m is not None:
        known_own, known_opp, known = m["own"], m["opp"], m["labels"]
    labels = np.full(len(own), np.nan)
    if len(known):
        keys = np.stack([known_own, known_opp], axis=1).view([("p", "<u8"), ("o", "<u8")]).ravel()
        order = np.argsort(keys)
        query = np.stack([own, opp], axis=1).view([("p", "<u8"), ("o", "<u8")]).ravel()
        at = np.searchsorted(keys[order], query)
        at = np.minimum(at, len(keys) - 1)
        hit = keys[order][at] == query
        labels[hit] = known[order][at[hit]]
    todo = np.isnan(labels)
    if todo.any():
        labels[todo] = exact_scores(own[todo], opp[todo], workers)
        write_npz(memory, {"own": np.concatenate([known_own, own[todo]]).astype(np.uint64),
                           "opp": np.concatenate([known_opp, opp[todo]]).astype(np.uint64),
                           "labels": np.concatenate([known, labels[todo]])},
                  "training cache", SettingsError)
    return labels


def run(config: Config, workdir: Path, out: Path, workers: int = 1,
        log: Optional[Callable[[str], None]] = print) -> Dict[str, Any]:
    """Run the whole pipeline; writes the weights to ``out`` and returns the report."""
    check_config(config)
    check_int("workers", workers, 1, 1024)
    workdir = Path(workdir)
    if workdir.exists() and not workdir.is_dir():
        raise SettingsError(f"the work folder {workdir} is a file, not a folder")
    # Now, not after hours of work: an output that cannot be written.
    check_writable(out, "evaluation weights", SettingsError)
    try:
        workdir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SettingsError(f"cannot make the work folder {workdir}: "
                            f"{exc.strerror or exc}") from None
    started = time.monotonic()
    runs: List[Path] = []
    weights_file: Optional[Path] = None
    report: Dict[str, Any] = {"config": asdict(config), "rounds": []}
    packed = None
    for r in range(config.rounds):
        t0 = time.monotonic()
        run_dir = workdir / f"selfplay-r{r}"
        _log(f"round {r + 1}/{config.rounds}: self-play, {config.games} games -> {run_dir}", log)
        generate(config.games, run_dir, seed=config.seed * 1000 + r, workers=workers,
                 games_per_shard=config.games_per_shard,
                 temperature_moves=config.temperature_moves, epsilon=config.epsilon,
                 progress=False, **_selfplay_settings(config, r, weights_file))
        selfplay_time = time.monotonic() - t0
        runs.append(run_dir)
        own, opp = tdata.training_positions(runs, config.off_path, seed=config.seed + r)
        _log(f"  {len(own):,} distinct positions from {len(runs)} round(s) "
             f"(self-play {selfplay_time:.0f} s)", log)
        packed, stats = fit_all(own, opp, config, workers, workdir, f"r{r}-{_digest(config)}",
                                log)
        weights_file = workdir / f"round{r}.weights"
        save_weights(weights_file, packed, _provenance(config, r, len(own), time.monotonic() - started))
        report["rounds"].append({"round": r, "positions": int(len(own)),
                                 "selfplay_seconds": round(selfplay_time, 1), "stages": stats})
    assert packed is not None
    if config.calibration:
        # The last step: stage offsets that make the evaluation agree with itself one move
        # later, measured on the last round's games (cythello.training.calibrate).
        boards = sample_boards(runs[-1], config.calibration, config.seed)
        packed, offsets = calibrate(packed, boards, config.exact_empties)
        report["calibration_offsets"] = np.round(offsets, 3).tolist()
        _log(f"  calibrated on {len(boards):,} positions: offsets up to "
             f"{float(np.abs(offsets).max()):.1f} discs", log)
    total = time.monotonic() - started
    save_weights(out, packed, _provenance(config, config.rounds - 1, report["rounds"][-1]["positions"],
                                          total))
    report["seconds"] = round(total, 1)
    write_atomic(workdir / "report.json", json.dumps(report, indent=2).encode(),
                 "training report", SettingsError)
    _log(f"wrote {out} ({Path(out).stat().st_size:,} bytes) in {total:.0f} s", log)
    return report


def check_config(config: Config) -> None:
    """The settings a run cannot start without, checked before any work."""
    check_int("games", config.games, 1, 10 ** 9)
    check_int("rounds", config.rounds, 1, 1000)
    check_int("seed", config.seed, 0, 2 ** 40)
    check_int("games_per_shard", config.games_per_shard, 1, 10 ** 6)
    check_int("calibration", config.calibration, 0, 10 ** 9)
    check_int("exact_empties", config.exact_empties, 0, 30)
    check_int("depth", config.depth, 0, 20)
    check_number("off_path", config.off_path, 0, 100)
    if not 0.0 <= config.huber < float("inf"):
        raise SettingsError(f"huber must be a threshold in discs >= 0 (0: squared error), "
                            f"not {config.huber!r}")
    if config.player not in ("mcts", "puct"):
        raise SettingsError(f"player must be 'mcts' or 'puct', not {config.player!r}")
    if config.player == "puct":
        if not config.start_weights:
            raise SettingsError("PUCT self-play needs start_weights: the weights file whose "
                                "evaluation guides the first round's games "
                                "(--start-weights FILE)")
        load_weights(config.start_weights)          # a WeightsError names a bad file


def _digest(config: Config) -> str:
    """What the labels of a run depend on (all but the number of rounds and the shard
    size), for the label cache's file names."""
    fields = asdict(config)
    fields.pop("rounds")
    fields.pop("games_per_shard")
    fields.pop("calibration")        # a last step on the fitted weights
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()[:10]


def _provenance(config: Config, round_index: int, positions: int, seconds: float) -> Dict[str, Any]:
    from .._version import __version__
    start = {}
    if config.player == "puct":
        start = {"start_weights_sha256": hashlib.sha256(
            Path(config.start_weights).read_bytes()).hexdigest()}
    return {"trained_by": "cythello.training.pipeline", "cythello": __version__,
            "config": asdict(config), "rounds_done": round_index + 1, **start,
            "positions": positions, "seconds": round(seconds),
            "data": "cythello self-play only (no external games or weights)"}


def preset(name: str, **overrides: Any) -> Config:
    """A preset configuration with some fields changed."""
    if name not in PRESETS:
        raise ValueError(f"unknown training preset {name!r}; choose one of {', '.join(PRESETS)}")
    return replace(PRESETS[name], **overrides)
