/* cy_platform.h: the few non-portable primitives cythello needs, for gcc, clang and MSVC.
 * Baseline instruction sets only: wheels must run on any CPU of their platform. */
#ifndef CYTHELLO_PLATFORM_H
#define CYTHELLO_PLATFORM_H
#include <stdint.h>

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

/* A stop flag written by one thread and polled by a searching one. */
CY_INLINE int cy_load_flag(const volatile int *p) { return *p; }
CY_INLINE void cy_store_flag(volatile int *p, int v) { *p = v; }

#endif
