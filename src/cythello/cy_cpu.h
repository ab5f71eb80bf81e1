/* cy_cpu.h: does this CPU (and its operating system) run the x86-64-v3 build of the
 * playouts: AVX2, BMI1, BMI2 and POPCNT?  0 on every other architecture. */
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
    /* POPCNT, OSXSAVE and AVX in ECX; the OS must save the YMM state (XCR0 bits 1-2). */
    if (!((r[2] >> 23) & 1) || !((r[2] >> 27) & 1) || !((r[2] >> 28) & 1)) return 0;
    if ((_xgetbv(0) & 6) != 6) return 0;
    __cpuidex(r, 7, 0);
    return ((r[1] >> 5) & 1) && ((r[1] >> 3) & 1) && ((r[1] >> 8) & 1);  /* AVX2, BMI1, BMI2 */
}
#else
static int cy_cpu_has_v3(void) {
    /* libgcc / compiler-rt check the OS's XSAVE support for the AVX features too. */
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi")
        && __builtin_cpu_supports("bmi2") && __builtin_cpu_supports("popcnt");
}
#endif
#else
static int cy_cpu_has_v3(void) { return 0; }
#endif

#endif
