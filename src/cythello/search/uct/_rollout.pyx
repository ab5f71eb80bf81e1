# cython: language_level=3
"""Playout policies for Monte Carlo search, with a run-time choice of build.

The policies themselves are in ``_playout_impl.pxi``.  This module is the portable build
that every other module cimports; on x86-64 CPUs with AVX2, BMI1/2 and POPCNT it hands
each playout to ``_rollout_v3``, the same source compiled for that level (about 20% more
playouts per second).  Both give identical games for the same generator state.  Set
``CYTHELLO_PORTABLE=1`` to keep the portable build.
"""
from collections import namedtuple


from cythello.core._board cimport Board
from cythello.core._rng cimport rng_seed

include "_playout_impl.pxi"

from cythello.core._cpu import cpu_has_v3
from cythello.core._cpu cimport v3_function
from cythello.search.states import Rollout

ctypedef int (*playout_fn)(uint64_t P, uint64_t O, int policy, Rng* rng,
                           uint64_t* placed) noexcept nogil

cdef playout_fn FAST_PLAYOUT = <playout_fn>v3_function(__file__, "cythello.search.uct._rollout_v3",
                                                       PLAYOUT_CAPSULE)
PLAYOUT_BUILD = "portable" if FAST_PLAYOUT == NULL else "x86-64-v3"


cdef int playout(uint64_t P, uint64_t O, int policy, Rng* rng, uint64_t* placed) noexcept nogil:
    if FAST_PLAYOUT != NULL:
        return FAST_PLAYOUT(P, O, policy, rng, placed)
    return _playout_loop(P, O, policy, rng, placed)




# -- playouts from Python ----------------------------------------------------------------------

PlayoutStats = namedtuple("PlayoutStats", "wins draws losses mean_disc_difference")
PlayoutStats.__doc__ = ("Random playouts from a position, counted for the side to move there; "
                        "the disc difference gives empties to the winner.")

# The policy names of the Python API and their codes in C (_policies.pxd): the one map.
ROLLOUT_POLICIES = {Rollout.RANDOM: ROLLOUT_RANDOM, Rollout.HEURISTIC: ROLLOUT_HEURISTIC}


from cythello._checks import random_seed   # its home; importable from here as before


def _seed_arg(seed):
    if seed is None:
        return random_seed()
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TypeError(f"seed must be an int or None, not {type(seed).__name__}")
    return seed & 0xFFFFFFFFFFFFFFFF


def random_playouts(Board board not None, n, seed=None, policy="random"):
    """Play ``n`` games to the end from ``board`` (uniformly random moves, or the heuristic
    rollout policy) and count them for the side to move: :class:`PlayoutStats`.  Runs in C
    without the GIL; the same seed gives the same result."""
    if isinstance(n, bool) or not isinstance(n, int):
        raise TypeError(f"n must be an int, not {type(n).__name__}")
    if n < 0 or n > 10**9:
        # 10**9 games is about half an hour, uninterruptible once in C: more is a mistake.
        raise ValueError(f"n must be between 0 and 10**9, not {n}")
    if policy not in ROLLOUT_POLICIES:
        raise ValueError(f"policy must be one of {sorted(ROLLOUT_POLICIES)}, not {policy!r}")
    cdef Rng rng
    rng_seed(&rng, <uint64_t>_seed_arg(seed))
    cdef uint64_t P = board._own(), O = board._opp()
    cdef long long games = n, i, wins = 0, draws = 0, losses = 0, total = 0
    cdef int d, pol = ROLLOUT_POLICIES[policy]
    with nogil:
        for i in range(games):
            d = playout(P, O, pol, &rng, NULL)
            total += d
            if d > 0:
                wins += 1
            elif d < 0:
                losses += 1
            else:
                draws += 1
    return PlayoutStats(wins, draws, losses, (<double>total / games) if games else 0.0)
