/* cy_platform.h: the few non-portable primitives cythello needs, for gcc, clang and MSVC.
 * Baseline instruction sets only: wheels must run on any CPU of their platform. */
#ifndef CYTHELLO_PLATFORM_H
#define CYTHELLO_PLATFORM_H
#include <stdint.h>
#include <string.h>

/* C99 "inline" is late in MSVC's C mode; its own spelling always works. */
#if defined(_MSC_VER)
#define CY_INLINE static __inline
#else
#define CY_INLINE static inline
#endif

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
#if defined(__AVX2__)
/* The x86-64-v3 build (/arch:AVX2) may use POPCNT. */
CY_INLINE int cy_popcount(uint64_t x) { return (int)__popcnt64(x); }
#else
/* __popcnt64 needs the POPCNT instruction, which baseline x86-64 lacks: count by SWAR. */
CY_INLINE int cy_popcount(uint64_t x) {
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}
#endif
CY_INLINE int cy_ctz(uint64_t x) { unsigned long i; _BitScanForward64(&i, x); return (int)i; }
CY_INLINE int cy_msb(uint64_t x) { unsigned long i; _BitScanReverse64(&i, x); return (int)i; }
#include <stdlib.h>
CY_INLINE uint64_t cy_bswap64(uint64_t x) { return _byteswap_uint64(x); }
#else
CY_INLINE int cy_popcount(uint64_t x) { return __builtin_popcountll(x); }
CY_INLINE int cy_ctz(uint64_t x) { return __builtin_ctzll(x); }
CY_INLINE int cy_msb(uint64_t x) { return 63 - __builtin_clzll(x); }
CY_INLINE uint64_t cy_bswap64(uint64_t x) { return __builtin_bswap64(x); }
#endif

/* A hint that memory will be read soon (a table entry a child will probe): a no-op where
 * the compiler has no spelling for it. */
#if defined(_MSC_VER) && !defined(__clang__) && (defined(_M_X64) || defined(_M_IX86))
#include <xmmintrin.h>
#define cy_prefetch(p) _mm_prefetch((const char*)(p), _MM_HINT_T0)
#elif defined(__GNUC__) || defined(__clang__)
#define cy_prefetch(p) __builtin_prefetch((p))
#else
#define cy_prefetch(p) ((void)(p))
#endif

/* A monotonic clock in seconds, for search time limits. */
#if defined(_WIN32)
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#ifndef NOMINMAX
#define NOMINMAX
#endif
#include <windows.h>
CY_INLINE double cy_monotonic(void) {
    LARGE_INTEGER f, c;
    QueryPerformanceFrequency(&f);
    QueryPerformanceCounter(&c);
    return (double)c.QuadPart / (double)f.QuadPart;
}
#else
#include <time.h>
CY_INLINE double cy_monotonic(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
#endif

/* Zeroed memory for a large table that is read at random (the solver's transposition
 * table), aligned to 2 MB. On Linux the kernel is asked to back it with huge pages: with 4 KB
 * pages nearly every probe of a 64 MB table also misses the TLB, and the page walk, not the
 * read, is what the search waits for. cy_huge_alloc returns what cy_huge_free takes back
 * (NULL without the memory), its pages already committed with ``commit`` (else the first
 * write to each commits it); cy_huge_aligned gives the usable start. */
#define CY_HUGE_PAGE ((size_t)1 << 21)
CY_INLINE void* cy_huge_aligned(void* base) {
    return (void*)(((uintptr_t)base + CY_HUGE_PAGE - 1) & ~(uintptr_t)(CY_HUGE_PAGE - 1));
}
#if defined(_WIN32)
#include <stdlib.h>
CY_INLINE void* cy_huge_alloc(size_t bytes, int commit) {
    (void)commit;
    return calloc(1, bytes + CY_HUGE_PAGE);
}
CY_INLINE void cy_huge_free(void* base, size_t bytes) { (void)bytes; free(base); }
#else
#include <sys/mman.h>
#define CY_HUGE_TOUCHED ((size_t)1 << 28)   /* at most this much is committed at once */
CY_INLINE void* cy_huge_alloc(size_t bytes, int commit) {
    /* Anonymous pages read as zero. */
    void* base = mmap(NULL, bytes + CY_HUGE_PAGE, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANON, -1, 0);
    if (base == MAP_FAILED) return NULL;
    char* start = (char*)cy_huge_aligned(base);
    size_t at;
#if defined(MADV_HUGEPAGE)
    madvise(start, bytes, MADV_HUGEPAGE);
#endif
    /* Touch the pages now: the kernel zeroes them here, once (64 MB: tens of ms, up to a
     * tenth of a second the first time in a process), not inside the first solves, whose
     * speed the players time to know what a solve costs. Without ``commit`` (a move too
     * short to pay for it), and for a table larger than CY_HUGE_TOUCHED (table_bits above
     * 22, so that asking for one beyond the machine's memory cannot kill the process), the
     * pages are committed as they are used instead. */
    if (commit && bytes <= CY_HUGE_TOUCHED)
        for (at = 0; at < bytes; at += 4096) ((volatile char*)start)[at] = 0;
    return base;
}
CY_INLINE void cy_huge_free(void* base, size_t bytes) {
    if (base != NULL) munmap(base, bytes + CY_HUGE_PAGE);
}
#endif

/* A stop flag written by one thread and polled by a searching one. */
CY_INLINE int cy_load_flag(const volatile int *p) { return *p; }
CY_INLINE void cy_store_flag(volatile int *p, int v) { *p = v; }

/* Atomic updates for the shared-tree search: several threads update one node. */
#if defined(_MSC_VER) && !defined(__clang__)
CY_INLINE uint32_t cy_atomic_add32(volatile uint32_t *p, uint32_t v) {
    return (uint32_t)_InterlockedExchangeAdd((volatile long *)p, (long)v);
}
CY_INLINE int64_t cy_atomic_add64(volatile int64_t *p, int64_t v) {
    return _InterlockedExchangeAdd64((volatile __int64 *)p, v);
}
CY_INLINE uint8_t cy_atomic_or8(volatile uint8_t *p, uint8_t v) {
    return (uint8_t)_InterlockedOr8((volatile char *)p, (char)v);
}
CY_INLINE uint8_t cy_atomic_and8(volatile uint8_t *p, uint8_t v) {
    return (uint8_t)_InterlockedAnd8((volatile char *)p, (char)v);
}
CY_INLINE int cy_atomic_cas32(volatile uint32_t *p, uint32_t expected, uint32_t desired) {
    return (uint32_t)_InterlockedCompareExchange((volatile long *)p, (long)desired,
                                                 (long)expected) == expected;
}
CY_INLINE uint8_t cy_atomic_load8(const volatile uint8_t *p) {
    uint8_t v = *p; _ReadWriteBarrier(); return v;
}
CY_INLINE uint32_t cy_atomic_load32(const volatile uint32_t *p) {
    uint32_t v = *p; _ReadWriteBarrier(); return v;
}
CY_INLINE void cy_atomic_store32(volatile uint32_t *p, uint32_t v) {
    _InterlockedExchange((volatile long *)p, (long)v);
}
CY_INLINE void cy_atomic_add_double(volatile double *p, double v) {
    volatile __int64 *q = (volatile __int64 *)p;
    __int64 old = *q, seen;
    for (;;) {
        double d, sum;
        __int64 next;
        memcpy(&d, &old, 8); sum = d + v; memcpy(&next, &sum, 8);
        seen = _InterlockedCompareExchange64(q, next, old);
        if (seen == old) return;
        old = seen;
    }
}
#else
CY_INLINE uint32_t cy_atomic_add32(volatile uint32_t *p, uint32_t v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
CY_INLINE int64_t cy_atomic_add64(volatile int64_t *p, int64_t v) {
    return __atomic_fetch_add(p, v, __ATOMIC_RELAXED);
}
/* Or-ing a flag in with release order publishes everything written before it. */
CY_INLINE uint8_t cy_atomic_or8(volatile uint8_t *p, uint8_t v) {
    return __atomic_fetch_or(p, v, __ATOMIC_ACQ_REL);
}
CY_INLINE uint8_t cy_atomic_and8(volatile uint8_t *p, uint8_t v) {
    return __atomic_fetch_and(p, v, __ATOMIC_ACQ_REL);
}
CY_INLINE int cy_atomic_cas32(volatile uint32_t *p, uint32_t expected, uint32_t desired) {
    return __atomic_compare_exchange_n(p, &expected, desired, 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_RELAXED);
}
CY_INLINE uint8_t cy_atomic_load8(const volatile uint8_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
CY_INLINE uint32_t cy_atomic_load32(const volatile uint32_t *p) {
    return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}
/* A store with release order: what was written before it is seen by whoever loads it. */
CY_INLINE void cy_atomic_store32(volatile uint32_t *p, uint32_t v) {
    __atomic_store_n(p, v, __ATOMIC_RELEASE);
}
CY_INLINE void cy_atomic_add_double(volatile double *p, double v) {
    volatile uint64_t *q = (volatile uint64_t *)p;
    uint64_t old = __atomic_load_n(q, __ATOMIC_RELAXED), next;
    for (;;) {
        double d, sum;
        memcpy(&d, &old, 8); sum = d + v; memcpy(&next, &sum, 8);
        if (__atomic_compare_exchange_n(q, &old, next, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
            return;
    }
}
#endif

#endif
