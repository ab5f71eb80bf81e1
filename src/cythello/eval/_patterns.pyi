from typing import Any, Dict, Optional, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ..core._board import Board

EVAL_BUILD: str

@disjoint_base
class PatternWeights:
    info: Dict[str, Any]
    def __init__(self, table: Any, info: Optional[Dict[str, Any]] = None) -> None: ...
    @property
    def array(self) -> npt.NDArray[np.int16]: ...
    def evaluate(self, board: Board) -> float: ...
    def evaluate_many(self, own: Any, opp: Any) -> npt.NDArray[np.float64]: ...

def feature_indices(own: Any, opp: Any) -> npt.NDArray[np.int32]: ...
def layout() -> Tuple[int, int, int, int]: ...
