from typing import Any, Optional, Tuple

import numpy as np
import numpy.typing as npt
from typing_extensions import disjoint_base

from ..eval._patterns import PatternWeights

DEFAULT_CACHE_ENTRIES: int
MAX_CACHE_ENTRIES: int

@disjoint_base
class PatternEvaluator:
    value_scale: float
    prior_scale: float
    search_depth: int
    prior_depth: int
    cache_entries: int
    @property
    def weights(self) -> PatternWeights: ...
    def __init__(self, weights: Any = "default", value_scale: float = 8.0,
                 prior_scale: float = 4.0, search_depth: int = 1,
                 cache_entries: int = 262144, prior_depth: Optional[int] = None) -> None: ...
    def __call__(self, planes: Any, legal: Optional[Any] = None
                 ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]: ...
