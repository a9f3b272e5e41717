// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-failnth: fail, one at a time, every fault-injection site (slab and
 * page allocations, user copies) that one step of an enabling reaches in
 * xdt.ko, through the kernel's fail-nth (/proc/self/task/<tid>/fail-nth:
 * writing N makes the N-th site this thread reaches from then on fail).
 *
 *   xdt-failnth [-p PHASES] [-m MAX] [-D PROGRAM] [-r CYCLES] [-v]
 *
 * The consumer is libxdt's own (the one dtrace(1) is): a D program is
 * compiled and run as dtrace runs it -- open /dev/xdt, ENABLE, EPROBES,
 * GO, a workload that fires its probes, BUFSNAP, STOP, AGGSNAP, close.
 * The helper is linked with --wrap=ioctl,--wrap=open,--wrap=close, so it
 * sees libxdt's system calls on /dev/xdt; the one of the phase under test
 * gets fail-nth = N written right before it and read back right after (0:
 * the fault was injected in that call; the count is 0 again at once, so no
 * other call is touched).  For each phase (open, enable, eprobes, go,
 * bufsnap, stop, aggsnap, status, close) N runs 1, 2, ... until the call
 * completes without reaching its N-th site.  Each injected run must:
 *   - fail with ENOMEM (EFAULT where the site was a user copy), or succeed
 *     when the kernel absorbed the failure (kvmalloc falling back to
 *     vmalloc, a failed kmemleak bookkeeping allocation);
 *   - when it fails, fail with a message from libxdt naming the error
 *     (what dtrace prints);
 *   - leave nothing behind: after xdt_close() xdt.ko's refcount in
 *     /proc/modules is 0 (no consumer file is open);
 *   - and the next enabling, with no fault, must run and count its probes.
 * Every line of output is one verdict; the last line is the summary:
 *   xdt-failnth: trials T injected I failed F absorbed A clean C bad B
 * (bad: a verdict above broke a rule; exit status 1).
 *
 * -r CYCLES: no fault injection, CYCLES consumer start/stop cycles of the
 * program (each a whole open..close), for the soak's leak check.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "libxdt.h"
#include "xdt.h"

/* Small buffers: each page of a buffer is a site of its own at GO. */
static const char *const opts[][2] = {
	{ "bufsize", "16k" }, { "aggsize", "16k" }, { "dynvarsize", "16k" },
	{ "specsize", "8k" }, { "nspec", "2" }, { "quiet", NULL },
	{ "switchrate", "1ms" },
};

static const char default_prog[] =
	"dtrace:::BEGIN { self->n = 1; a[\"begin\"] = 1; @c[\"begin\"] = count(); }\n"
	"syscall::getppid:entry { @c[probefunc] = count(); t[pid] = timestamp; }\n"
	"syscall::getppid:return /t[pid]/ { @q = quantize(timestamp - t[pid]); t[pid] = 0; }\n"
	"fbt::vfs_read:entry { @c[probefunc] = count(); @s = sum(arg2); }\n"
	"fbt::vfs_read:return { @l = lquantize(arg1, 0, 256, 16); }\n"
	"rawtp:raw_syscalls::sys_enter { @r = count(); }\n"
	"profile-997 { @p = count(); }\n"
	"dtrace:::END { s = speculation(); speculate(s); trace(\"end\"); }\n"
	"dtrace:::END { commit(s); }\n"
	"dtrace:::END { printf(\"%s %d\\n\", execname, a[\"begin\"]); }\n";

/* ---- the system calls of the phase under test ----------------------- */
enum phase { PH_OPEN, PH_ENABLE, PH_EPROBES, PH_GO, PH_BUFSNAP, PH_STOP,
	     PH_AGGSNAP, PH_STATUS, PH_CLOSE, NPHASE };
static const char *const phase_name[NPHASE] = {
	"open", "enable", "eprobes", "go", "bufsnap", "stop", "aggsnap",
	"status", "close",
};

static int armed = -1;		/* phase whose next call gets fail-nth */
static int arm_n;		/* ... = this */
static int fired;		/* the armed call ran: */
static int injected;		/* fail-nth read back 0 after it */
static int call_ret, call_errno;
static int xdt_fd = -1;
static int nthfd = -1;

int __real_ioctl(int fd, unsigned long req, void *arg);
int __real_open(const char *path, int flags, ...);
int __real_close(int fd);

/*
 * The file's own read and write copy to and from user space, and a user
 * copy is a fault-injection site too: a count left at 1 fires in the
 * copy of the next access of the file (EFAULT), which then says only
 * that the call under test did not reach its N-th site.  Writing 0 may
 * so fail once; then the count is 0 and the second write cannot.
 */
static void nth_write(int n)
{
	char b[16];
	int len = snprintf(b, sizeof(b), "%d", n), tries;

	for (tries = 0; tries < 2; tries++) {
		if (pwrite(nthfd, b, len, 0) == len)
			return;
		if (errno != EFAULT)
			break;
	}
	perror("xdt-failnth: write fail-nth");
	exit(2);
}

static int nth_read(void)
{
	char b[16] = "";

	if (pread(nthfd, b, sizeof(b) - 1, 0) <= 0) {
		if (errno == EFAULT)
			return 1;	/* it was 1: fired in our own read */
		perror("xdt-failnth: read fail-nth");
		exit(2);
	}
	return atoi(b);
}

/* Run @call with fail-nth armed if @ph is the phase under test. */
#define ARMED_CALL(ph, call) ({						\
	int __r, __e, __a = armed == (ph) && !fired;			\
	if (__a)							\
		nth_write(arm_n);					\
	__r = (call);							\
	__e = errno;							\
	if (__a) {							\
		int __left = nth_read();				\
		nth_write(0);						\
		fired = 1;						\
		injected = __left == 0;					\
		call_ret = __r;						\
		call_errno = __r < 0 ? __e : 0;				\
	}								\
	errno = __e;							\
	__r;								\
})

static int ioctl_phase(unsigned long req)
{
	switch (req) {
	case XDT_IOC_ENABLE: return PH_ENABLE;
	case XDT_IOC_EPROBES: return PH_EPROBES;
	case XDT_IOC_GO: return PH_GO;
	case XDT_IOC_BUFSNAP: return PH_BUFSNAP;
	case XDT_IOC_STOP: return PH_STOP;
	case XDT_IOC_AGGSNAP: return PH_AGGSNAP;
	case XDT_IOC_STATUS: return PH_STATUS;
	}
	return -1;
}

int __wrap_ioctl(int fd, unsigned long req, void *arg)
{
	if (fd != xdt_fd)
		return __real_ioctl(fd, req, arg);
	return ARMED_CALL(ioctl_phase(req), __real_ioctl(fd, req, arg));
}

int __wrap_open(const char *path, int flags, ...)
{
	va_list ap;
	int mode, fd;

	va_start(ap, flags);
	mode = va_arg(ap, int);
	va_end(ap);
	if (strcmp(path, XDT_DEVICE))
		return __real_open(path, flags, mode);
	fd = ARMED_CALL(PH_OPEN, __real_open(path, flags, mode));
	if (fd >= 0)
		xdt_fd = fd;
	return fd;
}

int __wrap_close(int fd)
{
	if (fd != xdt_fd || fd < 0)
		return __real_close(fd);
	xdt_fd = -1;
	return ARMED_CALL(PH_CLOSE, __real_close(fd));
}

/* ---- one consumer ---------------------------------------------------- */
static const char *prog = default_prog;
static FILE *devnull;
static int verbose;

static int agg_count(const struct xdt_aggdata *a, void *arg)
{
	(void)a;
	++*(int *)arg;
	return 0;
}

/* xdt.ko's reference count (/proc/modules), -1 if not loaded. */
static int xdt_refs(void)
{
	char line[256];
	FILE *f = fopen("/proc/modules", "r");
	int n = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "xdt ", 4)) {
			sscanf(line, "%*s %*s %d", &n);
			break;
		}
	fclose(f);
	return n;
}

/*
 * One whole consumer.  0 and the number of aggregation entries in *naggs,
 * or -1 with libxdt's message in @msg.
 */
static int consumer(char *msg, size_t len, int *naggs)
{
	struct xdt_cerror err;
	struct xdt_status st;
	xdt_hdl_t *h = xdt_open();
	char buf[64];
	unsigned i;
	int rfd, ret = -1;

	*naggs = 0;
	if (!h) {
		snprintf(msg, len, "xdt_open() returned NULL");
		return -1;
	}
	xdt_set_output(h, devnull);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (xdt_setopt(h, opts[i][0], opts[i][1]) < 0) {
			snprintf(msg, len, "-x %s: %s", opts[i][0],
				 xdt_errmsg(h));
			goto out;
		}
	if (xdt_compile(h, prog, "<failnth>", 0, &err) < 0) {
		snprintf(msg, len, "compile: %d:%d: %.400s", err.line, err.col,
			 err.msg);
		goto out;
	}
	if (xdt_go(h) < 0) {
		snprintf(msg, len, "%s", xdt_errmsg(h));
		goto out;
	}
	for (i = 0; i < 3; i++)
		syscall(SYS_getppid);
	rfd = open("/proc/version", O_RDONLY);
	if (rfd >= 0) {
		if (read(rfd, buf, sizeof(buf)) < 0)
			(void)0;
		close(rfd);
	}
	if (xdt_work(h, NULL) == XDT_WORK_ERROR) {
		snprintf(msg, len, "%s", xdt_errmsg(h));
		goto out;
	}
	/*
	 * xdt_work() asks for the status only every statusrate, which a
	 * short run may never reach: ask once, as dtrace's drop report does,
	 * so the STATUS phase is always swept.
	 */
	if (xdt_status(h, &st) < 0) {
		snprintf(msg, len, "%s", xdt_errmsg(h));
		goto out;
	}
	if (xdt_stop(h, NULL) < 0) {
		snprintf(msg, len, "%s", xdt_errmsg(h));
		goto out;
	}
	if (xdt_aggwalk(h, agg_count, naggs) < 0) {
		snprintf(msg, len, "%s", xdt_errmsg(h));
		goto out;
	}
	ret = 0;
out:
	xdt_close(h);
	return ret;
}

static unsigned long long trials, ninj, nfail, nabsorbed, nclean, nbad;

static void bad(const char *fmt, ...)
{
	va_list ap;

	nbad++;
	printf("BAD ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* A consumer with no fault must run whole and count what it enabled. */
static int clean_run(const char *after)
{
	char msg[512] = "";
	int naggs, refs;

	nclean++;
	if (consumer(msg, sizeof(msg), &naggs) < 0) {
		bad("clean enabling after %s failed: %s", after, msg);
		return -1;
	}
	if (naggs < 5) {
		bad("clean enabling after %s: %d aggregation entries (< 5)",
		    after, naggs);
		return -1;
	}
	refs = xdt_refs();
	if (refs != 0) {
		bad("clean enabling after %s: xdt refcount %d", after, refs);
		return -1;
	}
	return 0;
}

static int sweep(int ph, int max)
{
	char what[64], msg[512];
	int n, naggs, r, refs;

	for (n = 1; n <= max; n++) {
		msg[0] = 0;
		armed = ph;
		arm_n = n;
		fired = injected = 0;
		call_ret = call_errno = 0;
		trials++;
		r = consumer(msg, sizeof(msg), &naggs);
		armed = -1;
		snprintf(what, sizeof(what), "%s nth %d", phase_name[ph], n);
		if (!fired) {
			bad("%s: the call never ran (%s)", what, msg);
			return -1;
		}
		refs = xdt_refs();
		if (!injected) {
			/* fewer than n sites: the sweep of this phase is done */
			printf("%s: %d sites, consumer %s\n", phase_name[ph],
			       n - 1, r ? msg : "ran");
			if (r)
				bad("%s: failed with no fault injected: %s",
				    what, msg);
			if (refs != 0)
				bad("%s: xdt refcount %d", what, refs);
			fflush(stdout);
			return n - 1;
		}
		ninj++;
		if (call_ret >= 0) {
			/* absorbed by the kernel: the consumer must be whole */
			nabsorbed++;
			if (verbose)
				printf("%s: absorbed, consumer %s\n", what,
				       r ? msg : "ran");
			if (r)
				bad("%s: call succeeded, consumer failed: %s",
				    what, msg);
		} else {
			nfail++;
			printf("%s: %s: %s\n", what, strerror(call_errno),
			       r ? msg : "(consumer went on)");
			if (call_errno != ENOMEM && call_errno != EFAULT)
				bad("%s: errno %s, not ENOMEM/EFAULT", what,
				    strerror(call_errno));
			if (ph == PH_CLOSE)
				;	/* close() always releases */
			else if (!r && ph <= PH_GO)
				bad("%s: enabling failed but libxdt went on",
				    what);
			else if (r && !strstr(msg, strerror(call_errno)))
				bad("%s: message does not say %s: %s", what,
				    strerror(call_errno), msg);
		}
		if (refs != 0)
			bad("%s: xdt refcount %d after close", what, refs);
		fflush(stdout);
		if (clean_run(what) < 0)
			return -1;
	}
	bad("%s: more than %d sites", phase_name[ph], max);
	return -1;
}

int main(int argc, char **argv)
{
	const char *phases = "open,enable,eprobes,go,bufsnap,stop,aggsnap,"
			     "status,close";
	int opt, max = 2000, cycles = 0, ph;
	char path[64];

	while ((opt = getopt(argc, argv, "p:m:D:r:v")) != -1) {
		switch (opt) {
		case 'p': phases = optarg; break;
		case 'm': max = atoi(optarg); break;
		case 'D': prog = optarg; break;
		case 'r': cycles = atoi(optarg); break;
		case 'v': verbose = 1; break;
		default:
			fprintf(stderr, "usage: xdt-failnth [-p PHASES] [-m MAX] "
				"[-D PROGRAM] [-r CYCLES] [-v]\n");
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	devnull = fopen("/dev/null", "w");
	if (!devnull) {
		perror("xdt-failnth: /dev/null");
		return 2;
	}
	if (cycles) {
		char msg[512];
		int i, naggs;

		for (i = 0; i < cycles; i++) {
			if (consumer(msg, sizeof(msg), &naggs) < 0) {
				printf("xdt-failnth: cycle %d: %s\n", i, msg);
				return 1;
			}
			if (naggs < 5) {
				printf("xdt-failnth: cycle %d: %d aggregation "
				       "entries (< 5)\n", i, naggs);
				return 1;
			}
		}
		printf("xdt-failnth: cycles %d refs %d\n", cycles, xdt_refs());
		return xdt_refs() != 0;
	}
	snprintf(path, sizeof(path), "/proc/self/task/%ld/fail-nth",
		 (long)syscall(SYS_gettid));
	nthfd = __real_open(path, O_RDWR | O_CLOEXEC);
	if (nthfd < 0) {
		fprintf(stderr, "xdt-failnth: %s: %s (a kernel without "
			"CONFIG_FAULT_INJECTION?)\n", path, strerror(errno));
		return 2;
	}
	if (clean_run("start") < 0)
		return 1;
	for (ph = 0; ph < NPHASE; ph++) {
		const char *p = strstr(phases, phase_name[ph]);
		size_t l = strlen(phase_name[ph]);

		if (!p || (p != phases && p[-1] != ',') ||
		    (p[l] && p[l] != ','))
			continue;
		sweep(ph, max);
	}
	printf("xdt-failnth: trials %llu injected %llu failed %llu absorbed "
	       "%llu clean %llu bad %llu\n", trials, ninj, nfail, nabsorbed,
	       nclean, nbad);
	return nbad != 0;
}
