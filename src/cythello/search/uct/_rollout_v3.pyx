# cython: language_level=3
"""The playout policies built for x86-64-v3 (AVX2, BMI1/2, POPCNT).  Loaded only by
``_rollout`` after a CPU check (see cythello.core._cpu); it is not importable by name,
since this module's code may use those instructions anywhere, its import included."""
from cpython.pycapsule cimport PyCapsule_New

include "_playout_impl.pxi"


def _capsule():
    """The playout function, for ``_rollout`` to call."""
    return PyCapsule_New(<void*>_playout_loop, PLAYOUT_CAPSULE, NULL)
