/* SPDX-License-Identifier: Apache-2.0 */
/* Owns the allocation fault-injection counter. */
#include "alloc.h"

#include "error.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static long fail_countdown = -1;
static unsigned long alloc_calls;

static int alloc_should_fail(void)
{
	alloc_calls++;
	if (fail_countdown < 0)
		return 0;
	if (fail_countdown-- == 0)
		return 1;
	return 0;
}

void spur_alloc_fail_after(long n)
{
	fail_countdown = n;
}

unsigned long spur_alloc_count(void)
{
	return alloc_calls;
}

void *spur_malloc(size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return malloc(size ? size : 1);
}

void *spur_calloc(size_t n, size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return calloc(n ? n : 1, size ? size : 1);
}

void *spur_realloc(void *ptr, size_t size)
{
	if (alloc_should_fail())
		return NULL;
	return realloc(ptr, size ? size : 1);
}

void *spur_reallocarray(void *ptr, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return NULL;
	return spur_realloc(ptr, n * size);
}

char *spur_strndup(const char *s, size_t n)
{
	size_t len = strnlen(s, n);
	char *p = spur_malloc(len + 1);

	if (!p)
		return NULL;
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

char *spur_strdup(const char *s)
{
	return spur_strndup(s, SIZE_MAX);
}

char *spur_vasprintf(const char *fmt, va_list ap)
{
	va_list ap2;
	int len;
	char *p;

	va_copy(ap2, ap);
	len = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (len < 0)
		return NULL;
	p = spur_malloc((size_t)len + 1);
	if (!p)
		return NULL;
	vsnprintf(p, (size_t)len + 1, fmt, ap);
	return p;
}

char *spur_asprintf(const char *fmt, ...)
{
	va_list ap;
	char *p;

	va_start(ap, fmt);
	p = spur_vasprintf(fmt, ap);
	va_end(ap);
	return p;
}

void spur_free(void *ptr)
{
	free(ptr);
}

int spur_grow(void **arr, size_t *cap, size_t need, size_t size)
{
	size_t ncap;
	void *p;

	if (need <= *cap)
		return 0;
	ncap = *cap ? *cap : 8;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			return SPUR_ENOMEM;
		ncap *= 2;
	}
	p = spur_reallocarray(*arr, ncap, size);
	if (!p)
		return SPUR_ENOMEM;
	*arr = p;
	*cap = ncap;
	return 0;
}
