from typing import Dict, Optional, Tuple, Union

from typing_extensions import disjoint_base

from ...core._board import Board
from ...eval._patterns import PatternWeights

SOLVER_BUILD: str
SELECTIVE_PASSES: Tuple[Tuple[float, int], ...]

def certainty_of(t: float) -> int: ...

@disjoint_base
class Solver:
    nodes: int
    threads: int
    weights: Optional[PatternWeights]
    def __new__(cls, table_bits: int = 20,
                weights: Union[str, PatternWeights, None] = "default",
                threads: int = 1) -> Solver: ...
    def stop(self) -> None: ...
    def clear_stop(self) -> None: ...
    @property
    def table_bytes(self) -> int: ...
    def reserve(self, empties: int = 7, commit: bool = True) -> int: ...
    def solve(self, board: Board, alpha: int = -64, beta: int = 64,
              node_limit: Optional[int] = None, deadline: float = 0.0,
              probcut: Optional[float] = None) -> Tuple[int, int, bool]: ...
    def evaluate_at(self, board: Board, depth: int) -> float: ...
    def move_scores(self, board: Board, node_limit: Optional[int] = None,
                    deadline: float = 0.0) -> Optional[Dict[int, int]]: ...
