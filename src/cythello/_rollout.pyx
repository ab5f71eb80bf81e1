# cython: language_level=3
"""Playout policies for Monte Carlo search, with a run-time choice of build.

The policies themselves are in ``_playout_impl.pxi``.  This module is the portable build
that every other module cimports; on x86-64 CPUs with AVX2, BMI1/2 and POPCNT it hands
each playout to ``_rollout_v3``, the same source compiled for that level (about 20% more
playouts per second).  Both give identical games for the same generator state.  Set
``CYTHELLO_PORTABLE=1`` to keep the portable build.
"""
import os

from cpython.pycapsule cimport PyCapsule_GetPointer

include "_playout_impl.pxi"

cdef extern from "cy_cpu.h" nogil:
    int cy_cpu_has_v3()

ctypedef int (*playout_fn)(uint64_t P, uint64_t O, int policy, Rng* rng) noexcept nogil

cdef playout_fn FAST_PLAYOUT = NULL
PLAYOUT_BUILD = "portable"


cdef int playout(uint64_t P, uint64_t O, int policy, Rng* rng) noexcept nogil:
    if FAST_PLAYOUT != NULL:
        return FAST_PLAYOUT(P, O, policy, rng)
    return _playout_loop(P, O, policy, rng)


def cpu_has_v3():
    """Whether this CPU and OS can run the x86-64-v3 build (AVX2, BMI1/2, POPCNT)."""
    return bool(cy_cpu_has_v3())


def _choose_build():
    global FAST_PLAYOUT, PLAYOUT_BUILD
    if os.environ.get("CYTHELLO_PORTABLE", "") not in ("", "0") or not cy_cpu_has_v3():
        return
    try:
        from cythello import _rollout_v3      # optional: absent where it could not be built
    except ImportError:
        return
    FAST_PLAYOUT = <playout_fn>PyCapsule_GetPointer(_rollout_v3.playout_capsule(),
                                                     b"cythello.playout")
    PLAYOUT_BUILD = "x86-64-v3"

_choose_build()
