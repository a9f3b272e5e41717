// SPDX-License-Identifier: GPL-2.0
/*
 * ucall-loop N: the benchmark's user-space trigger.  Calls the noinline
 * ucall_target(i, 1) N times and prints the loop's CLOCK_MONOTONIC time:
 * "@uc n=N ns=T sum=S".  (ucall-loop now: prints CLOCK_MONOTONIC, "@now
 * NS", and exits.)  ucall_target holds one USDT probe made with
 * systemtap's <sys/sdt.h>, xdt_bench:hit(a, b): its .note.stapsdt note
 * names the site (a nop) that xdt's `xdt_bench$target:::hit` and the
 * uprobe + BPF baseline at the note's address both probe.  Built
 * statically by bench/benchlib.py (build_ucall: -O1
 * -fno-omit-frame-pointer, sdt.h from a copy in the bench's bin
 * directory) for the guest's ISA and pushed to /tmp.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sys/sdt.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/*
 * The probed function.  noinline and noclone keep one out-of-line copy
 * under its own symbol, which the pid provider and the uprobe baselines
 * find by name; the sdt.h probe's asm volatile keeps every call (the
 * function is not pure), and the sum it returns is used, so -O1 can
 * neither drop a call nor hoist one out of the loop.  Not static: the
 * symbol stays global, as a program's functions usually are.
 */
__attribute__((noinline, noclone)) long ucall_target(long a, long b);

__attribute__((noinline, noclone)) long ucall_target(long a, long b)
{
	long r = a + b;

	/*
	 * The empty asm takes r as an operand, so the add comes first, and
	 * it is volatile, so the probe's volatile asm stays after it: the
	 * function's first instruction is ordinary code and the USDT site
	 * (a nop) a later one, as in most programs.  Without it gcc puts
	 * the nop first on x86_64 and aarch64, and the entry probe and the
	 * USDT probe would be one site, which uprobes handles alike.
	 */
	__asm__ volatile("" : "+r"(r));
	STAP_PROBE2(xdt_bench, hit, a, b);
	return r;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	long long t0, t1;
	long sum = 0;

	/* "now": the guest's CLOCK_MONOTONIC, the clock D's timestamp reads,
	 * for the pid enable/disable test's stamps around dtrace. */
	if (argc > 1 && !strcmp(argv[1], "now")) {
		printf("@now %lld\n", now());
		return 0;
	}
	t0 = now();
	for (i = 0; i < n; i++)
		sum += ucall_target(i, 1);
	t1 = now();
	/* sum = N(N+1)/2: printed so the calls' results are used, and so a
	 * reader can see the loop ran its N calls. */
	printf("@uc n=%ld ns=%lld sum=%ld\n", n, t1 - t0, sum);
	return 0;
}
