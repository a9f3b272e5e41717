// SPDX-License-Identifier: GPL-2.0
/*
 * sysc: known system calls for the syscall provider's tests, made with
 * syscall(2) so libc neither caches nor adds any.  Run directly, not from
 * a shell (a shell makes calls of its own).
 *
 *   sysc getppid N      N getppid(2) calls
 *   sysc read N         open /dev/zero, one read(fd, buf, N); prints "fd=F"
 *   sysc openat PATH    one openat(AT_FDCWD, PATH, O_RDONLY); prints
 *                       "ret=R errno=E"
 *   sysc openat-quiet PATH  the same, printing nothing (for tests whose
 *                       stdout is dtrace's alone)
 *   sysc openat-untouched N  one openat(2) of a path in a fresh anonymous
 *                       mapping nothing has touched yet (no page behind it
 *                       until the kernel's own copy faults one in);
 *                       prints nothing
 *   sysc write-bad N    one write(-1, buf, N) of N dots (it fails: EBADF),
 *                       then prints buf (what a copyout() left there)
 *   sysc exec N         exec itself N times (then exits 0)
 *   sysc spin N         spin in user mode for N iterations (0: forever)
 *   sysc direct PATH B N  N reads of B bytes from PATH opened O_DIRECT
 *                       (B a multiple of the device's block size; buf is
 *                       page-aligned); prints nothing, exits 1 on a short
 *                       read
 *   sysc threads T N [R [MS]]  T threads (clone(2) with a shared address
 *                       space, no libc thread library needed), each makes
 *                       N one-byte read(2) calls of /dev/zero, all at
 *                       once; R rounds of them, each MS milliseconds after
 *                       the last round's threads have exited
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[1 << 16] __attribute__((aligned(4096)));

static volatile int go;
static long nreads;
static int zero_fd;

static int reader(void *arg)
{
	char c;

	(void)arg;
	while (!go)
		;
	for (long i = 0; i < nreads; i++)
		if (syscall(SYS_read, zero_fd, &c, 1) != 1)
			return 1;
	return 0;
}

/*
 * T readers as threads of one process (CLONE_VM | CLONE_THREAD), started
 * together so they run on every vCPU at once; the main thread waits for
 * each through CLONE_CHILD_CLEARTID's futex word.
 */
static int threads(long t, long n)
{
	static char stacks[16][1 << 16];
	static volatile pid_t tids[16];
	int flags = CLONE_VM | CLONE_FS | CLONE_FILES | CLONE_SIGHAND |
		    CLONE_THREAD | CLONE_SYSVSEM | CLONE_CHILD_CLEARTID;

	if (t < 1 || t > 16)
		return 2;
	nreads = n;
	go = 0;
	if (zero_fd <= 0)
		zero_fd = open("/dev/zero", O_RDONLY);
	if (zero_fd < 0)
		return 1;
	for (long i = 0; i < t; i++) {
		tids[i] = 1;
		if (clone(reader, stacks[i] + sizeof(stacks[i]), flags, NULL,
			  NULL, NULL, &tids[i]) < 0)
			return 1;
	}
	go = 1;
	for (long i = 0; i < t; i++)
		while (tids[i])
			syscall(SYS_futex, &tids[i], 0 /* FUTEX_WAIT */, tids[i],
				NULL, NULL, 0);
	return 0;
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 0, i, r;

	if (argc < 3)
		return 2;
	if (!strcmp(argv[1], "getppid")) {
		for (i = 0; i < n; i++)
			syscall(SYS_getppid);
		return 0;
	}
	if (!strcmp(argv[1], "read")) {
		int fd = open("/dev/zero", O_RDONLY);

		if (fd < 0 || n > (long)sizeof(buf))
			return 1;
		printf("fd=%d\n", fd);
		fflush(stdout);
		r = syscall(SYS_read, fd, buf, n);
		return r == n ? 0 : 1;
	}
	if (!strcmp(argv[1], "openat") || !strcmp(argv[1], "openat-quiet")) {
		r = syscall(SYS_openat, AT_FDCWD, argv[2], O_RDONLY);
		if (!strcmp(argv[1], "openat"))
			printf("ret=%ld errno=%d\n", r, r < 0 ? errno : 0);
		return 0;
	}
	if (!strcmp(argv[1], "openat-untouched")) {
		char *p = mmap(NULL, 8192, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED)
			return 1;
		syscall(SYS_openat, AT_FDCWD, p + 4096, O_RDONLY);
		return 0;
	}
	if (!strcmp(argv[1], "threads")) {
		long rounds = argc > 4 ? atol(argv[4]) : 1;
		long ms = argc > 5 ? atol(argv[5]) : 0;

		for (i = 0; i < rounds; i++) {
			struct timespec ts = { ms / 1000, (ms % 1000) * 1000000 };

			if (i && ms)
				nanosleep(&ts, NULL);
			if ((r = threads(n, argc > 3 ? atol(argv[3]) : 0)))
				return (int)r;
		}
		return 0;
	}
	if (!strcmp(argv[1], "spin")) {
		volatile unsigned long x = 0;

		for (i = 0; !n || i < n; i++)
			x += i;
		return 0;
	}
	if (!strcmp(argv[1], "direct") && argc == 5) {
		long b = atol(argv[3]), k = atol(argv[4]);
		int fd = open(argv[2], O_RDONLY | O_DIRECT);

		if (fd < 0 || b <= 0 || b > (long)sizeof(buf))
			return 1;
		for (i = 0; i < k; i++)
			if (read(fd, buf, b) != b)
				return 1;
		return 0;
	}
	if (!strcmp(argv[1], "write-bad")) {
		if (n <= 0 || n >= (long)sizeof(buf))
			return 1;
		memset(buf, '.', n);
		syscall(SYS_write, -1, buf, n);
		printf("%s\n", buf);
		return 0;
	}
	if (!strcmp(argv[1], "exec")) {
		char num[32];

		if (n <= 0)
			return 0;
		snprintf(num, sizeof(num), "%ld", n - 1);
		execl("/proc/self/exe", argv[0], "exec", num, (char *)NULL);
		return 1;
	}
	return 2;
}
