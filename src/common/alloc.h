/* SPDX-License-Identifier: Apache-2.0 */
/* The allocator wrapper every module uses, with fault injection for tests. */
#ifndef SPUR_COMMON_ALLOC_H
#define SPUR_COMMON_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Like malloc/calloc/realloc/strdup, but may be made to fail by
 * spur_alloc_fail_after(). The caller owns and frees with spur_free().
 * spur_realloc leaves the old block untouched when it fails. */
void *spur_malloc(size_t size);
void *spur_calloc(size_t n, size_t size);
void *spur_realloc(void *ptr, size_t size);
void *spur_reallocarray(void *ptr, size_t n, size_t size);
char *spur_strdup(const char *s);
char *spur_strndup(const char *s, size_t n);
char *spur_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *spur_vasprintf(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));
void spur_free(void *ptr);

/* Test hook: the allocation `n` calls from now fails (0 = the next one),
 * and every later one succeeds again. A negative n disarms. This is the one
 * piece of process-wide mutable state in libcommon, by design (as raft's
 * raft_heap_set): it exists only so unit tests can sweep failure points. */
void spur_alloc_fail_after(long n);

/* Allocations made since the process started (for sweep loops). */
unsigned long spur_alloc_count(void);

/* Grow *arr (of *cap elements of `size`) to hold at least `need` elements.
 * Returns 0 or SPUR_ENOMEM; on failure *arr and *cap are unchanged. */
int spur_grow(void **arr, size_t *cap, size_t need, size_t size);

#endif
