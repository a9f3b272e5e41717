// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth for a user-space process, as the kernel's
 * /proc/self/task/<tid>/fail-nth is for its allocations: preloaded
 * (LD_PRELOAD), it makes the XDT_FAILNTH'th call of malloc, calloc or
 * realloc in the process fail (NULL, errno ENOMEM) and every other one
 * succeed.  The host tests run a libxdt user once for each allocation it
 * makes, to show that each failure comes back as an error value and
 * nothing crashes or exits.  XDT_FAILNTH=0 fails nothing and prints, at
 * exit, how many allocations there were ("failnth: N allocations").
 * glibc routes its own allocations (strdup, stdio, ...) through these
 * too, which is what makes preloading them enough.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static long nth = -1, count;

static int fail(void)
{
	if (nth < 0) {
		const char *e = getenv("XDT_FAILNTH");

		nth = e ? atol(e) : 0;
	}
	if (++count == nth) {
		errno = ENOMEM;
		return 1;
	}
	return 0;
}

void *malloc(size_t n)
{
	return fail() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
	return fail() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
	return fail() ? NULL : __libc_realloc(p, n);
}

__attribute__((destructor)) static void report(void)
{
	char line[64];
	int len;

	if (nth != 0)
		return;
	len = snprintf(line, sizeof(line), "failnth: %ld allocations\n", count);
	if (write(2, line, (size_t)len) < 0)
		return;
}
