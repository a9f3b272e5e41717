// SPDX-License-Identifier: GPL-2.0
/*
 * getppid-loop N [FUNC]: the benchmark's syscall trigger.  Calls
 * getppid(2) N times through syscall(2) (no libc caching) and prints the
 * loop's CLOCK_MONOTONIC time: "@gp n=N ns=T".  With FUNC, first waits
 * 0.2 s and copies FUNC's line of debugfs kprobes/list to /tmp/via (what
 * the kprobe is at trigger time).  Run directly, not from a shell: a shell
 * calls getppid itself (for $PPID), which would add one firing.  Built
 * statically by bench/run.py for the guest's ISA and pushed to /tmp.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long long now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, i;
	long long t0, t1;
	volatile long sink = 0;

	if (argc > 2) {
		struct timespec d = { 0, 200000000 };
		char line[512], want[256];
		FILE *in, *out;

		nanosleep(&d, NULL);
		snprintf(want, sizeof(want), " %s+", argv[2]);
		in = fopen("/sys/kernel/debug/kprobes/list", "r");
		out = fopen("/tmp/via", "w");
		while (in && out && fgets(line, sizeof(line), in))
			if (strstr(line, want))
				fputs(line, out);
		if (in)
			fclose(in);
		if (out)
			fclose(out);
	}
	t0 = now();
	for (i = 0; i < n; i++)
		sink += syscall(SYS_getppid);
	t1 = now();
	printf("@gp n=%ld ns=%lld\n", n, t1 - t0);
	return sink == 0;	/* getppid is never 0 here: exit 0 */
}
