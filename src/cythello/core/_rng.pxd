# cython: language_level=3
"""A small, fast, seedable generator (xoshiro256**, seeded by splitmix64) for C loops.

One generator per search or playout batch, so a seeded run is exactly reproducible and
threads never share state.  ``rand()`` is never used: it is slow, global and varies by libc.
"""
from libc.stdint cimport uint64_t, uint32_t


cdef struct Rng:
    uint64_t s0, s1, s2, s3


cdef inline uint64_t _splitmix64(uint64_t* x) noexcept nogil:
    x[0] += 0x9E3779B97F4A7C15ULL
    cdef uint64_t z = x[0]
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline void rng_seed(Rng* r, uint64_t seed) noexcept nogil:
    r.s0 = _splitmix64(&seed)
    r.s1 = _splitmix64(&seed)
    r.s2 = _splitmix64(&seed)
    r.s3 = _splitmix64(&seed)


cdef inline uint64_t _rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef inline uint64_t rng_next(Rng* r) noexcept nogil:
    cdef uint64_t result = _rotl(r.s1 * 5, 7) * 9
    cdef uint64_t t = r.s1 << 17
    r.s2 ^= r.s0
    r.s3 ^= r.s1
    r.s1 ^= r.s2
    r.s0 ^= r.s3
    r.s2 ^= t
    r.s3 = _rotl(r.s3, 45)
    return result


cdef inline uint32_t rng_below(Rng* r, uint32_t n) noexcept nogil:
    """A number in [0, n): Lemire's multiply-shift, no division (bias < n / 2**32)."""
    return <uint32_t>(((rng_next(r) >> 32) * <uint64_t>n) >> 32)
