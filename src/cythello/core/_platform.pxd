# cython: language_level=3
"""The platform primitives of ``cy_platform.h`` (gcc, clang and MSVC spellings behind one
name each), declared once for every module."""
from libc.stdint cimport uint8_t, uint32_t, int64_t, uint64_t

cdef extern from "cy_platform.h" nogil:
    int cy_popcount(uint64_t x)
    int cy_ctz(uint64_t x)
    int cy_msb(uint64_t x)
    uint64_t cy_bswap64(uint64_t x)      # reverse the bytes: rows 1-8 become 8-1
    void cy_prefetch(const void* p)      # a hint: ``p`` will be read soon
    # A large zeroed table, 2 MB aligned, on huge pages where the OS offers them.
    void* cy_huge_alloc(size_t bytes, int commit)
    void* cy_huge_aligned(void* base)
    void cy_huge_free(void* base, size_t bytes)
    double cy_monotonic()
    # A stop flag written by one thread and polled by a searching one.
    int cy_load_flag(const int* p)
    void cy_store_flag(int* p, int v)
    # Atomic updates for the shared-tree search (each returns the value before).
    uint32_t cy_atomic_add32(uint32_t* p, uint32_t v)
    int64_t cy_atomic_add64(int64_t* p, int64_t v)
    uint8_t cy_atomic_or8(uint8_t* p, uint8_t v)
    uint8_t cy_atomic_and8(uint8_t* p, uint8_t v)
    bint cy_atomic_cas32(uint32_t* p, uint32_t expected, uint32_t desired)
    uint8_t cy_atomic_load8(const uint8_t* p)
    uint32_t cy_atomic_load32(const uint32_t* p)
    void cy_atomic_store32(uint32_t* p, uint32_t v)
    void cy_atomic_add_double(double* p, double v)


# Portable threads (pthreads or Windows threads), for the parallel solver and the
# shared-tree search.
cdef extern from "cy_threads.h" nogil:
    ctypedef struct cy_mutex:
        pass
    ctypedef struct cy_cond:
        pass
    ctypedef struct cy_thread:
        pass
    void cy_mutex_init(cy_mutex* m)
    void cy_mutex_destroy(cy_mutex* m)
    void cy_mutex_lock(cy_mutex* m)
    void cy_mutex_unlock(cy_mutex* m)
    void cy_cond_init(cy_cond* c)
    void cy_cond_destroy(cy_cond* c)
    void cy_cond_wait(cy_cond* c, cy_mutex* m)
    void cy_cond_broadcast(cy_cond* c)
    int cy_thread_create(cy_thread* t, void (*fn)(void*) noexcept nogil, void* arg)
    void cy_thread_join(cy_thread t)
