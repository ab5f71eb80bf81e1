# cython: language_level=3
"""The platform primitives of ``cy_platform.h`` (gcc, clang and MSVC spellings behind one
name each), declared once for every module."""
from libc.stdint cimport uint64_t

cdef extern from "cy_platform.h" nogil:
    int cy_popcount(uint64_t x)
    int cy_ctz(uint64_t x)
    int cy_msb(uint64_t x)
    uint64_t cy_bswap64(uint64_t x)      # reverse the bytes: rows 1-8 become 8-1
    double cy_monotonic()
    # A stop flag written by one thread and polled by a searching one.
    int cy_load_flag(const int* p)
    void cy_store_flag(int* p, int v)
