from typing import Any, Dict, Optional, Tuple

import numpy as np
import numpy.typing as npt

from ..core._board import Board
from ..eval._patterns import PatternWeights

def search(board: Board, depth: int, weights: PatternWeights) -> Tuple[float, int, int]: ...
def reference_search(board: Board, depth: int,
                     weights: PatternWeights) -> Tuple[float, int, int]: ...
def deepen(board: Board, weights: PatternWeights, max_depth: int = ...,
           seconds: Optional[float] = ...) -> Dict[str, Any]: ...
def search_many(own: Any, opp: Any, depth: int,
                weights: PatternWeights) -> npt.NDArray[np.float64]: ...
