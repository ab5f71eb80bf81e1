from typing import Dict, Tuple

import numpy as np
import numpy.typing as npt

END: int
PASS: int
MAX_WITH_PASSES: int
PLY_BITS: int
MAX_GAMES: int

def replay(moves: npt.ArrayLike, black: npt.ArrayLike, white: npt.ArrayLike,
           turn: npt.ArrayLike, passes: bool = False) -> Dict[str, npt.NDArray[np.generic]]: ...
def position_keys(moves: npt.ArrayLike, black: npt.ArrayLike, white: npt.ArrayLike,
                  turn: npt.ArrayLike, played: npt.ArrayLike
                  ) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint32]]: ...
def positions_at(moves: npt.ArrayLike, black: npt.ArrayLike, white: npt.ArrayLike,
                 turn: npt.ArrayLike, games: npt.ArrayLike, plies: npt.ArrayLike
                 ) -> Tuple[npt.NDArray[np.uint64], npt.NDArray[np.uint64],
                            npt.NDArray[np.uint8]]: ...
def position_key(own: int, opp: int) -> int: ...
