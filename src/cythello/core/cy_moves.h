/* cy_moves.h: the legal moves of a position and the discs a move turns over, the innermost
 * steps of every search.
 *
 * Two spellings of each, chosen when a module is compiled: the x86-64-v3 twins (built with
 * AVX2, see setup.py) search the four lines (east-west, north-south, the two diagonals) at
 * once in the lanes of a 256-bit register; every other build goes one direction at a time.
 * Both return the same masks for every position: tests/test_builds.py holds the two builds
 * to the same playouts and the same solves, node for node. */
#ifndef CYTHELLO_MOVES_H
#define CYTHELLO_MOVES_H
#include <stdint.h>
#include "cy_platform.h"
#include "cy_rays.h"

/* Runs of opponent discs: shifting by 1 (a row), 8 (a column), 7 and 9 (the diagonals). A
 * run along a row or a diagonal may not wrap from the h-file to the a-file, so there the
 * opponent's discs are masked to files b-g. Runs are filled in four steps, up to 6 discs:
 * the longest run a disc can outflank. */

#if defined(__AVX2__)
#include <immintrin.h>

/* 1 where cy_flips is this vector spelling: cheap enough that a caller may call it on a
 * square that flips nothing rather than guess a branch to skip it. */
#define CY_FLIPS_VECTOR 1

CY_INLINE __m256i cy_line_shifts(void) { return _mm256_set_epi64x(9, 7, 8, 1); }
CY_INLINE __m256i cy_line_masks(void) {
    return _mm256_set_epi64x((int64_t)CY_INNER_FILES, (int64_t)CY_INNER_FILES, -1,
                             (int64_t)CY_INNER_FILES);
}
CY_INLINE uint64_t cy_or_lanes(__m256i v) {
    __m128i half = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256(v, 1));
    return (uint64_t)_mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half)));
}

/* v shifted by s in each lane, toward higher indices (up) or lower ones; up is a constant
 * at every call, so the branch folds away. */
CY_INLINE __m256i cy_shift(__m256i v, __m256i s, int up) {
    return up ? _mm256_sllv_epi64(v, s) : _mm256_srlv_epi64(v, s);
}

/* In each lane, the run of o that starts next to a bit of from, in one direction. */
CY_INLINE __m256i cy_run(__m256i o, __m256i from, __m256i s, int up) {
    __m256i s2 = _mm256_add_epi64(s, s);
    __m256i pairs = _mm256_and_si256(o, cy_shift(o, s, up));
    __m256i run = _mm256_and_si256(o, cy_shift(from, s, up));
    run = _mm256_or_si256(run, _mm256_and_si256(o, cy_shift(run, s, up)));
    run = _mm256_or_si256(run, _mm256_and_si256(pairs, cy_shift(run, s2, up)));
    return _mm256_or_si256(run, _mm256_and_si256(pairs, cy_shift(run, s2, up)));
}

/* The empty squares where the side owning P may play: beyond a run of O that starts next
 * to a disc of P. */
CY_INLINE uint64_t cy_legal_moves(uint64_t P, uint64_t O) {
    const __m256i s = cy_line_shifts();
    __m256i p = _mm256_set1_epi64x((int64_t)P);
    __m256i o = _mm256_and_si256(_mm256_set1_epi64x((int64_t)O), cy_line_masks());
    __m256i up = cy_shift(cy_run(o, p, s, 1), s, 1);
    __m256i down = cy_shift(cy_run(o, p, s, 0), s, 0);
    return cy_or_lanes(_mm256_or_si256(up, down)) & ~(P | O);
}

/* The discs of O turned over by a disc of P on the empty square sq, the four rays that run
 * toward higher indices in one register and the four toward lower ones in another (the
 * 64 bytes of CY_RAYS[sq]).  Toward higher indices a run ends at the lowest square of the
 * ray that is not the opponent's (x & -x); toward lower ones at the highest, found by
 * filling those squares down the ray (three shifts cover its 7 squares): the ray's squares
 * above the fill are the run.  A run flips when the square that ends it holds a disc of P.
 * Shorter than filling runs out from sq as cy_legal_moves does: the search calls it at
 * every node. */
CY_INLINE uint64_t cy_flips(uint64_t P, uint64_t O, int sq) {
    const __m256i s = _mm256_set_epi64x(7, 9, 8, 1);       /* SW, SE, S, E / NE, NW, N, W */
    const __m256i s2 = _mm256_add_epi64(s, s), s4 = _mm256_add_epi64(s2, s2);
    const __m256i zero = _mm256_setzero_si256();
    __m256i p = _mm256_set1_epi64x((int64_t)P), o = _mm256_set1_epi64x((int64_t)O);
    __m256i up = _mm256_loadu_si256((const __m256i*)CY_RAYS[sq]);
    __m256i down = _mm256_loadu_si256((const __m256i*)(CY_RAYS[sq] + 4));
    __m256i stop = _mm256_andnot_si256(o, up);
    __m256i first = _mm256_and_si256(stop, _mm256_sub_epi64(zero, stop));
    __m256i f_up = _mm256_and_si256(up, _mm256_add_epi64(first, _mm256_cmpeq_epi64(zero, zero)));
    f_up = _mm256_andnot_si256(_mm256_cmpeq_epi64(_mm256_and_si256(first, p), zero), f_up);
    stop = _mm256_andnot_si256(o, down);
    __m256i fill = _mm256_or_si256(stop, _mm256_srlv_epi64(stop, s));
    fill = _mm256_or_si256(fill, _mm256_srlv_epi64(fill, s2));
    fill = _mm256_or_si256(fill, _mm256_srlv_epi64(fill, s4));
    __m256i last = _mm256_andnot_si256(_mm256_srlv_epi64(fill, s), stop);
    __m256i f_down = _mm256_andnot_si256(fill, down);
    f_down = _mm256_andnot_si256(_mm256_cmpeq_epi64(_mm256_and_si256(last, p), zero), f_down);
    return cy_or_lanes(_mm256_or_si256(f_up, f_down));
}

#else

#define CY_FLIPS_VECTOR 0

/* The runs of M that start next to a disc of P, growing toward higher bits (shift s) or
 * lower ones; the square after each run is a target. */
CY_INLINE uint64_t cy_targets_up(uint64_t P, uint64_t M, int s) {
    uint64_t run = M & (P << s), pairs = M & (M << s);
    run |= M & (run << s);
    run |= pairs & (run << (2 * s));
    run |= pairs & (run << (2 * s));
    return run << s;
}

CY_INLINE uint64_t cy_targets_down(uint64_t P, uint64_t M, int s) {
    uint64_t run = M & (P >> s), pairs = M & (M >> s);
    run |= M & (run >> s);
    run |= pairs & (run >> (2 * s));
    run |= pairs & (run >> (2 * s));
    return run >> s;
}

CY_INLINE uint64_t cy_legal_moves(uint64_t P, uint64_t O) {
    uint64_t inner = O & CY_INNER_FILES;
    uint64_t t = cy_targets_up(P, inner, 1) | cy_targets_down(P, inner, 1)
               | cy_targets_up(P, O, 8) | cy_targets_down(P, O, 8)
               | cy_targets_up(P, inner, 7) | cy_targets_down(P, inner, 7)
               | cy_targets_up(P, inner, 9) | cy_targets_down(P, inner, 9);
    return t & ~(P | O);
}

CY_INLINE uint64_t cy_flips(uint64_t P, uint64_t O, int sq) {
    uint64_t result = 0, ray, stop;
    int d;
    /* Toward higher indices the first square that is not the opponent's is the lowest set
     * bit of the ray without them. */
    for (d = 0; d < 4; d++) {
        ray = CY_RAYS[sq][d];
        stop = ray & ~O;
        stop &= (0 - stop);
        result |= ray & (stop - 1) & (0 - (uint64_t)((stop & P) != 0));
    }
    /* Toward lower indices it is the highest set bit (bit 0 stands in for "none"). */
    for (d = 4; d < 8; d++) {
        ray = CY_RAYS[sq][d];
        stop = (uint64_t)1 << cy_msb((ray & ~O) | 1);
        result |= ray & ~((stop << 1) - 1) & (0 - (uint64_t)((stop & P & ray) != 0));
    }
    return result;
}

#endif
#endif
