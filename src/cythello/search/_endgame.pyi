from typing import Dict, Optional, Tuple

from typing_extensions import disjoint_base

from ..core._board import Board

@disjoint_base
class Solver:
    nodes: int
    def stop(self) -> None: ...
    def solve(self, board: Board, alpha: int = -64, beta: int = 64,
              node_limit: Optional[int] = None, deadline: float = 0.0) -> Tuple[int, int, bool]: ...
    def move_scores(self, board: Board, node_limit: Optional[int] = None,
                    deadline: float = 0.0) -> Optional[Dict[int, int]]: ...
