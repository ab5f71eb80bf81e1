/* cy_cpu.h: does this CPU (and its operating system) run the x86-64-v3 build of the
 * playouts: AVX2, BMI1, BMI2 and POPCNT?  0 on every other architecture.  CPUID and
 * XGETBV are read directly, so nothing from libgcc or compiler-rt has to be linked and
 * the portable module builds the same with gcc, clang and MSVC, on glibc, musl and macOS. */
#ifndef CYTHELLO_CPU_H
#define CYTHELLO_CPU_H

#if defined(__x86_64__) || defined(_M_X64) || defined(_M_AMD64)

#if defined(_MSC_VER) && !defined(__clang__)
#include <intrin.h>
static int cy_cpu_has_v3(void) {
    int r[4];
    __cpuid(r, 0);
    if (r[0] < 7) return 0;
    __cpuid(r, 1);
    /* POPCNT (bit 23), OSXSAVE (27) and AVX (28) in ECX of leaf 1. */
    if (!((r[2] >> 23) & 1) || !((r[2] >> 27) & 1) || !((r[2] >> 28) & 1)) return 0;
    if ((_xgetbv(0) & 6) != 6) return 0;   /* the OS saves the XMM and YMM state */
    __cpuidex(r, 7, 0);
    return ((r[1] >> 5) & 1) && ((r[1] >> 3) & 1) && ((r[1] >> 8) & 1);  /* AVX2, BMI1, BMI2 */
}
#else
#include <cpuid.h>
static int cy_cpu_has_v3(void) {
    unsigned int a, b, c, d, xcr0_lo, xcr0_hi;
    if (__get_cpuid_max(0, 0) < 7 || !__get_cpuid(1, &a, &b, &c, &d)) return 0;
    /* POPCNT (bit 23), OSXSAVE (27) and AVX (28) in ECX of leaf 1. */
    if (!((c >> 23) & 1) || !((c >> 27) & 1) || !((c >> 28) & 1)) return 0;
    __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
    (void)xcr0_hi;
    if ((xcr0_lo & 6) != 6) return 0;      /* the OS saves the XMM and YMM state */
    __cpuid_count(7, 0, a, b, c, d);
    return ((b >> 5) & 1) && ((b >> 3) & 1) && ((b >> 8) & 1);   /* AVX2, BMI1, BMI2 */
}
#endif

#else
static int cy_cpu_has_v3(void) { return 0; }
#endif

#endif
