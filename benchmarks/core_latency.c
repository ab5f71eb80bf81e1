/* core_latency.c: the round trip of a cache line between two threads, in nanoseconds.
 *
 * A shared search tree's nodes move between the cores' caches; how much that costs
 * depends on where the cores sit (on a virtual machine, on where the host placed them at
 * the time: 80 ns on one shared cache, 390 ns across chiplets on this project's machine).
 * bench_search.py prints it beside the tree-parallel scaling table.
 *
 *     cc -O2 -pthread core_latency.c -o core_latency && ./core_latency
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <time.h>

#define ROUNDS 1000000

static _Alignas(64) atomic_int ball;   /* 1: the other thread's turn, 0: main's */

static void *reply(void *unused) {
    (void)unused;
    for (int i = 0; i < ROUNDS; i++) {
        while (atomic_load_explicit(&ball, memory_order_acquire) != 1) {}
        atomic_store_explicit(&ball, 0, memory_order_release);
    }
    return NULL;
}

int main(void) {
    pthread_t other;
    struct timespec start, end;
    if (pthread_create(&other, NULL, reply, NULL) != 0) return 1;
    clock_gettime(CLOCK_MONOTONIC, &start);
    for (int i = 0; i < ROUNDS; i++) {
        atomic_store_explicit(&ball, 1, memory_order_release);
        while (atomic_load_explicit(&ball, memory_order_acquire) != 0) {}
    }
    clock_gettime(CLOCK_MONOTONIC, &end);
    pthread_join(other, NULL);
    printf("%.1f\n", ((end.tv_sec - start.tv_sec) * 1e9 + (end.tv_nsec - start.tv_nsec)) / ROUNDS);
    return 0;
}
