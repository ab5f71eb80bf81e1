/* cy_threads.h: the few thread primitives the parallel solver needs (a mutex, a condition
 * variable, start and join), for POSIX threads and Windows.  No OpenMP: wheels stay free
 * of a runtime that the host interpreter may not have. */
#ifndef CYTHELLO_THREADS_H
#define CYTHELLO_THREADS_H

/* cy_platform.h gives CY_INLINE (no unused-function warnings where a module uses few of
 * these) and, on Windows, <windows.h> with its lean settings. */
#include "cy_platform.h"

#if defined(_WIN32)
#include <process.h>
#include <stdlib.h>

typedef CRITICAL_SECTION cy_mutex;
typedef CONDITION_VARIABLE cy_cond;
typedef HANDLE cy_thread;

CY_INLINE void cy_mutex_init(cy_mutex *m) { InitializeCriticalSection(m); }
CY_INLINE void cy_mutex_destroy(cy_mutex *m) { DeleteCriticalSection(m); }
CY_INLINE void cy_mutex_lock(cy_mutex *m) { EnterCriticalSection(m); }
CY_INLINE void cy_mutex_unlock(cy_mutex *m) { LeaveCriticalSection(m); }
CY_INLINE void cy_cond_init(cy_cond *c) { InitializeConditionVariable(c); }
CY_INLINE void cy_cond_destroy(cy_cond *c) { (void)c; }
CY_INLINE void cy_cond_wait(cy_cond *c, cy_mutex *m) { SleepConditionVariableCS(c, m, INFINITE); }
CY_INLINE void cy_cond_broadcast(cy_cond *c) { WakeAllConditionVariable(c); }

typedef struct { void (*fn)(void *); void *arg; } cy_thread_start;
CY_INLINE unsigned __stdcall cy_thread_trampoline(void *p) {
    cy_thread_start s = *(cy_thread_start *)p;
    free(p);
    s.fn(s.arg);
    return 0;
}
/* 0 on success. */
CY_INLINE int cy_thread_create(cy_thread *t, void (*fn)(void *), void *arg) {
    cy_thread_start *s = (cy_thread_start *)malloc(sizeof(cy_thread_start));
    if (!s) return -1;
    s->fn = fn;
    s->arg = arg;
    *t = (HANDLE)_beginthreadex(NULL, 0, cy_thread_trampoline, s, 0, NULL);
    if (!*t) { free(s); return -1; }
    return 0;
}
CY_INLINE void cy_thread_join(cy_thread t) { WaitForSingleObject(t, INFINITE); CloseHandle(t); }

#else
#include <pthread.h>
#include <stdlib.h>

typedef pthread_mutex_t cy_mutex;
typedef pthread_cond_t cy_cond;
typedef pthread_t cy_thread;

CY_INLINE void cy_mutex_init(cy_mutex *m) { pthread_mutex_init(m, NULL); }
CY_INLINE void cy_mutex_destroy(cy_mutex *m) { pthread_mutex_destroy(m); }
CY_INLINE void cy_mutex_lock(cy_mutex *m) { pthread_mutex_lock(m); }
CY_INLINE void cy_mutex_unlock(cy_mutex *m) { pthread_mutex_unlock(m); }
CY_INLINE void cy_cond_init(cy_cond *c) { pthread_cond_init(c, NULL); }
CY_INLINE void cy_cond_destroy(cy_cond *c) { pthread_cond_destroy(c); }
CY_INLINE void cy_cond_wait(cy_cond *c, cy_mutex *m) { pthread_cond_wait(c, m); }
CY_INLINE void cy_cond_broadcast(cy_cond *c) { pthread_cond_broadcast(c); }

typedef struct { void (*fn)(void *); void *arg; } cy_thread_start;
CY_INLINE void *cy_thread_trampoline(void *p) {
    cy_thread_start s = *(cy_thread_start *)p;
    free(p);
    s.fn(s.arg);
    return NULL;
}
/* 0 on success; a bigger stack than some platforms' default (the solver recurses). */
CY_INLINE int cy_thread_create(cy_thread *t, void (*fn)(void *), void *arg) {
    pthread_attr_t attr;
    cy_thread_start *s = (cy_thread_start *)malloc(sizeof(cy_thread_start));
    int rc;
    if (!s) return -1;
    s->fn = fn;
    s->arg = arg;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 8 << 20);
    rc = pthread_create(t, &attr, cy_thread_trampoline, s);
    pthread_attr_destroy(&attr);
    if (rc) { free(s); return -1; }
    return 0;
}
CY_INLINE void cy_thread_join(cy_thread t) { pthread_join(t, NULL); }
#endif

#endif
