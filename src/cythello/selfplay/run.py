"""The self-play runner: games played on worker processes or Ray into a run directory
of shards, resumable, with a manifest that ties the directory to its arguments."""
from __future__ import annotations

import contextlib
import json
import sys
import time
from pathlib import Path
from typing import Any, Callable, Dict, Iterator, List, Optional, Sequence, Union

import numpy as np

from .._files import read_text, write_atomic
from .._workers import MAX_TRIES, Workers, WorkersDied
from ..errors import SettingsError
from ..search.puct import Evaluate, check_batch_games
from .batched import DEFAULT_SIMULATIONS, play_games
from .games import GameSettings, play_game
from .shards import ShardError, concatenate, read_shard, shard_name, write_shard

_PathLike = Union[str, Path]
MANIFEST = "run.json"


def _play_shard(shard: int, first: int, count: int, seed: int,
                settings: GameSettings) -> Dict[str, np.ndarray]:
    """The worker's job: ``count`` games from game number ``first``."""
    return concatenate([play_game(g, seed, settings) for g in range(first, first + count)])


def _manifest(games: int, seed: int, games_per_shard: int, settings: GameSettings,
              evaluator: Any = None) -> Dict[str, Any]:
    from .._version import __version__
    extra = {} if evaluator is None else {"evaluator": _evaluator_name(evaluator)}
    return {"games": games, "seed": seed, "games_per_shard": games_per_shard, **extra,
            "settings": {"player": settings.player, "openings": list(settings.openings),
                         "random_plies": settings.random_plies,
                         "temperature": settings.temperature,
                         "temperature_moves": settings.temperature_moves,
                         "epsilon": settings.epsilon},
            "cythello": __version__}


def generate(games: int, out_dir: _PathLike, seed: int = 0, workers: int = 1,
             backend: str = "local", ray_address: Optional[str] = None,
             games_per_shard: int = 50, openings: Sequence[str] = (), random_plies: int = 0,
             temperature: float = 1.0, temperature_moves: int = 0, epsilon: float = 0.0,
             progress: Optional[bool] = None,
             on_shard: Optional[Callable[[int, int], None]] = None,
             evaluator: Optional[Evaluate] = None, batch_games: int = 256,
             **player_settings: Any) -> Path:
    """Play ``games`` self-play games into ``out_dir`` and return its path.

    ``player_settings`` are :class:`~cythello.MCTSPlayer` settings (default: 400
    iterations); ``openings``, ``random_plies``, ``temperature``, ``temperature_moves``
    and ``epsilon`` shape the exploration (see :class:`GameSettings`).  ``workers``
    processes play in parallel (``backend="local"``), or Ray tasks do (``backend="ray"``,
    connecting to ``ray_address``, default: a local Ray).  The same arguments give
    byte-identical shards whatever the backend and worker count.  ``progress`` shows a
    progress line on stderr (default: when stderr is a terminal); ``on_shard(done,
    total)`` is called after each shard.

    With an ``evaluator`` (a policy/value network, :mod:`cythello.nn`) the games are
    searched by PUCT instead, ``player_settings`` being :class:`~cythello.PUCTSettings`
    (default: 200 simulations), ``batch_games`` games at once with one evaluator call per
    step (see :mod:`cythello.selfplay.batched`): in this process, or with ``workers`` > 1
    on that many processes, one shard's games batched together on each (for an evaluator
    that runs on the CPU; it is pickled to each worker once).  The shards are the same,
    with the root visits as policy targets, whatever ``batch_games`` and ``workers`` are."""
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise SettingsError(f"games must be a positive int, not {games!r}")
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= 1024:
        raise SettingsError(f"workers must be an int from 1 to 1024, not {workers!r}")
    if not isinstance(games_per_shard, int) or games_per_shard < 1:
        raise SettingsError(f"games_per_shard must be a positive int, not {games_per_shard!r}")
    if backend not in ("local", "ray"):
        raise SettingsError(f"backend must be 'local' or 'ray', not {backend!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise SettingsError(f"seed must be an int, not {seed!r}")
    if evaluator is not None:
        if not callable(evaluator):
            raise TypeError(f"evaluator must be callable, not {type(evaluator).__name__}")
        if backend != "local":
            raise SettingsError("an evaluator runs on local processes: use the local "
                                "backend (batch_games games share its batches)")
        check_batch_games(batch_games)
    default = {"iterations": DEFAULT_SIMULATIONS if evaluator else 400}
    settings = GameSettings(player=dict(player_settings) or default,
                            openings=tuple(openings), random_plies=random_plies,
                            temperature=temperature, temperature_moves=temperature_moves,
                            epsilon=epsilon).check(puct=evaluator is not None)
    out = Path(out_dir)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ShardError(f"cannot create {out}: {exc.strerror or exc}") from None
    manifest = _manifest(games, seed, games_per_shard, settings, evaluator)
    _check_manifest(out, manifest)
    jobs = [(i, first, min(games_per_shard, games - first))
            for i, first in enumerate(range(0, games, games_per_shard))]
    todo = [job for job in jobs if not _complete(out / shard_name(job[0]))]
    bar = _Progress(len(jobs), len(jobs) - len(todo), games_per_shard,
                    sys.stderr.isatty() if progress is None else progress)

    def done(shard: int, columns: Dict[str, np.ndarray]) -> None:
        write_shard(out / shard_name(shard), columns)
        bar.update(len(columns["black"]))
        if on_shard is not None:
            on_shard(bar.done, len(jobs))

    if evaluator is not None and workers > 1:
        _run_batched_on_workers(todo, seed, settings, evaluator, batch_games, workers, done)
    elif evaluator is not None:
        _run_batched(todo, seed, settings, evaluator, batch_games, done)
    else:
        _run(todo, seed, settings, workers, backend, ray_address, done)
    bar.close()
    return out


def _check_manifest(out: Path, manifest: Dict[str, Any]) -> None:
    """A run directory belongs to one set of arguments: resuming with others would mix
    games of different runs."""
    path = out / MANIFEST
    if path.exists():
        try:
            old = json.loads(read_text(path, "run manifest", ValueError, limit=1 << 20))
            if not isinstance(old, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError, RecursionError) as exc:
            raise ShardError(f"{path} is damaged ({exc}); delete it and run again with the "
                             "same arguments to keep the shards already played") from None
        old.pop("cythello", None)
        new = dict(manifest)
        new.pop("cythello", None)
        if old != new:
            raise SettingsError(f"{out} holds a run with other settings; use another "
                                f"directory (or delete it) to start a new run")
        return
    # Whole or absent: a crash or a full disk never leaves a manifest that blocks resumes.
    write_atomic(path, json.dumps(manifest, indent=2, sort_keys=True).encode(), "manifest",
                 ShardError)


def _complete(path: Path) -> bool:
    if not path.exists():
        return False
    try:
        read_shard(path)
        return True
    except ShardError:
        return False                     # damaged: play it again


def _pieces(todo: List[Any], workers: int) -> List[Any]:
    """The games of the shards to play, as ``(shard, piece, pieces, first, count)``: each
    shard cut into enough pieces for every worker to have work when there are fewer shards
    than workers (a shard is its pieces' games in order, so its bytes do not change)."""
    split = max(1, -(-workers // max(1, len(todo))))
    out: List[Any] = []
    for shard, first, count in todo:
        parts = min(split, count)
        bounds = [first + count * i // parts for i in range(parts + 1)]
        out.extend((shard, i, parts, bounds[i], bounds[i + 1] - bounds[i]) for i in range(parts))
    return out


@contextlib.contextmanager
def _failures_as_shard_error() -> Iterator[None]:
    """Workers that kept dying stop the run with a ShardError (the shards written stay)."""
    try:
        yield
    except WorkersDied as exc:
        raise ShardError(f"self-play stopped: games failed {MAX_TRIES} times, each time "
                         f"because {exc}; the shards written are kept") from None


def _run(todo: List[Any], seed: int, settings: GameSettings, workers: int, backend: str,
         ray_address: Optional[str], done: Callable[[int, Dict[str, np.ndarray]], None]) -> None:
    """Plays the shards on the workers; ``done`` gets each whole shard (its pieces joined
    in order).  A first error (a full disk) or Ctrl-C stops all play at once."""
    pieces = _pieces(todo, workers if backend == "local" else 1)
    jobs = [(shard, first, count, seed, settings) for shard, _, _, first, count in pieces]
    parts: Dict[int, Dict[int, Dict[str, np.ndarray]]] = {}
    with _failures_as_shard_error(), Workers(workers, backend, ray_address) as pool:
        for i, columns in pool.run(_play_shard, jobs):
            shard, piece, count = pieces[i][:3]
            got = parts.setdefault(shard, {})
            got[piece] = columns
            if len(got) == count:
                done(shard, concatenate([got[k] for k in range(count)]))
                del parts[shard]


def _run_batched(todo: List[Any], seed: int, settings: GameSettings, evaluator: Evaluate,
                 batch_games: int, done: Callable[[int, Dict[str, np.ndarray]], None]) -> None:
    """Plays the games of the shards ``batch_games`` at a time in this process; ``done``
    gets each shard once all its games are over."""
    shard_of = {g: shard for shard, first, count in todo for g in range(first, first + count)}
    left = {shard: count for shard, _, count in todo}
    got: Dict[int, Dict[int, Dict[str, np.ndarray]]] = {}

    def on_game(game: int, columns: Dict[str, np.ndarray]) -> None:
        shard = shard_of[game]
        got.setdefault(shard, {})[game] = columns
        left[shard] -= 1
        if not left[shard]:
            parts = got.pop(shard)
            done(shard, concatenate([parts[g] for g in sorted(parts)]))

    play_games(evaluator, sorted(shard_of), seed, settings, batch_games, on_game)


# The evaluator of a worker process, sent once when the worker starts (not with every
# shard: a pattern evaluator's tables are megabytes).
_WORKER_EVALUATOR: Optional[Evaluate] = None


def _set_worker_evaluator(evaluator: Evaluate) -> None:
    global _WORKER_EVALUATOR
    _WORKER_EVALUATOR = evaluator


def _play_shard_batched(shard: int, first: int, count: int, seed: int, settings: GameSettings,
                        batch_games: int) -> Dict[str, np.ndarray]:
    """A worker's job with an evaluator: one shard's games, batched together."""
    assert _WORKER_EVALUATOR is not None
    parts: Dict[int, Dict[str, np.ndarray]] = {}
    play_games(_WORKER_EVALUATOR, range(first, first + count), seed, settings,
               min(batch_games, count), lambda game, columns: parts.__setitem__(game, columns))
    return concatenate([parts[g] for g in sorted(parts)])


def _run_batched_on_workers(todo: List[Any], seed: int, settings: GameSettings,
                            evaluator: Evaluate, batch_games: int, workers: int,
                            done: Callable[[int, Dict[str, np.ndarray]], None]) -> None:
    """Plays each shard's games batched on one of ``workers`` processes (an evaluator that
    runs on the CPU, such as the pattern evaluator, uses every core this way).  A game's
    record does not depend on its batch, so the shards are those of one process."""
    jobs = [(shard, first, count, seed, settings, batch_games) for shard, first, count in todo]
    with _failures_as_shard_error(), \
            Workers(workers, "local", None, _set_worker_evaluator, (evaluator,)) as pool:
        for i, columns in pool.run(_play_shard_batched, jobs):
            done(todo[i][0], columns)


def _evaluator_name(evaluator: Any) -> str:
    """How a run's manifest names its evaluator (a resumed run should use the same)."""
    name = getattr(evaluator, "__qualname__", None) or type(evaluator).__qualname__
    return f"{getattr(evaluator, '__module__', '') or type(evaluator).__module__}.{name}"


class _Progress:
    """Games, positions per second and the time left, on one line of a terminal."""

    def __init__(self, total: int, done: int, games_per_shard: int, show: bool) -> None:
        self.total, self.done, self.show = total, done, show
        self.positions = 0
        self.start = time.monotonic()
        self.first = done
        self.games_per_shard = games_per_shard
        self._draw()

    def update(self, positions: int) -> None:
        self.done += 1
        self.positions += positions
        self._draw()

    def _draw(self) -> None:
        if not self.show:
            return
        elapsed = time.monotonic() - self.start
        rate = self.positions / elapsed if elapsed > 0 else 0.0
        new = self.done - self.first
        eta = elapsed / new * (self.total - self.done) if new else 0.0
        width = 30
        filled = int(width * self.done / self.total) if self.total else width
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (width - filled)}] "
                         f"{self.done}/{self.total} shards, {rate:,.0f} positions/s, "
                         f"ETA {eta:,.0f} s ")
        sys.stderr.flush()

    def close(self) -> None:
        if self.show:
            sys.stderr.write("\n")
