/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libxdtu2.so.1 - the library guest/xdt-udyn.c loads with dlopen() when
 * asked (not a DT_NEEDED of anything): an object that appears in a
 * process after tracing started.  Built as libxdtu.so.1 is.
 */
#include <unistd.h>

#define NOIPA __attribute__((noipa))

/* libc's getpid() once: a frame of this library under a libc probe */
NOIPA long xu2_late(long x)
{
	return x * 2 + (getpid() > 0) - 1;
}
