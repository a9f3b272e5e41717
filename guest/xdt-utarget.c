/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt-utarget - a user-space program whose calls are known, for the pid
 * provider's tests (tests/guest/test_pid.py): every function below is
 * called an exact number of times with known arguments and returns a
 * known value.  Built static, -O1, with frame pointers, and each function
 * noipa so the compiler neither inlines it nor changes its arguments.
 *
 *   xdt-utarget calls N   ut_mid(i) for i in 1..N; ut_mid calls ut_leaf
 *                         twice: ut_leaf(i, 1), ut_leaf(i, 2); then
 *                         ut_args8(1, ..., 8) once (arguments past the
 *                         registers on x86_64: on the stack)
 *   xdt-utarget fork N    the child calls ut_leaf N times, then the
 *                         parent (after the child exits) 3 times
 *   xdt-utarget wait ...  waits for SIGUSR1 first (dtrace -p tests)
 *   xdt-utarget exec PROG ARGS...  says "waiting", then on SIGUSR1 execs
 *                         PROG (a process whose image changes)
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOIPA __attribute__((noipa))

NOIPA long ut_leaf(long a, long b)
{
	return a * 10 + b;
}

NOIPA long ut_mid(long x)
{
	return ut_leaf(x, 1) + ut_leaf(x, 2);
}

NOIPA long ut_args8(long a, long b, long c, long d, long e, long f, long g,
		    long h)
{
	return a + b + c + d + e + f + g + h;
}

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

int main(int argc, char **argv)
{
	long n, i, sum = 0;
	int k = 1;

	if (argc > 2 && !strcmp(argv[1], "exec")) {
		sigset_t none;

		signal(SIGUSR1, on_usr1);
		sigemptyset(&none);
		printf("waiting %d\n", (int)getpid());
		fflush(stdout);
		while (!go)
			sigsuspend(&none);
		execv(argv[2], argv + 2);
		perror("xdt-utarget: exec");
		return 1;
	}
	if (argc > 1 && !strcmp(argv[1], "wait")) {
		sigset_t none;

		signal(SIGUSR1, on_usr1);
		sigemptyset(&none);
		printf("waiting %d\n", (int)getpid());
		fflush(stdout);
		while (!go)
			sigsuspend(&none);
		k++;
	}
	if (argc < k + 2) {
		fprintf(stderr, "usage: xdt-utarget [wait] calls|fork N\n");
		return 2;
	}
	n = atol(argv[k + 1]);
	if (!strcmp(argv[k], "calls")) {
		for (i = 1; i <= n; i++)
			sum += ut_mid(i);
		sum += ut_args8(1, 2, 3, 4, 5, 6, 7, 8);
	} else if (!strcmp(argv[k], "fork")) {
		pid_t c = fork();

		if (c < 0)
			return 1;
		if (c == 0) {
			for (i = 0; i < n; i++)
				sum += ut_leaf(i, 0);
			_exit(0);
		}
		waitpid(c, NULL, 0);
		for (i = 0; i < 3; i++)
			sum += ut_leaf(i, 0);
	} else {
		fprintf(stderr, "xdt-utarget: unknown mode %s\n", argv[k]);
		return 2;
	}
	printf("sum %ld\n", sum);
	return 0;
}
