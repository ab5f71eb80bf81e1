from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ..core._board import Board

@disjoint_base
class VectorOthello:
    n: int
    random_plies: int
    def __new__(cls, n: int, seed: Optional[int] = None,
                random_plies: int = 0) -> VectorOthello: ...
    def __len__(self) -> int: ...
    @property
    def turn(self) -> npt.NDArray[np.uint8]: ...
    def board(self, i: int) -> Board: ...
    def reset(self, seed: Optional[int] = None
              ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]: ...
    def step(self, actions: Any) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_],
                                          npt.NDArray[np.float32], npt.NDArray[np.bool_]]: ...
