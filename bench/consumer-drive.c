// SPDX-License-Identifier: GPL-2.0
/*
 * consumer-drive: the workloads and the stopwatch of bench/consumer.py.
 * Built statically for the guest's ISA; every time is CLOCK_MONOTONIC,
 * the clock of xdt's `timestamp` and bpftrace's `nsecs` as well.
 *
 *   consumer-drive rate R MS    getppid(2) R times a second for MS ms,
 *                               paced per millisecond (R/1000 calls, then
 *                               sleep to the next millisecond); prints
 *                               "@rate calls=N ns=T"
 *   consumer-drive keys N       getpgid(i) for i = 1..N (N distinct
 *                               syscall arguments); prints "@keys n= ns="
 *   consumer-drive now          prints the clock
 *   consumer-drive spawn OUT ERR PIDFILE CMD...
 *                               runs CMD with stdout to OUT and stderr to
 *                               ERR; writes its pid to PIDFILE and the
 *                               clock just before the exec; waits for it
 *                               and prints "@spawn exec_ns= end_ns=
 *                               status= maxrss_kb=" (ru_maxrss: the
 *                               tool's peak RSS, synced at exit, unlike
 *                               6.1's /proc status counters of a live
 *                               small process).
 *
 * The loops call syscall(2) directly: no libc caching of the result.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int rate(long r, long ms)
{
	long long t0 = now(), next = t0, calls = 0, owed = 0;
	volatile long sink = 0;
	long i, k;

	for (i = 0; i < ms; i++) {
		struct timespec ts;

		/* whole calls owed so far: r * (i + 1) / 1000 */
		k = (long)(r * (i + 1) / 1000 - owed);
		owed += k;
		while (k-- > 0) {
			sink += syscall(SYS_getppid);
			calls++;
		}
		next += 1000000;
		ts.tv_sec = next / 1000000000LL;
		ts.tv_nsec = next % 1000000000LL;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	printf("@rate calls=%lld ns=%lld\n", calls, now() - t0);
	return sink == 0;
}

static int keys(long n)
{
	long long t0 = now();
	long i;

	for (i = 1; i <= n; i++)
		syscall(SYS_getpgid, i);
	printf("@keys n=%ld ns=%lld\n", n, now() - t0);
	return 0;
}

static int spawn(char **argv)
{
	long long stamp = 0, end;
	struct rusage ru;
	int status = 0, fd[2];
	pid_t p;
	FILE *f;

	/* the child's clock just before its exec comes back through a pipe */
	if (pipe(fd) < 0)
		return 2;
	p = fork();
	if (p < 0)
		return 2;
	if (p == 0) {
		int o = open(argv[0], O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int e = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC, 0644);

		if (o < 0 || e < 0)
			_exit(127);
		dup2(o, 1);
		dup2(e, 2);
		close(o);
		close(e);
		close(fd[0]);
		stamp = now();
		if (write(fd[1], &stamp, sizeof(stamp)) != sizeof(stamp))
			_exit(127);
		close(fd[1]);
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	close(fd[1]);
	if (read(fd[0], &stamp, sizeof(stamp)) != sizeof(stamp))
		stamp = 0;
	close(fd[0]);
	f = fopen(argv[2], "w");
	if (f) {
		fprintf(f, "%d\n", (int)p);
		fclose(f);
	}
	while (wait4(p, &status, 0, &ru) < 0)
		;
	end = now();
	printf("@spawn exec_ns=%lld end_ns=%lld status=%d maxrss_kb=%ld "
	       "cpu_us=%lld\n", stamp, end, WIFEXITED(status) ?
	       WEXITSTATUS(status) : 128 + WTERMSIG(status), ru.ru_maxrss,
	       (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000LL +
	       ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "rate"))
		return rate(atol(argv[2]), atol(argv[3]));
	if (argc >= 3 && !strcmp(argv[1], "keys"))
		return keys(atol(argv[2]));
	if (argc >= 2 && !strcmp(argv[1], "now")) {
		printf("%lld\n", now());
		return 0;
	}
	if (argc >= 6 && !strcmp(argv[1], "spawn"))
		return spawn(argv + 2);
	fprintf(stderr, "usage: consumer-drive rate R MS | keys N | now | "
		"spawn OUT ERR PIDFILE CMD...\n");
	return 2;
}
