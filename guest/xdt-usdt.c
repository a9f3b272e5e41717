// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-usdt: a program with USDT probes, shipped in every guest
 * (docs/d-language.md, "User space"; tests/guest/test_usdt.py).
 *
 * Provider xdt_usdt comes from dtrace -h's header for guest/xdt_usdt.d
 * (no other tool, no link step); provider xdt_sdt from systemtap's own
 * <sys/sdt.h> (Debian's systemtap-sdt-dev), the format both are read in.
 *
 *   xdt-usdt [N]	N rounds (default 3), then prints how many rounds
 *			saw query-start enabled (its semaphore set)
 */
#include <stdio.h>
#include <stdlib.h>
/* systemtap's semaphores are the program's to define (its dtrace -G's job) */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include "xdt_usdt.h"

unsigned short xdt_sdt_step_semaphore __attribute__((section(".probes")));
unsigned short xdt_sdt_global_semaphore __attribute__((section(".probes")));

static long counter = 100;
long gcount;		/* read from memory: x86's operand is gcount(%rip) */
static int enabled;

static __attribute__((noinline)) void work(int i, const char *s)
{
	XDT_USDT_TICK(i, counter, s);
	if (XDT_USDT_QUERY_START_ENABLED())
		enabled++;
	XDT_USDT_QUERY_START(s, (unsigned short)(i + 65530));
	XDT_USDT_NEG(-2 - i, -300);
	counter += 10;
}

/* Unoptimised: its arguments are memory operands (-20(%rbp), [sp, 12]). */
static __attribute__((noinline, optimize("O0"))) void slow(int i)
{
	long v = counter + i;
	const char *s = "slow";

	XDT_USDT_TICK(i, v, s);
}

static __attribute__((noinline)) void sdt_work(int i)
{
	long v = (long)i * -3;

	STAP_PROBE2(xdt_sdt, step, i, v);
	STAP_PROBE1(xdt_sdt, global, gcount);
	if (xdt_sdt_step_semaphore)
		enabled += 1000;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3, i;
	char q[32];

	for (i = 0; i < n; i++) {
		snprintf(q, sizeof(q), "query-%d", i);
		work(i, q);
		gcount = 7 * i;
		sdt_work(i);
		slow(i);
		if (i == n - 1)
			XDT_USDT_DONE(1);	/* two sites of one probe */
	}
	XDT_USDT_DONE(2);
	printf("enabled %d\n", enabled);
	return 0;
}
