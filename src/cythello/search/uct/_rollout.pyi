from typing import NamedTuple, Optional

from ...core._board import Board
from ..states import Rollout

PLAYOUT_BUILD: str
ROLLOUT_POLICIES: dict[Rollout, int]

class PlayoutStats(NamedTuple):
    wins: int
    draws: int
    losses: int
    mean_disc_difference: float

def cpu_has_v3() -> bool: ...
def random_seed() -> int: ...
def random_playouts(board: Board, n: int, seed: Optional[int] = None,
                    policy: str = "random") -> PlayoutStats: ...
