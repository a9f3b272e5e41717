// SPDX-License-Identifier: GPL-2.0
/*
 * read-loop N: N one-byte read(2)s of /dev/zero -- N calls of the kernel's
 * read_zero(), and in the lab guest nothing else reads /dev/zero -- and the
 * loop's CLOCK_MONOTONIC time: "@rl n=N ns=T".  The kgdb study's trigger
 * for probes on a vmlinux function (bench/kgdbstudy.py): riscv64 6.1 hangs
 * when kgdb writes a breakpoint into read-only module text, so debugger
 * breakpoints go on read_zero rather than the bench module's target.
 * Built statically for the guest's ISA by bench/kgdbstudy.py.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
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
	int fd = open("/dev/zero", O_RDONLY);
	long long t0, t1;
	char c;

	if (fd < 0) {
		perror("/dev/zero");
		return 1;
	}
	t0 = now();
	for (i = 0; i < n; i++)
		if (read(fd, &c, 1) != 1) {
			perror("read");
			return 1;
		}
	t1 = now();
	printf("@rl n=%ld ns=%lld\n", n, t1 - t0);
	return 0;
}
