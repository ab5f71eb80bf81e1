"""Self-play data: engine-against-itself games recorded for training, on all local cores
or on a Ray cluster, with identical results for the same seed.

    >>> from cythello import selfplay
    >>> selfplay.generate(1000, "data/run1", seed=7, workers=4, iterations=800)
    >>> data = selfplay.load("data/run1")        # dict of equal-length NumPy arrays
    >>> data["black"], data["visits"].shape       # bitboards, (N, 65) root visit counts

With ``evaluator=net`` (a policy/value network, :mod:`cythello.nn`) the games are
searched by PUCT instead, ``batch_games`` of them at once with one network call per step
(:mod:`cythello.selfplay.batched`), into the same shards.

Each position of each game becomes a row; the columns are in :data:`SCHEMA`.  Games are
grouped into shards (``shard-000000.npz``, ...) of ``games_per_shard`` games; a run that
stops (a crash, Ctrl-C, a dead worker) continues from the shards already written when it
is started again with the same arguments, and a shard is only ever visible complete.
"""
from __future__ import annotations

from .games import GameSettings, game_seed, play_game, replay_check
from .read import load, planes
from .run import MANIFEST, generate
from .shards import SCHEMA, ShardError, iter_shards
from .symmetry import augment

__all__ = ["generate", "load", "SCHEMA", "GameSettings", "ShardError", "iter_shards",
           "play_game", "game_seed", "replay_check", "planes", "augment", "MANIFEST"]
