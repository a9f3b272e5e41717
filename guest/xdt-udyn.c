/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt-udyn - the pid provider's dynamically linked target
 * (tests/guest/test_pid_dyn.py): linked against xdt's own libxdtu.so.1
 * (guest/xdt-ulib.c) and Debian's libc, both mapped by the loader before
 * main, it calls the library's functions a known number of times.  PIE,
 * -O1, frame pointers, as the library.
 *
 *   xdt-udyn calls N     xu_mid(i) for i in 1..N (each: xu_leaf twice,
 *                        xu_hidden once), then xu_pid() N times (libc's
 *                        getpid() N times)
 *   xdt-udyn wait ...    says "waiting PID", waits for SIGUSR1 first
 *                        (dtrace -p), then as above
 *   xdt-udyn dlopen N    dlopen()s libxdtu2.so.1 (guest/xdt-ulib2.c),
 *                        says "loaded", and calls its xu2_late N times
 *                        (each: getpid() once): a library that appears
 *                        after tracing started (dtrace -c makes its
 *                        probes at the entry point); then lingers 1 s, so
 *                        a consumer reads its objects while it lives
 */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

long xu_leaf(long a, long b);
long xu_mid(long x);
long xu_pid(void);

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void wait_usr1(void)
{
	sigset_t none;

	sigemptyset(&none);
	printf("waiting %d\n", (int)getpid());
	fflush(stdout);
	while (!go)
		sigsuspend(&none);
}

int main(int argc, char **argv)
{
	long n, i, sum = 0;
	int k = 1;

	signal(SIGUSR1, on_usr1);
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		wait_usr1();
		k++;
	}
	if (argc < k + 2) {
		fprintf(stderr, "usage: xdt-udyn [wait] calls|dlopen N\n");
		return 2;
	}
	n = atol(argv[k + 1]);
	if (!strcmp(argv[k], "calls")) {
		for (i = 1; i <= n; i++)
			sum += xu_mid(i);
		for (i = 1; i <= n; i++)
			sum += xu_pid();
	} else if (!strcmp(argv[k], "dlopen")) {
		void *h = dlopen("libxdtu2.so.1", RTLD_NOW);
		long (*late)(long) = h ? (long (*)(long))dlsym(h, "xu2_late") :
				     NULL;

		if (!late) {
			fprintf(stderr, "xdt-udyn: %s\n", dlerror());
			return 1;
		}
		printf("loaded\n");
		fflush(stdout);
		for (i = 1; i <= n; i++)
			sum += late(i);
		sleep(1);
	} else {
		fprintf(stderr, "xdt-udyn: unknown mode %s\n", argv[k]);
		return 2;
	}
	printf("sum %ld\n", sum);
	return 0;
}
