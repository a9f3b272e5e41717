// SPDX-License-Identifier: GPL-2.0
/*
 * consumer.c - talking to /dev/xdt: list probes, enable a program, run it,
 * pull each CPU's buffer every switchrate and print the records, and at
 * the end stop, drain, and print aggregations, drops and errors.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dt.h"

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

#define XDT_MODULE_PATH	"/lib/modules/xdt.ko"

/*
 * Load xdt.ko, as DTrace loads its drivers on first use: $XDT_MODULE or
 * the guest's /lib/modules/xdt.ko.  Returns 0, or -1 with why in @why.
 */
static int load_module(char *why, size_t len)
{
	const char *path = getenv("XDT_MODULE");
	int fd, ret;

	if (!path || !*path)
		path = XDT_MODULE_PATH;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(why, len, "%s: %s", path, strerror(errno));
		return -1;
	}
	ret = (int)syscall(SYS_finit_module, fd, "", 0);
	if (ret < 0 && errno == EEXIST)
		snprintf(why, len, "xdt is loaded but %s is missing (is devtmpfs "
			 "mounted on /dev?)", XDT_DEVICE);
	else if (ret < 0)
		snprintf(why, len, "loading %s: %s", path, strerror(errno));
	close(fd);
	return ret < 0 ? -1 : 0;
}

static int open_dev(void)
{
	int fd = open(XDT_DEVICE, O_RDWR | O_CLOEXEC);
	char why[512];
	int err = errno;

	if (fd < 0 && err == ENOENT) {
		if (load_module(why, sizeof(why)) < 0)
			dt_fatal("failed to open %s: %s (xdt.ko is not loaded and "
				 "could not be: %s; load it with 'insmod xdt.ko', "
				 "or set XDT_MODULE to its path)", XDT_DEVICE,
				 strerror(err), why);
		fd = open(XDT_DEVICE, O_RDWR | O_CLOEXEC);
		err = errno;
	}
	if (fd < 0)
		dt_fatal("failed to open %s: %s", XDT_DEVICE, strerror(err));
	return fd;
}

/* ---- -l ------------------------------------------------------------------ */
int list_probes(const struct xdt_probedesc *m, int verbose)
{
	struct xdt_probe_query q = { .match = *m };
	struct xdt_probeinfo *pi = NULL;
	int fd = open_dev();
	__u32 cap = 1024, i;

	q.flags = verbose ? XDT_PQ_REFUSED : 0;
	for (;;) {
		pi = xrealloc(pi, cap * sizeof(*pi));
		q.cap = cap;
		q.buf = (__u64)(uintptr_t)pi;
		if (ioctl(fd, XDT_IOC_PROBES, &q) < 0)
			dt_fatal("failed to list probes: %s", strerror(errno));
		if (q.count <= cap)
			break;
		cap = q.count + 64;
	}
	printf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME");
	for (i = 0; i < q.count; i++) {
		const struct xdt_probedesc *d = &pi[i].desc;

		if (pi[i].flags & XDT_PROBE_REFUSED)
			printf("%5s %10s %17s %33s %s (refused: %.*s)\n", "-", d->prov,
			       d->mod, d->func, d->name[0] ? d->name : "-",
			       (int)sizeof(pi[i].why), pi[i].why);
		else
			printf("%5u %10s %17s %33s %s\n", pi[i].id, d->prov, d->mod,
			       d->func, d->name);
	}
	free(pi);
	close(fd);
	if (!q.count && q.err[0]) {
		fprintf(stderr, "dtrace: failed to match %s:%s:%s:%s: %.*s\n",
			m->prov, m->mod, m->func, m->name, (int)sizeof(q.err), q.err);
		return 1;
	}
	if (!q.count && (m->prov[0] || m->mod[0] || m->func[0] || m->name[0])) {
		fprintf(stderr, "dtrace: failed to match %s:%s:%s:%s: No probe matches description\n",
			m->prov, m->mod, m->func, m->name);
		return 1;
	}
	return 0;
}

/* ---- running a program --------------------------------------------------- */
struct run {
	const struct prog *p;
	int fd, ncpus;
	struct xdt_eprobe *eps;
	__u32 neps;
	char *buf;
	size_t bufcap;
	struct dt_print pr;
};

static int ep_cmp(const void *a, const void *b)
{
	const struct xdt_eprobe *x = a, *y = b;

	return x->epid < y->epid ? -1 : x->epid > y->epid;
}

static const struct xdt_eprobe *ep_find(struct run *r, __u32 epid)
{
	struct xdt_eprobe key = { .epid = epid };

	return bsearch(&key, r->eps, r->neps, sizeof(key), ep_cmp);
}

static const char *fault_name(__u64 kind)
{
	switch (kind) {
	case XDT_FAULT_BADADDR: return "invalid address";
	case XDT_FAULT_DIVZERO: return "divide-by-zero";
	case XDT_FAULT_ILLOP: return "illegal operation";
	case XDT_FAULT_NOSCRATCH: return "out of scratch space";
	case XDT_FAULT_TUPOFLOW: return "tuple stack overflow";
	case XDT_FAULT_BADALIGN: return "invalid alignment";
	default: return "unknown fault";
	}
}

/*
 * dtrace:::ERROR: {unused, epid, action, pc, kind, addr} after the header;
 * action 0 is the predicate, actions count from 1 (as DTrace prints them).
 */
static void print_error(struct run *r, const char *rec, __u32 size)
{
	__u64 v[6] = { 0 };
	const struct xdt_eprobe *ep;
	char where[64];

	memcpy(v, rec + sizeof(struct xdt_rechdr),
	       size - sizeof(struct xdt_rechdr) < sizeof(v) ?
	       size - sizeof(struct xdt_rechdr) : sizeof(v));
	ep = ep_find(r, (__u32)v[1]);
	if (v[2] == 0)
		snprintf(where, sizeof(where), "predicate");
	else
		snprintf(where, sizeof(where), "action #%llu",
			 (unsigned long long)v[2]);
	fflush(stdout);
	fprintf(stderr, "dtrace: error on enabled probe ID %llu (ID %u: %s:%s:%s:%s): %s",
		(unsigned long long)v[1], ep ? ep->probe : 0,
		ep ? ep->desc.prov : "?", ep ? ep->desc.mod : "?",
		ep ? ep->desc.func : "?", ep ? ep->desc.name : "?",
		fault_name(v[4]));
	if (v[4] == XDT_FAULT_BADADDR)
		fprintf(stderr, " (0x%llx)", (unsigned long long)v[5]);
	fprintf(stderr, " in %s at DIF offset %llu\n", where, (unsigned long long)v[3]);
}

static void drain_cpu(struct run *r, int cpu)
{
	struct xdt_bufsnap s;
	size_t off = 0;

	for (;;) {
		memset(&s, 0, sizeof(s));
		s.cpu = (__u32)cpu;
		s.size = (__u32)r->bufcap;
		s.buf = (__u64)(uintptr_t)r->buf;
		if (!ioctl(r->fd, XDT_IOC_BUFSNAP, &s))
			break;
		if ((errno == ENOSPC || errno == EOVERFLOW || errno == E2BIG ||
		     errno == EMSGSIZE) && r->bufcap < (256u << 20)) {
			/* our buffer is smaller than the kernel's: grow, retry */
			r->bufcap *= 2;
			r->buf = xrealloc(r->buf, r->bufcap);
			continue;
		}
		return;		/* offline CPU and the like: nothing to read */
	}
	if (s.size > r->bufcap)
		s.size = (__u32)r->bufcap;
	while (off + sizeof(struct xdt_rechdr) <= s.size) {
		struct xdt_rechdr h;
		const struct xdt_eprobe *ep;

		memcpy(&h, r->buf + off, sizeof(h));
		if (h.size < sizeof(h) || off + h.size > s.size)
			break;
		if (h.epid == UINT32_MAX) {
			/* abandoned by a fault; its ERROR record follows */
		} else if (h.epid == 0) {
			print_error(r, r->buf + off, h.size);
		} else if ((ep = ep_find(r, h.epid)) &&
			   ep->clause < (unsigned)r->p->nclauses) {
			if (h.size >= r->p->clauses[ep->clause].recsize)
				print_record(&r->pr, r->p, (int)ep->clause, ep,
					     cpu, r->buf + off);
		}
		off += (h.size + 7) & ~7u;
	}
	if (s.drops) {
		fflush(stdout);
		fprintf(stderr, "dtrace: %llu drop%s on CPU %d\n",
			(unsigned long long)s.drops, s.drops == 1 ? "" : "s", cpu);
	}
}

static void drain(struct run *r)
{
	for (int cpu = 0; cpu < r->ncpus; cpu++)
		drain_cpu(r, cpu);
	fflush(stdout);
}

/*
 * At the end, dtrace(1) always writes one newline (quiet or not, after the
 * last record: illumos' main loop ends with oprintf("\n")) and then the
 * aggregations; xdt's aggregation printer starts each aggregation with
 * that blank line, so the newline is only written here when no
 * aggregation entry is.
 */
static void print_aggregations(struct run *r)
{
	struct xdt_aggsnap a;
	size_t cap = 1 << 16;
	char *buf = NULL;

	if (!r->p->naggs) {
		putchar('\n');
		return;
	}
	for (;;) {
		buf = xrealloc(buf, cap);
		memset(&a, 0, sizeof(a));
		a.size = (__u32)cap;
		a.buf = (__u64)(uintptr_t)buf;
		if (ioctl(r->fd, XDT_IOC_AGGSNAP, &a) < 0) {
			if ((errno == ENOSPC || errno == EOVERFLOW || errno == E2BIG)
			    && cap < (1u << 30)) {
				cap = a.size > cap ? a.size : cap * 2;
				continue;
			}
			fprintf(stderr, "dtrace: failed to snapshot aggregations: %s\n",
				strerror(errno));
			free(buf);
			putchar('\n');
			return;
		}
		if (a.size <= cap)
			break;
		cap = a.size;	/* "or needed" */
	}
	if (!print_aggs(r->p, buf, a.size, a.count, stdout))
		putchar('\n');
	free(buf);
}

static const char *clause_src(const struct prog *p, int cl)
{
	return p->srcdesc[p->clauses[cl].src];
}

int consume(const struct prog *p, const struct dt_opts *o)
{
	struct run r = { .p = p };
	struct xdt_enable en;
	struct xdt_eprobe_query eq;
	struct xdt_status st;
	struct sigaction sa;
	size_t size;
	void *blob = prog_blob(p, &size);
	__u32 cap = 256;
	int i, status;

	r.pr.quiet = o->quiet;
	r.pr.last_nl = 1;
	r.fd = open_dev();
	memset(&en, 0, sizeof(en));
	en.prog = (__u64)(uintptr_t)blob;
	en.size = (__u32)size;
	en.unmatched = -1;
	if (ioctl(r.fd, XDT_IOC_ENABLE, &en) < 0 && en.unmatched < 0) {
		if (errno == EINVAL)
			dt_fatal("failed to enable '%s': %.*s", p->srcdesc[0],
				 (int)sizeof(en.err), en.err);
		dt_fatal("failed to enable '%s': %s", p->srcdesc[0], strerror(errno));
	}
	if (en.unmatched >= 0 && en.unmatched < p->nclauses) {
		const struct xdt_probedesc *d = &p->clauses[en.unmatched].desc;

		dt_fatal("invalid probe specifier %s: probe description %s:%s:%s:%s does not match any probes",
			 p->srctext[p->clauses[en.unmatched].src],
			 d->prov, d->mod, d->func, d->name);
	}
	for (i = 0; i < p->nsrc; i++)
		fprintf(stderr, "dtrace: %s '%s' matched %u probe%s\n",
			p->srcfile[i] ? "script" : "description", p->srcdesc[i],
			en.nprobes, en.nprobes == 1 ? "" : "s");
	(void)clause_src;

	for (;;) {
		r.eps = xrealloc(r.eps, cap * sizeof(*r.eps));
		eq.cap = cap;
		eq.count = 0;
		eq.buf = (__u64)(uintptr_t)r.eps;
		if (ioctl(r.fd, XDT_IOC_EPROBES, &eq) < 0)
			dt_fatal("failed to list enabled probes: %s", strerror(errno));
		if (eq.count <= cap)
			break;
		cap = eq.count;
	}
	r.neps = eq.count;
	qsort(r.eps, r.neps, sizeof(*r.eps), ep_cmp);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	r.ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	if (r.ncpus < 1)
		r.ncpus = 1;
	r.bufcap = o->bufsize;
	r.buf = xzalloc(r.bufcap);
	if (ioctl(r.fd, XDT_IOC_GO) < 0) {
		if (errno == EBUSY)
			dt_fatal("could not enable tracing: an instruction is "
				 "already patched (by ftrace, kprobes, a debugger, or "
				 "an fbt and a kinst probe of this program on the same "
				 "instruction); the kernel log names it");
		dt_fatal("could not enable tracing: %s", strerror(errno));
	}
	if (o->child_gate >= 0) {
		/* the -c command runs only now, so its whole life is traced */
		if (write(o->child_gate, "g", 1) != 1)
			dt_fatal("failed to start command: %s", strerror(errno));
		close(o->child_gate);
	}
	/* like DTrace, the CPU/ID header waits for the first record */
	for (;;) {
		struct timespec ts = { o->switchrate_us / 1000000,
				       (o->switchrate_us % 1000000) * 1000 };

		nanosleep(&ts, NULL);
		drain(&r);
		memset(&st, 0, sizeof(st));
		if (ioctl(r.fd, XDT_IOC_STATUS, &st) == 0 && st.exited)
			break;
		if (interrupted)
			break;
		if (o->child > 0 && waitpid(o->child, &status, WNOHANG) == o->child) {
			fprintf(stderr, "dtrace: pid %d has exited\n", (int)o->child);
			break;
		}
		if (o->target > 0 && kill(o->target, 0) < 0 && errno == ESRCH) {
			fprintf(stderr, "dtrace: pid %d has exited\n", (int)o->target);
			break;
		}
	}
	if (ioctl(r.fd, XDT_IOC_STOP) < 0)
		fprintf(stderr, "dtrace: failed to stop tracing: %s\n", strerror(errno));
	drain(&r);
	print_aggregations(&r);
	fflush(stdout);
	memset(&st, 0, sizeof(st));
	if (ioctl(r.fd, XDT_IOC_STATUS, &st) == 0) {
		if (st.dyndrops) {
			__u64 clean = st.dyndrops - st.dyndrops_dirty;

			if (clean)
				fprintf(stderr, "dtrace: %llu dynamic variable drop%s\n",
					(unsigned long long)clean, clean == 1 ? "" : "s");
			if (st.dyndrops_dirty)
				fprintf(stderr, "dtrace: %llu dynamic variable drop%s with non-empty dirty list\n",
					(unsigned long long)st.dyndrops_dirty,
					st.dyndrops_dirty == 1 ? "" : "s");
		}
		if (st.aggdrops)
			fprintf(stderr, "dtrace: %llu aggregation drop%s\n",
				(unsigned long long)st.aggdrops,
				st.aggdrops == 1 ? "" : "s");
		if (st.errors)
			fprintf(stderr, "dtrace: %llu error%s\n",
				(unsigned long long)st.errors,
				st.errors == 1 ? "" : "s");
	}
	close(r.fd);
	free(r.buf);
	free(r.eps);
	free(blob);
	return r.pr.exit_status;
}
