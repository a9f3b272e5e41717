/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libxdtu.so.1 - xdt's own shared library, for the pid provider in
 * shared libraries (tests/guest/test_pid_dyn.py): guest/xdt-udyn.c links
 * against it, so the loader maps it before main.  Built -fPIC, -O1, with
 * frame pointers, DT_SONAME libxdtu.so.1, every function noipa so calls
 * are neither inlined nor changed.
 *
 *   xu_mid(x)    calls xu_leaf(x, 1) and xu_leaf(x, 2)
 *   xu_leaf(a, b) returns a * 10 + b
 *   xu_pid()     calls libc's getpid() once
 *   xu_hidden(x) a function the library does not export (hidden): only
 *                its .symtab names it, so a stripped copy has no symbol
 *                for it
 */
#include <unistd.h>

#define NOIPA __attribute__((noipa))

NOIPA long xu_leaf(long a, long b)
{
	return a * 10 + b;
}

NOIPA __attribute__((visibility("hidden"))) long xu_hidden(long x)
{
	return x + 1;
}

NOIPA long xu_mid(long x)
{
	return xu_leaf(x, 1) + xu_leaf(x, 2) + xu_hidden(0) - 1;
}

NOIPA long xu_pid(void)
{
	return getpid() > 0;
}
