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
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "dt_consumer.h"
#include "libxdt.h"


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
	else if (ret < 0 && errno == EPERM)
		/* tracing privileges do not extend to loading modules */
		snprintf(why, len, "loading %s: %s (loading a kernel module "
			 "needs CAP_SYS_MODULE: have root load it)", path,
			 strerror(errno));
	else if (ret < 0)
		snprintf(why, len, "loading %s: %s", path, strerror(errno));
	close(fd);
	return ret < 0 ? -1 : 0;
}

static int open_dev_err(char *msg, size_t len)
{
	int fd = open(XDT_DEVICE, O_RDWR | O_CLOEXEC);
	char why[512];
	int err = errno;

	if (fd < 0 && err == ENOENT) {
		if (load_module(why, sizeof(why)) < 0) {
			snprintf(msg, len, "failed to open %s: %s (xdt.ko is not loaded and "
				 "could not be: %s; load it with 'insmod xdt.ko', "
				 "or set XDT_MODULE to its path)", XDT_DEVICE,
				 strerror(err), why);
			return -1;
		}
		fd = open(XDT_DEVICE, O_RDWR | O_CLOEXEC);
		err = errno;
	}
	if (fd < 0 && (err == EPERM || err == EACCES))
		/* EPERM: xdt.ko's check (docs/privileges.md); EACCES: the
		   node's mode, as an older xdt.ko made it (0600) */
		snprintf(msg, len, "failed to open %s: %s (tracing needs "
			 "CAP_PERFMON or CAP_SYS_ADMIN)", XDT_DEVICE,
			 strerror(err));
	else if (fd < 0)
		snprintf(msg, len, "failed to open %s: %s", XDT_DEVICE, strerror(err));
	return fd;
}

/* ---- -l ------------------------------------------------------------------ */
/*
 * -l -v: a probe's attributes and argument types as DTrace prints them
 * (its print_probe_info): the least of its provider's attributes for the
 * parts the probe has (an empty module or function adds nothing), its
 * provider's argument attributes, then the types.  fbt's come from the
 * function's BTF prototype (return: the offset and the return type), the
 * stable providers' from their table, translated; others have none.
 */
static void list_argtypes(const struct xdt_probedesc *d, const struct dpattr *pa)
{
	const char *src, *nt, *xt;
	struct dtype *at[10], *ret;
	int n = -1;

	if (pa) {
		struct dattr a = pa->prov;

		if (d->mod[0])
			a = dt_attr_min(a, pa->mod);
		if (d->func[0])
			a = dt_attr_min(a, pa->func);
		if (d->name[0])
			a = dt_attr_min(a, pa->name);
		dt_attr_print(stdout, "Probe Description Attributes", a);
		dt_attr_print(stdout, "Argument Attributes", pa->args);
	}
	printf("\n\tArgument Types\n");
	if (dt_stable_args(d->prov, d->name, &src, &nt, &xt) && *xt) {
		for (n = 0; *xt; n++) {
			size_t l = strcspn(xt, ";");

			printf("\t\targs[%d]: %.*s\n", n, (int)l, xt);
			xt += l + !!xt[l];
		}
	} else if (!strcmp(d->prov, "fbt")) {
		if (!types_ready())
			types_init(256);	/* DTrace's default strsize */
		n = btf_func_proto(d->func, at, 10, &ret);
		if (n >= 0 && strcmp(d->name, "entry")) {
			at[0] = dt_int;
			at[1] = ret;
			n = ret->real->k == TK_VOID ? 1 : 2;
		}
		for (int k = 0; k < n && k < 10; k++)
			printf("\t\targs[%d]: %s\n", k, type_str(at[k]));
	}
	if (n <= 0)
		printf("\t\tNone\n");
	printf("\n");
}

/*
 * The probes @q->match names, into a growing array (NULL with @h's
 * errmsg if the kernel could not be asked); @q->count says how many.
 */
static struct xdt_probeinfo *query_probes(struct xdt_hdl *h, int fd,
					  struct xdt_probe_query *q, __u32 cap)
{
	struct xdt_probeinfo *pi = NULL;

	for (;;) {
		pi = xrealloc(pi, cap * sizeof(*pi));
		q->cap = cap;
		q->buf = (__u64)(uintptr_t)pi;
		if (ioctl(fd, XDT_IOC_PROBES, q) < 0) {
			snprintf(h->errmsg, sizeof(h->errmsg),
				 "failed to list probes: %s", strerror(errno));
			free(pi);
			return NULL;
		}
		if (q->count <= cap)
			return pi;
		cap = q->count + 64;
	}
}

/* One description's probes; 1 if it matched none, -1 (@h's errmsg) if
   the listing failed. */
static int list_one(struct xdt_hdl *h, int fd, const struct xdt_probedesc *m,
		    int verbose)
{
	struct xdt_probe_query q = { .match = *m };
	struct xdt_probeinfo *pi;
	__u32 i;

	q.flags = verbose ? XDT_PQ_REFUSED : 0;
	if (dt_uprobes_make(fd, m, "", h->errmsg, sizeof(h->errmsg), NULL) < 0) {
		fprintf(stderr, "dtrace: failed to match %s:%s:%s:%s: %s\n",
			m->prov, m->mod, m->func, m->name, h->errmsg);
		h->errmsg[0] = 0;
		return 1;
	}
	pi = query_probes(h, fd, &q, 1024);
	if (!pi)
		return -1;
	for (i = 0; i < q.count; i++) {
		const struct xdt_probedesc *d = &pi[i].desc;

		if (pi[i].flags & XDT_PROBE_REFUSED)
			printf("%5s %10s %17s %33s %s (refused: %.*s)\n", "-", d->prov,
			       d->mod, d->func, d->name[0] ? d->name : "-",
			       (int)sizeof(pi[i].why), pi[i].why);
		else
			printf("%5u %10s %17s %33s %s\n", pi[i].id, d->prov, d->mod,
			       d->func, d->name);
		if (verbose && !(pi[i].flags & XDT_PROBE_REFUSED)) {
			list_argtypes(d, dt_provider_attr(NULL, d->prov));
			/* xdt's own block: how the probe is (or would be) inserted */
			if (pi[i].mech[0])
				printf("\tInsertion Mechanisms\n\t\t%.*s\n\n",
				       (int)sizeof(pi[i].mech), pi[i].mech);
		}
	}
	free(pi);
	fflush(stdout);
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

/*
 * dtrace -l: the header once, then each description's probes in the order
 * given; one that matches nothing says so and makes the exit status 1, and
 * the others are still listed.
 */
static int list_probes(xdt_hdl_t *h, const struct xdt_probedesc *m, int n,
		    int verbose)
{
	int fd = open_dev_err(h->errmsg, sizeof(h->errmsg)), ret = 0;

	if (fd < 0)
		return -1;
	printf("%5s %10s %17s %33s %s\n", "ID", "PROVIDER", "MODULE", "FUNCTION", "NAME");
	for (int i = 0; i < n; i++) {
		int r = list_one(h, fd, &m[i], verbose);

		if (r < 0) {
			ret = -1;
			break;
		}
		ret |= r;
	}
	close(fd);
	return ret;
}

/*
 * dtrace -i: probe @id's description, from a listing of every probe (the
 * kernel numbers probes as they are made; the listing is where the IDs a
 * user sees come from).
 */
static int probe_desc(xdt_hdl_t *h, unsigned id, struct xdt_probedesc *d)
{
	int fd = open_dev_err(h->errmsg, sizeof(h->errmsg)), ret = -1;
	struct xdt_probe_query q = { 0 };
	struct xdt_probeinfo *pi = NULL;

	if (fd < 0)
		return -1;
	pi = query_probes(h, fd, &q, 32768);
	if (!pi)
		goto out;
	snprintf(h->errmsg, sizeof(h->errmsg),
		 "invalid probe identifier %u: No probe matches the ID", id);
	for (__u32 i = 0; i < q.count; i++)
		if (pi[i].id == id && id) {
			*d = pi[i].desc;
			h->errmsg[0] = 0;
			ret = 0;
			break;
		}
out:
	free(pi);
	close(fd);
	return ret;
}

int xdt_probe_desc(xdt_hdl_t *h, unsigned id, struct xdt_probedesc *d)
{
	int ret = -1;

	XDT_GUARDED(h, return -1, ret = probe_desc(h, id, d));
	return ret;
}

int xdt_list_probes(xdt_hdl_t *h, const struct xdt_probedesc *m, int n,
		    int verbose)
{
	int ret = -1;

	XDT_GUARDED(h, return -1, ret = list_probes(h, m, n, verbose));
	return ret;
}

/* ---- running a program (libxdt's execution half) ------------------------- */
#define HERR(h, ...) (snprintf((h)->errmsg, sizeof((h)->errmsg), __VA_ARGS__), -1)

static int ep_cmp(const void *a, const void *b)
{
	const struct xdt_eprobe *x = a, *y = b;

	return x->epid < y->epid ? -1 : x->epid > y->epid;
}

static const struct xdt_eprobe *ep_find(struct xdt_hdl *h, __u32 epid)
{
	struct xdt_eprobe key = { .epid = epid };

	return bsearch(&key, h->eps, h->neps, sizeof(key), ep_cmp);
}

/* The output now: -o's file, freopen()'s, or stdout. */
static FILE *dt_out(struct xdt_hdl *h)
{
	return h->pr.out ? h->pr.out : stdout;
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
	case XDT_FAULT_KPRIV: return "invalid kernel access";
	case XDT_FAULT_UPRIV: return "invalid user access";
	case XDT_FAULT_BADSTACK: return "bad stack";
	case XDT_FAULT_LIBRARY: return "library-level fault";
	default: return "unknown fault";
	}
}

/* DTrace's report of a dtrace:::ERROR, on stderr */
static int print_fault(xdt_hdl_t *h, const struct xdt_fault *f, void *arg)
{
	const struct xdt_eprobe *ep = f->ep;
	char where[64];

	(void)h, (void)arg;
	if (f->action == 0)
		snprintf(where, sizeof(where), "predicate");
	else
		snprintf(where, sizeof(where), "action #%llu",
			 (unsigned long long)f->action);
	fflush(dt_out(h));
	fflush(stdout);
	fprintf(stderr, "dtrace: error on enabled probe ID %llu (ID %u: %s:%s:%s:%s): %s",
		(unsigned long long)(ep ? ep->epid : 0), ep ? ep->probe : 0,
		ep ? ep->desc.prov : "?", ep ? ep->desc.mod : "?",
		ep ? ep->desc.func : "?", ep ? ep->desc.name : "?", f->what);
	if (f->kind == XDT_FAULT_BADADDR || f->kind == XDT_FAULT_BADALIGN ||
	    f->kind == XDT_FAULT_BADSTACK)
		fprintf(stderr, " (0x%llx)", (unsigned long long)f->addr);
	fprintf(stderr, " in %s", where);
	if (f->pc != XDT_NO_DIFOFF)
		fprintf(stderr, " at DIF offset %llu", (unsigned long long)f->pc);
	fputc('\n', stderr);
	if (h->pr.json) {
		struct jw w = { dt_out(h), 0, { 0 } };

		jw_obj(&w, NULL);
		jw_str(&w, "type", "error");
		jw_uint(&w, "epid", ep ? ep->epid : 0);
		jw_uint(&w, "id", ep ? ep->probe : 0);
		jw_str(&w, "provider", ep ? ep->desc.prov : "?");
		jw_str(&w, "module", ep ? ep->desc.mod : "?");
		jw_str(&w, "function", ep ? ep->desc.func : "?");
		jw_str(&w, "name", ep ? ep->desc.name : "?");
		jw_str(&w, "fault", f->what);
		jw_uint(&w, "kind", f->kind);
		jw_uint(&w, "addr", f->addr);
		jw_uint(&w, "action", f->action);
		if (f->pc != XDT_NO_DIFOFF)
			jw_uint(&w, "difoff", f->pc);
		jw_end(&w, 0);
	}
	return 0;
}

static int print_rec(xdt_hdl_t *h, const struct xdt_record *r, void *arg)
{
	(void)arg;
	print_record(&h->pr, &h->p, r->clause, r->ep, r->cpu, r->data);
	return 0;
}

static void print_drop(xdt_hdl_t *h, enum xdt_dropkind kind, int cpu,
		       __u64 n, void *arg)
{
	const char *tag = kind == XDT_DROP_PRINCIPAL ? "DTRACEDROP_PRINCIPAL" :
			  "DTRACEDROP_AGGREGATION";

	(void)arg;
	fflush(dt_out(h));
	fflush(stdout);
	fprintf(stderr, "dtrace: %s%s%s%llu %sdrop%s on CPU %d\n",
		h->o.droptags ? "[" : "", h->o.droptags ? tag : "",
		h->o.droptags ? "] " : "", (unsigned long long)n,
		kind == XDT_DROP_PRINCIPAL ? "" : "aggregation ",
		n > 1 ? "s" : "", cpu);
	if (h->pr.json) {
		struct jw w = { dt_out(h), 0, { 0 } };

		jw_obj(&w, NULL);
		jw_str(&w, "type", "drop");
		jw_str(&w, "kind", tag);
		jw_int(&w, "cpu", cpu);
		jw_uint(&w, "count", n);
		jw_end(&w, 0);
	}
}

/*
 * dtrace:::ERROR: {unused, epid, action, pc, kind, addr} after the header;
 * action 0 is the predicate, actions count from 1 (as DTrace prints them).
 */
static void deliver_fault(struct xdt_hdl *h, const struct xdt_consumer *c,
			  const char *rec, __u32 size)
{
	__u64 v[6] = { 0 };
	struct xdt_fault f;

	memcpy(v, rec + sizeof(struct xdt_rechdr),
	       size - sizeof(struct xdt_rechdr) < sizeof(v) ?
	       size - sizeof(struct xdt_rechdr) : sizeof(v));
	f.ep = ep_find(h, (__u32)v[1]);
	f.action = v[2];
	/* the kernel's action index, as DTrace numbers the clause's actions */
	if (f.ep && f.ep->clause < (unsigned)h->p.nclauses && f.action &&
	    f.action <= (__u64)h->p.clauses[f.ep->clause].nactions &&
	    h->p.clauses[f.ep->clause].dact)
		f.action = (__u64)h->p.clauses[f.ep->clause].dact[f.action - 1];
	f.pc = v[3];
	f.kind = v[4];
	f.addr = v[5];
	f.what = fault_name(v[4]);
	(c && c->fault ? c->fault : print_fault)(h, &f, c ? c->arg : NULL);
}

/*
 * The device: /dev/xdt, or under -x hostvm the host VM (core/host/hostvm.h),
 * which answers the same ioctls with the same core code in this process.
 */
static int dev_ioctl(struct xdt_hdl *h, unsigned long cmd, void *arg)
{
	if (h->vm)
		return xdt_hostvm_ioctl(h->vm, cmd, arg);
	return ioctl(h->fd, cmd, arg);
}

int dt_ioctl(struct xdt_hdl *h, unsigned long cmd, void *arg)
{
	return dev_ioctl(h, cmd, arg);
}

/*
 * -F: the record after the one at hand in this buffer, which decides
 * whether a return unindents (print.c print_flow): the next one that is
 * neither abandoned by a fault nor an ERROR record's.
 */
static void flow_next(struct xdt_hdl *h, size_t size, size_t off)
{
	struct xdt_rechdr hd;
	const struct xdt_eprobe *ep = NULL;

	while (off + sizeof(hd) <= size) {
		memcpy(&hd, h->buf + off, sizeof(hd));
		if (hd.size < sizeof(hd) || off + hd.size > size)
			break;
		if (hd.epid && hd.epid != UINT32_MAX) {
			ep = ep_find(h, hd.epid);
			break;
		}
		off += (hd.size + 7) & ~7u;
	}
	h->pr.flow.next_epid = ep ? ep->epid : 0;
	h->pr.flow.next_probe = ep ? ep->probe : 0;
}

/* One record at @data of @cpu's buffer: printed or handed over; 1: stop. */
static int one_record(struct xdt_hdl *h, const struct xdt_consumer *c,
		      int cpu, char *data)
{
	struct xdt_rechdr hd;
	const struct xdt_eprobe *ep;

	/*
	 * Output that cannot be written ends the drain here, not after the
	 * rest of the buffer is formatted for nothing: a reader of the pipe
	 * gone, a full disk, or a program whose printa() of a growing
	 * aggregation in a 1 kHz clause makes output quadratic in time
	 * (the fuzzer's output budget) -- work() then says why.
	 */
	if (ferror(dt_out(h)))
		return 1;
	memcpy(&hd, data, sizeof(hd));
	if (hd.epid == UINT32_MAX)
		return 0;	/* abandoned by a fault; its ERROR record follows */
	if (hd.epid == 0) {
		deliver_fault(h, c, data, hd.size);
		return 0;
	}
	if ((ep = ep_find(h, hd.epid)) &&
	    ep->clause < (unsigned)h->p.nclauses &&
	    hd.size >= h->p.clauses[ep->clause].recsize) {
		struct xdt_record r = { cpu, ep, (int)ep->clause, data, hd.size };

		return (c && c->record ? c->record : print_rec)(h, &r,
							c ? c->arg : NULL);
	}
	return 0;
}

/* @cpu's buffer into h->buf: its size, 0 for none (an offline CPU). */
static size_t snap_cpu(struct xdt_hdl *h, const struct xdt_consumer *c,
		       int cpu)
{
	struct xdt_bufsnap s;

	for (;;) {
		memset(&s, 0, sizeof(s));
		s.cpu = (__u32)cpu;
		s.size = (__u32)h->bufcap;
		s.buf = (__u64)(uintptr_t)h->buf;
		if (!dev_ioctl(h, XDT_IOC_BUFSNAP, &s))
			break;
		if ((errno == ENOSPC || errno == EOVERFLOW || errno == E2BIG ||
		     errno == EMSGSIZE) && h->bufcap < (256u << 20)) {
			/* our buffer is smaller than the kernel's: grow, retry */
			h->buf = xrealloc(h->buf, h->bufcap * 2);
			h->bufcap *= 2;	/* after: xrealloc may unwind */
			continue;
		}
		return 0;	/* offline CPU and the like: nothing to read */
	}
	if (s.drops)
		(c && c->drop ? c->drop : print_drop)(h, XDT_DROP_PRINCIPAL, cpu,
						      s.drops, c ? c->arg : NULL);
	h->dropped |= s.drops != 0;
	if (s.size > h->fill)
		h->fill = s.size;
	return s.size > h->bufcap ? h->bufcap : s.size;
}

/*
 * The interval to the next buffer read.  DTrace reads every switchrate
 * whatever the load, so a principal buffer that fills faster than that
 * drops, however idle the consumer is: at 1 s and 256 KiB a CPU, a
 * printf of three integers and execname (a 280-byte record) dropped at
 * 1000 firings a second where bpftrace, which reads its perf ring as it
 * fills, kept up with far more (bench/README.md, issue 36).  So a read
 * that found a buffer at least half full, or dropping, brings the next
 * one 4x closer, down to DT_DRAIN_MIN_NS; reads that find every buffer
 * less than an eighth full double the interval back up to switchrate.
 * The first read comes DT_DRAIN_FIRST_NS after GO (@cur_ns 0): the
 * buffers' first interval has no read before it to go by, and at a
 * whole switchrate a fast enabling has dropped before the first read.
 * Trade-off: more ioctls and wake-ups, but only while the buffers fill
 * (and the few reads at the start that double the interval back up); a
 * light enabling is read at switchrate from then on, as in DTrace.
 */
#define DT_DRAIN_MIN_NS 10000000LL
#define DT_DRAIN_FIRST_NS 100000000LL

long long dt_drain_next(long long cur_ns, long long switch_ns, size_t fill,
			size_t bufsize, int dropped)
{
	long long min = switch_ns < DT_DRAIN_MIN_NS ? switch_ns : DT_DRAIN_MIN_NS;

	if (cur_ns <= 0)
		return switch_ns < DT_DRAIN_FIRST_NS ? switch_ns : DT_DRAIN_FIRST_NS;
	if (cur_ns > switch_ns)
		cur_ns = switch_ns;
	if (dropped || fill >= bufsize / 2)
		return cur_ns / 4 < min ? min : cur_ns / 4;
	if (fill < bufsize / 8)
		return cur_ns * 2 > switch_ns ? switch_ns : cur_ns * 2;
	return cur_ns;
}

/* The next whole record at @off of a snapshot of @size bytes, or 0. */
static __u32 rec_at(const char *buf, size_t size, size_t off)
{
	struct xdt_rechdr hd;

	if (off + sizeof(hd) > size)
		return 0;
	memcpy(&hd, buf + off, sizeof(hd));
	if (hd.size < sizeof(hd) || off + hd.size > size)
		return 0;
	return hd.size;
}

static int agg_snap(xdt_hdl_t *h, int force, const struct xdt_consumer *c);

static int drain_cpu(struct xdt_hdl *h, const struct xdt_consumer *c, int cpu)
{
	size_t size = snap_cpu(h, c, cpu), off = 0;
	__u32 n;
	int stop = 0;

	/*
	 * The aggregations after the buffer: a printa() record read here
	 * fired before this snapshot, so it prints totals at least as new
	 * as itself.  Snapshot first and a firing between the two reads
	 * printed totals without its own update (multiaggs/tst.sort.d on
	 * riscv64, once reads came sooner than a whole switchrate).
	 */
	if (size)
		agg_snap(h, 1, c);
	while (!stop && (n = rec_at(h->buf, size, off))) {
		if (h->pr.flow.on)
			flow_next(h, size, off + ((n + 7) & ~7u));
		stop = one_record(h, c, cpu, h->buf + off);
		off += (n + 7) & ~7u;
	}
	return stop;
}

/*
 * -x temporal: the CPUs' records in time order.  Each record of a clause
 * that records carries its firing's timestamp first (prog_temporal); a
 * fault's record and an abandoned one take the one before them on their
 * CPU, so each CPU's own order is kept.  Every CPU is read, the records
 * merged by (timestamp, order read) and printed up to the time the reads
 * began -- a firing on one CPU after that may still be on its way, and
 * one on another CPU earlier than it may not be read yet -- the rest
 * wait for the next drain; the last drain (STOP) prints them all.  The
 * timestamp is the kernel's CLOCK_MONOTONIC (the host VM's too), the
 * clock the cut is read from.  illumos keeps the same rule with the
 * snapshots' own times.
 */
struct dt_trec {
	__u64 ts, seq;
	int cpu;
	char *data;
};

static int trec_cmp(const void *a, const void *b)
{
	const struct dt_trec *x = a, *y = b;

	if (x->ts != y->ts)
		return x->ts < y->ts ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static __u64 trec_ts(struct xdt_hdl *h, const char *data, __u32 size,
		     __u64 prev)
{
	struct xdt_rechdr hd;
	const struct xdt_eprobe *ep;
	__u64 ts;

	memcpy(&hd, data, sizeof(hd));
	if (!hd.epid || hd.epid == UINT32_MAX ||
	    size < sizeof(hd) + sizeof(ts) || !(ep = ep_find(h, hd.epid)) ||
	    ep->clause >= (unsigned)h->p.nclauses ||
	    h->p.clauses[ep->clause].ts <= 0)
		return prev;
	memcpy(&ts, data + sizeof(hd), sizeof(ts));
	return ts;
}

static int drain_temporal(struct xdt_hdl *h, const struct xdt_consumer *c,
			  int last)
{
	struct timespec now;
	__u64 cut = UINT64_MAX, seq = 0;
	size_t k, keep = 0;
	int stop = 0;

	if (!last) {
		clock_gettime(CLOCK_MONOTONIC, &now);
		cut = (__u64)now.tv_sec * 1000000000ULL + (__u64)now.tv_nsec;
	}
	for (k = 0; k < h->ntp; k++)
		h->tp[k].seq = seq++;
	for (int cpu = 0; cpu < h->ncpus; cpu++) {
		size_t size = snap_cpu(h, c, cpu), off = 0;
		__u64 prev = 0;
		__u32 n;

		while ((n = rec_at(h->buf, size, off))) {
			if (h->ntp == h->tpcap) {
				size_t cap = h->tpcap ? 2 * h->tpcap : 256;

				h->tp = xrealloc(h->tp, cap * sizeof(*h->tp));
				h->tpcap = cap;
			}
			prev = trec_ts(h, h->buf + off, n, prev);
			h->tp[h->ntp] = (struct dt_trec){ prev, seq++, cpu,
							  xzalloc(n) };
			memcpy(h->tp[h->ntp++].data, h->buf + off, n);
			off += (n + 7) & ~7u;
		}
	}
	if (h->ntp)
		qsort(h->tp, h->ntp, sizeof(*h->tp), trec_cmp);
	agg_snap(h, 1, c);	/* after the buffers: see drain_cpu() */
	for (k = 0; k < h->ntp; k++) {
		struct dt_trec *t = &h->tp[k];

		if (stop || t->ts >= cut) {
			if (stop) {
				free(t->data);
			} else {
				h->tp[keep++] = *t;
			}
			continue;
		}
		if (h->pr.flow.on) {
			/* the next record printed, for a return's unindent */
			const struct xdt_eprobe *ep = NULL;
			struct xdt_rechdr hd;

			for (size_t j = k + 1; j < h->ntp && h->tp[j].ts < cut; j++) {
				memcpy(&hd, h->tp[j].data, sizeof(hd));
				if (hd.epid && hd.epid != UINT32_MAX) {
					ep = ep_find(h, hd.epid);
					break;
				}
			}
			h->pr.flow.next_epid = ep ? ep->epid : 0;
			h->pr.flow.next_probe = ep ? ep->probe : 0;
		}
		stop = one_record(h, c, t->cpu, t->data);
		free(t->data);
	}
	h->ntp = keep;
	return stop;
}

/* -x temporal's records still held, at xdt_close() */
void xdt_temporal_free(struct xdt_hdl *h)
{
	for (size_t k = 0; k < h->ntp; k++)
		free(h->tp[k].data);
	free(h->tp);
	h->tp = NULL;
	h->ntp = h->tpcap = 0;
}

static int drain(struct xdt_hdl *h, const struct xdt_consumer *c, int last)
{
	int stop = 0;

	if (h->p.temporal)
		stop = drain_temporal(h, c, last);
	for (int cpu = 0; cpu < h->ncpus && !stop && !h->p.temporal; cpu++)
		stop = drain_cpu(h, c, cpu);
	errno = 0;
	if ((fflush(dt_out(h)) || ferror(dt_out(h))) && !h->outerr)
		h->outerr = errno ? errno : EIO;
	fflush(stdout);
	return stop || h->outerr;
}


/* setopt() reaching the consumer: an option now, as -x would have set it */
static int run_setopt(void *ctx, const char *name, const char *val)
{
	xdt_hdl_t *h = ctx;

	if (xdt_setopt(h, name, val))
		return -1;
	h->pr.quiet = h->o.quiet;
	return 0;
}

/*
 * A -n program's text as its "invalid probe specifier" message quotes
 * it: whole, as DTrace does, up to 3/8 of errmsg, else its head and
 * "..." -- the reason after it must always fit (a 1300-byte fuzzed -n
 * program's "does not match any probes" fell off the end of errmsg).
 */
static const char *spec_text(const xdt_hdl_t *h, const char *text, char *buf,
			     size_t len)
{
	size_t max = sizeof(h->errmsg) * 3 / 8;	/* beside a why of 1/2 */

	if (strlen(text) <= max)
		return text;
	snprintf(buf, len, "%.*s...", (int)(max < len - 4 ? max : len - 4), text);
	return buf;
}

/* The enabled probes, by EPID (at ENABLE, and after late_probes()) */
static int query_eps(xdt_hdl_t *h)
{
	struct xdt_eprobe_query eq;
	__u32 cap = h->neps > 256 ? h->neps : 256;

	for (;;) {
		h->eps = xrealloc(h->eps, cap * sizeof(*h->eps));
		eq.cap = cap;
		eq.count = 0;
		eq.buf = (__u64)(uintptr_t)h->eps;
		if (dev_ioctl(h, XDT_IOC_EPROBES, &eq) < 0)
			return HERR(h, "failed to list enabled probes: %s", strerror(errno));
		if (eq.count <= cap)
			break;
		cap = eq.count;
	}
	h->neps = eq.count;
	qsort(h->eps, h->neps, sizeof(*h->eps), ep_cmp);
	return 0;
}

/*
 * Objects a traced process mapped since the last look (dlopen()): the pid
 * and USDT clauses naming it are made again, and the kernel binds the new
 * probes to the running clauses (xdt_state_bind_late), as DTrace makes
 * them at the loader's RD_DLACTIVITY.  DTrace stops the process there;
 * xdt looks at every switchrate, so what the process runs between its
 * dlopen() and the next look is not traced (docs/d-language.md).  The
 * process's maps, not a loader's hook: any loader, and no stop.
 */
static void late_probes(xdt_hdl_t *h)
{
	const struct prog *p = &h->p;
	unsigned total = 0;
	int k, any = 0;

	for (k = 0; k < h->nlsig; k++) {
		uint64_t sig = dt_umaps_sig(h->lsig[k].pid);

		h->lsig[k].changed = sig && sig != h->lsig[k].sig;
		any |= h->lsig[k].changed;
		if (sig)
			h->lsig[k].sig = sig;
	}
	for (int i = 0; any && i < p->nclauses; i++) {
		const struct xdt_probedesc *d = &p->clauses[i].desc;
		pid_t pid = dt_uproc_pid(d);
		unsigned bound = 0;
		char err[512];

		if (pid <= 0 || (i && !memcmp(d, &p->clauses[i - 1].desc, sizeof(*d))))
			continue;
		for (k = 0; k < h->nlsig && h->lsig[k].pid != pid; k++)
			;
		if (k == h->nlsig || !h->lsig[k].changed)
			continue;
		/* -2: still no object matches its module; fine, as -Z was */
		if (dt_uprobes_make(h->fd, d, "", err, sizeof(err), &bound) == -1 &&
		    !h->late_warned++)
			fprintf(stderr, "dtrace: probes in objects pid %d mapped "
				"while traced: %s\n", (int)pid, err);
		total += bound;
	}
	if (total)
		query_eps(h);
}

/*
 * Threads the kernel holds at their loader's r_brk (XDT_IOC_UHOLD): the
 * objects mapped since are looked at (late_probes), then they go on.
 */
static void late_holds(xdt_hdl_t *h)
{
	struct xdt_uhold_req q[sizeof(h->lsig) / sizeof(h->lsig[0])];
	int k;

	for (k = 0; k < h->nlsig; k++) {
		memset(&q[k], 0, sizeof(q[k]));
		q[k].pid = h->lsig[k].pid;
		q[k].op = XDT_UHOLD_PEEK;
		if (!h->lsig[k].held || ioctl(h->fd, XDT_IOC_UHOLD, &q[k]) < 0)
			q[k].seq = 0;
	}
	late_probes(h);
	for (k = 0; k < h->nlsig; k++) {
		if (!q[k].seq)
			continue;
		q[k].op = XDT_UHOLD_ACK;
		ioctl(h->fd, XDT_IOC_UHOLD, &q[k]);
	}
}

/* The kernel holds the traced processes at r_brk while tracing */
static void late_hold_set(xdt_hdl_t *h)
{
	for (int k = 0; k < h->nlsig; k++) {
		struct xdt_uhold_req q;

		memset(&q, 0, sizeof(q));
		q.pid = h->lsig[k].pid;
		q.op = XDT_UHOLD_SET;
		q.addr = dt_uproc_rbrk(q.pid);
		h->lsig[k].held = q.addr && ioctl(h->fd, XDT_IOC_UHOLD, &q) == 0;
		if (h->lsig[k].held)
			continue;
		/*
		 * uprobes cannot take r_brk's instruction (riscv64 on 6.1
		 * refuses compressed jumps, and _dl_debug_state is one
		 * c.jr ra): the return of dlopen() then, after the object's
		 * initialisers, where the caller can first call into it.
		 * Neither (a static program): switchrate's look only.
		 */
		q.op = XDT_UHOLD_SET_RET;
		q.addr = dt_uproc_sym(q.pid, "dlopen");
		h->lsig[k].held = q.addr && ioctl(h->fd, XDT_IOC_UHOLD, &q) == 0;
	}
}

/* Is a thread held for us?  (poll(): EPOLLPRI) */
static int late_attn(xdt_hdl_t *h)
{
	struct pollfd p = { h->fd, POLLPRI, 0 };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLPRI);
}

int xdt_wait(xdt_hdl_t *h, long max_us)
{
	long us = xdt_switchrate_us(h);
	struct pollfd p = { h->fd, POLLPRI, 0 };
	struct timespec ts;

	if (max_us >= 0 && max_us < us)
		us = max_us;
	if (h->fd >= 0 && h->late && h->running)
		return poll(&p, 1, (int)((us + 999) / 1000)) < 0 && errno != EINTR ? -1 : 0;
	ts.tv_sec = us / 1000000;
	ts.tv_nsec = (us % 1000000) * 1000;
	return nanosleep(&ts, NULL) < 0 && errno != EINTR ? -1 : 0;
}

/* The maps late_probes() compares with: each traced process's at GO */
static void late_baseline(xdt_hdl_t *h)
{
	const struct prog *p = &h->p;

	for (int i = 0; i < p->nclauses; i++) {
		pid_t pid = dt_uproc_pid(&p->clauses[i].desc);
		int k;

		if (pid <= 0)
			continue;
		for (k = 0; k < h->nlsig && h->lsig[k].pid != pid; k++)
			;
		/* (8 processes; more are traced as at GO) */
		if (k < h->nlsig || k == (int)(sizeof(h->lsig) / sizeof(h->lsig[0])))
			continue;
		h->lsig[k].pid = pid;
		h->lsig[k].sig = dt_umaps_sig(pid);
		h->nlsig++;
	}
}

/*
 * What GO and dtrace -A both need first: the program's checks, its
 * object (h->blob, @size bytes) and the printers' setup.
 */
int dt_prepare(xdt_hdl_t *h, size_t *size)
{
	const struct prog *p = &h->p;
	int i;

	if (!p->nclauses)
		return HERR(h, "no probes specified");
	if (p->destructive && !h->o.destructive)
		return HERR(h, "could not enable tracing: Destructive actions not allowed");
	if (h->bufsize_toobig)	/* bufresize=manual: DTrace's ENOMEM */
		return HERR(h, "could not enable tracing: Not enough space");
	/* a bufsize smaller than a record: DTrace's E2BIG (the kernel's
	   buffers are at least 4 KiB, but the request is refused as asked) */
	for (i = 0; h->bufsize_set && i < p->nclauses; i++)
		if (p->clauses[i].recsize > h->o.bufsize)
			return HERR(h, "could not enable tracing: Enabling exceeds size of buffer");
	h->p.flags = h->o.destructive ? XDT_PROG_DESTRUCTIVE : 0;
	free(h->blob);
	h->blob = prog_blob(p, size);
	h->pr.quiet = h->o.quiet;
	h->pr.setopt = run_setopt;
	h->pr.ctx = h;
	if (!h->pr.aggs)
		h->pr.aggs = aggtab_new();
	if (!h->aggcap)
		h->aggcap = 1 << 16;
	h->pr.last_nl = 1;
	return 0;
}

/* /dev/xdt, or the host VM under -x hostvm, open in h->fd / h->vm */
int dt_open_dev(xdt_hdl_t *h)
{
	if (h->o.hostvm) {
		h->vm = xdt_hostvm_open();
		if (!h->vm)
			return HERR(h, "cannot start the host VM: %s", strerror(errno));
	} else {
		h->fd = open_dev_err(h->errmsg, sizeof(h->errmsg));
		if (h->fd < 0)
			return -1;
	}
	return 0;
}

/*
 * Make the pid provider's probes and enable the program (h->blob, @size
 * bytes) on the open device; *@unmatched (if not NULL) gets whether a
 * clause matched nothing under -Z.  0, or -1 with the error.
 */
int dt_enable(xdt_hdl_t *h, size_t size, int *unmatched)
{
	const struct prog *p = &h->p;
	struct xdt_enable en;
	int i;

	/* the -c/-p process's symbols, for ustack(), while it lives */
	if (!h->vm && h->env.target > 0 && xdt_uses_process(h, h->env.target))
		dt_usyms_load(h->env.target);
	/* the pid provider's probes are made now, in the live process */
	for (i = 0; !h->vm && i < p->nclauses; i++) {
		const struct xdt_probedesc *d = &p->clauses[i].desc;
		char where[48];
		int r;

		if (i && !memcmp(d, &p->clauses[i - 1].desc, sizeof(*d)))
			continue;
		snprintf(where, sizeof(where), "line %d:%d: ", p->clauses[i].line,
			 p->clauses[i].col);
		r = dt_uprobes_make(h->fd, d, where, h->errmsg, sizeof(h->errmsg),
				    NULL);
		if (dt_uproc_pid(d) > 0)
			h->late = 1;	/* its process may map more objects */
		if (r == -2 && h->zdefs) {
			h->errmsg[0] = 0;	/* -Z: it matches nothing */
		} else if (r < 0) {
			char why[sizeof(h->errmsg) / 2], head[sizeof(h->errmsg) * 3 / 8 + 4];
			int src = p->clauses[i].src;

			memcpy(why, h->errmsg, sizeof(why) - 1);
			why[sizeof(why) - 1] = 0;
			if (p->srcfile[src])
				return HERR(h, "failed to compile script %.400s: %s",
					    p->srcdesc[src], why);
			return HERR(h, "invalid probe specifier %s: %s",
				    spec_text(h, p->srctext[src], head, sizeof(head)), why);
		}
	}
	if (h->late)
		late_baseline(h);
	memset(&en, 0, sizeof(en));
	en.prog = (__u64)(uintptr_t)h->blob;
	en.size = (__u32)size;
	en.unmatched = -1;
	/*
	 * Room for the probes of objects a traced process dlopen()s while
	 * tracing (late_probes()): 16k ECBs, 640 KB of kernel memory, only
	 * for a program with pid/USDT clauses.
	 */
	en.late = h->late ? DT_LATE_ECBS : 0;
	if (dev_ioctl(h, XDT_IOC_ENABLE, &en) < 0 && en.unmatched < 0) {
		/* -w from a CAP_PERFMON-only consumer: the kernel says why */
		if (errno == EPERM && en.err[0])
			return HERR(h, "could not enable tracing: %.*s",
				    (int)sizeof(en.err), en.err);
		if (errno == EINVAL)
			return HERR(h, "failed to enable '%s': %.*s", p->srcdesc[0],
				    (int)sizeof(en.err), en.err);
		return HERR(h, "failed to enable '%s': %s", p->srcdesc[0], strerror(errno));
	}
	/* -Z: a clause that matched nothing is simply not enabled (DTrace's
	   DTRACE_C_ZDEFS); the kernel bound the others */
	if (en.unmatched >= 0 && en.unmatched < p->nclauses && !h->zdefs) {
		const struct xdt_probedesc *d = &p->clauses[en.unmatched].desc;
		int src = p->clauses[en.unmatched].src;
		/* DTrace's compile error D_PDESC_ZERO: under errtags its tag
		   and the description's place, as xdt's compile errors have
		   them (xdt finds it when the kernel matches) */
		char tag[64] = "", head[sizeof(h->errmsg) * 3 / 8 + 4];

		if (dt_errtags)
			snprintf(tag, sizeof(tag), "[D_PDESC_ZERO] line %d:%d: ",
				 p->clauses[en.unmatched].line,
				 p->clauses[en.unmatched].col);

		/*
		 * A script is named by its file, as DTrace does: its whole
		 * text in the message filled errmsg and cut off the reason
		 * (seen with a 250-clause kinst script).
		 */
		if (p->srcfile[src])
			return HERR(h, "failed to compile script %s: %sprobe description %s:%s:%s:%s does not match any probes",
				    p->srcdesc[src], tag, d->prov, d->mod, d->func, d->name);
		return HERR(h, "invalid probe specifier %s: %sprobe description %s:%s:%s:%s does not match any probes",
			    spec_text(h, p->srctext[src], head, sizeof(head)), tag,
			    d->prov, d->mod, d->func, d->name);
	}
	if (unmatched)
		*unmatched = en.unmatched >= 0 && en.unmatched < p->nclauses;
	return 0;
}

/* Once the kernel's state runs (GO, or a claimed anonymous one): the
   enabled probes, the read buffer, the clocks of the reads. */
int dt_running(xdt_hdl_t *h)
{
	struct timespec ts;

	if (query_eps(h) < 0)
		return -1;
	h->ncpus = h->vm ? 1 : (int)sysconf(_SC_NPROCESSORS_CONF);
	if (h->ncpus < 1)
		h->ncpus = 1;
	h->bufcap = h->o.bufsize;
	free(h->buf);
	h->buf = xzalloc(h->bufcap);
	h->running = 1;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	h->lastdrain_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	h->laststatus_ns = h->lastdrain_ns;
	return 0;
}

/*
 * dtrace -v's report for the -n/-s text @src, as dtrace(1)'s exec_prog()
 * prints it (on its output, -o's file too): the least attributes of its
 * clauses' probe descriptions and of their statements (a program without
 * clauses: Stable/Stable/Common).  Under -e (@exec 0) each description
 * follows with its probe's attributes and argument types, when its
 * description names one provider's probes it can speak for.
 */
static void stability_report(xdt_hdl_t *h, int src, int exec)
{
	const struct prog *p = &h->p;
	FILE *fp = dt_out(h);
	struct dattr d = dt_attr_max, s = dt_attr_max;
	int any = 0;

	for (int i = 0; i < p->nclauses; i++) {
		if (p->clauses[i].src != src)
			continue;
		d = dt_attr_min(d, p->clauses[i].descattr);
		s = dt_attr_min(s, p->clauses[i].stmtattr);
		any = 1;
	}
	if (!any)
		d = s = dt_attr_def;
	fprintf(fp, "\nStability attributes for %s %s:\n",
		p->srcfile[src] ? "script" : "description", p->srcdesc[src]);
	dt_attr_print(fp, "Minimum Probe Description Attributes", d);
	dt_attr_print(fp, "Minimum Statement Attributes", s);
	if (exec) {
		fprintf(fp, "\n");
		return;
	}
	for (int i = 0; i < p->nclauses; i++) {
		const struct clause *c = &p->clauses[i], *l = i ? c - 1 : NULL;

		if (c->src != src || (l && l->src == src && l->line == c->line &&
				      l->col == c->col && !strcmp(l->descstr, c->descstr)))
			continue;	/* a piece of the clause before */
		fprintf(fp, "\n%s:%s:%s:%s\n", c->desc.prov, c->desc.mod,
			c->desc.func, c->desc.name);
		fflush(fp);
		if (c->desc.prov[0] && !strpbrk(c->desc.prov, "*?[") &&
		    dt_provider_attr(p, c->desc.prov))
			list_argtypes(&c->desc, dt_provider_attr(p, c->desc.prov));
	}
}

void xdt_stability_report(xdt_hdl_t *h)
{
	for (int i = 0; i < h->p.nsrc; i++)
		stability_report(h, i, 0);
}

void xdt_set_verbose(xdt_hdl_t *h, int on)
{
	h->verbose = on;
}

static int go(xdt_hdl_t *h)
{
	const struct prog *p = &h->p;
	size_t size;
	int i;

	if (dt_prepare(h, &size) < 0 || dt_open_dev(h) < 0 ||
	    dt_enable(h, size, NULL) < 0 || query_eps(h) < 0)
		return -1;
	/*
	 * dtrace(1)'s notice()s, one per -n/-s, each with the enabled probes
	 * its own clauses made (DTrace's dpi_matches: -Z's zero included);
	 * -q or the quiet option silences them.
	 */
	for (i = 0; i < p->nsrc; i++) {
		unsigned n = 0;

		for (__u32 k = 0; k < h->neps; k++)
			n += h->eps[k].clause < (unsigned)p->nclauses &&
			     p->clauses[h->eps[k].clause].src == i;
		if (!h->o.quiet)
			fprintf(stderr, "dtrace: %s '%s' matched %u probe%s\n",
				p->srcfile[i] ? "script" : "description",
				p->srcdesc[i], n, n == 1 ? "" : "s");
		if (h->verbose)
			stability_report(h, i, 1);
	}
	/*
	 * The loader holds go in before GO, so that no dlopen() between GO
	 * and them runs unheld (the kernel holds a thread that calls before
	 * GO until this consumer's first look).
	 */
	if (h->late)
		late_hold_set(h);
	if (dev_ioctl(h, XDT_IOC_GO, NULL) < 0) {
		if (errno == EBUSY)
			return HERR(h, "could not enable tracing: an instruction is "
				    "already patched (by ftrace, kprobes, a debugger, or "
				    "an fbt and a kinst probe of this program on the same "
				    "instruction); the kernel log names it");
		return HERR(h, "could not enable tracing: %s", strerror(errno));
	}
	if (dt_running(h) < 0)
		return -1;
	return 0;
}

int xdt_go(xdt_hdl_t *h)
{
	int ret = -1;

	if (h->grabanon)	/* DTrace's dtrace_go() under grabanon */
		return xdt_grabanon(h);
	XDT_GUARDED(h, return -1, ret = go(h));
	return ret;
}

static int work(xdt_hdl_t *h, const struct xdt_consumer *c)
{
	struct xdt_status st;
	struct timespec ts;
	long long now;

	if (!h->running)
		return HERR(h, "not tracing");
	/* a traced process waits at its loader's r_brk: its objects now */
	if (h->late && !h->vm && late_attn(h))
		late_holds(h);
	/* buffers (and aggregations, at aggrate) every switchrate */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	/* the host VM's BEGIN has run by now: its records are all there */
	if (!h->drain_ns)
		h->drain_ns = dt_drain_next(0, h->o.switchrate_us * 1000LL, 0,
					    h->o.bufsize, 0);
	if (h->vm || now - h->lastdrain_ns >= h->drain_ns) {
		h->lastdrain_ns = now;
		h->fill = 0;
		h->dropped = 0;
		/* ustack()'s names for what the -c/-p process dlopen()ed */
		if (!h->vm && h->env.target > 0)
			dt_usyms_refresh(h->env.target);
		/* probes in objects the traced processes mapped since */
		if (h->late)
			late_probes(h);
		/* at aggrate; and forced after each buffer drain() reads, so
		   a printa() there sees totals at least as new as its record */
		agg_snap(h, 0, c);
		if (drain(h, c, 0)) {
			if (h->outerr)
				return HERR(h, "processing aborted: failed to write output: %s",
					    strerror(h->outerr));
			return XDT_WORK_DONE;
		}
		h->drain_ns = dt_drain_next(h->drain_ns,
					    h->o.switchrate_us * 1000LL,
					    h->fill, h->o.bufsize, h->dropped);
	} else {
		/*
		 * Between drains too, at aggrate (agg_snap keeps the rate):
		 * the kernel's arenas hold only what one snapshot interval
		 * aggregates, so an aggrate shorter than switchrate is how a
		 * small aggsize is made to last, as in DTrace's dtrace_work().
		 */
		agg_snap(h, 0, c);
	}
	/* exit(), or under bufpolicy=fill a full buffer: DTrace stops when
	   its status (every statusrate) says so */
	if (now - h->laststatus_ns >= h->o.statusrate_us * 1000LL) {
		h->laststatus_ns = now;
		memset(&st, 0, sizeof(st));
		if (dev_ioctl(h, XDT_IOC_STATUS, &st) == 0 &&
		    (st.exited || st.filled))
			return XDT_WORK_DONE;
	}
	/* The host VM has nothing to fire after BEGIN but END: done. */
	if (h->vm)
		return XDT_WORK_DONE;
	return XDT_WORK_OKAY;
}

int xdt_work(xdt_hdl_t *h, const struct xdt_consumer *c)
{
	int ret = -1;

	XDT_GUARDED(h, return -1, ret = work(h, c));
	return ret;
}

static int stop(xdt_hdl_t *h, const struct xdt_consumer *c)
{
	int ret = 0;

	if (!h->running)
		return HERR(h, "not tracing");
	if (dev_ioctl(h, XDT_IOC_STOP, NULL) < 0)
		ret = HERR(h, "failed to stop tracing: %s", strerror(errno));
	agg_snap(h, 1, c);	/* END's aggregations, before its printa()s */
	drain(h, c, 1);
	h->running = 0;
	h->stopped = 1;
	return ret;
}

int xdt_stop(xdt_hdl_t *h, const struct xdt_consumer *c)
{
	int ret = -1;

	/* stopped even so: the kernel's side went first (stop()) */
	XDT_GUARDED(h, h->running = 0; h->stopped = 1; return -1,
		    ret = stop(h, c));
	return ret;
}

int xdt_status(xdt_hdl_t *h, struct xdt_status *st)
{
	memset(st, 0, sizeof(*st));
	if (h->fd < 0 && !h->vm)
		return HERR(h, "not enabled");
	if (dev_ioctl(h, XDT_IOC_STATUS, st) < 0)
		return HERR(h, "failed to read the status: %s", strerror(errno));
	return 0;
}

/*
 * The drops and errors a run ended with, as DTrace words them
 * (dt_handle.c's table), each with its DTRACEDROP_* tag under -x droptags;
 * under -x oformat=json each is also a "drop" object on the output.
 */
static void report_drops(xdt_hdl_t *h, const struct xdt_status *st)
{
	int tags = h->o.droptags;
	struct jw w = { dt_out(h), 0, { 0 } };

	const struct {
		__u64 n;
		const char *tag, *what, *plural;
	} d[] = {
		{ st->dyndrops - st->dyndrops_dirty, "DTRACEDROP_DYNAMIC",
		  "dynamic variable drop", "s" },
		{ st->dyndrops_dirty, "DTRACEDROP_DYNDIRTY",
		  "dynamic variable drop", "s with non-empty dirty list" },
		{ st->specdrops, "DTRACEDROP_SPEC", "speculative drop", "s" },
		{ st->specbusy, "DTRACEDROP_SPECBUSY", "failed speculation",
		  "s (available buffer(s) still busy)" },
		{ st->specunavail, "DTRACEDROP_SPECUNAVAIL", "failed speculation",
		  "s (no speculative buffer available)" },
		{ st->dblerrors, "DTRACEDROP_DBLERROR", "error",
		  "s in ERROR probe enabling" },
	};

	for (size_t i = 0; i < sizeof(d) / sizeof(d[0]); i++) {
		const char *pl = d[i].plural;

		if (!d[i].n)
			continue;
		/* the plural's "s" goes only when n != 1; the rest stays */
		fprintf(stderr, "dtrace: %s%s%s%llu %s%s\n", tags ? "[" : "",
			tags ? d[i].tag : "", tags ? "] " : "",
			(unsigned long long)d[i].n, d[i].what,
			d[i].n == 1 && pl[0] == 's' ? pl + 1 : pl);
		if (h->pr.json) {
			jw_obj(&w, NULL);
			jw_str(&w, "type", "drop");
			jw_str(&w, "kind", d[i].tag);
			jw_uint(&w, "count", d[i].n);
			jw_end(&w, 0);
		}
	}
	if (st->errors)
		fprintf(stderr, "dtrace: %llu error%s\n",
			(unsigned long long)st->errors, st->errors == 1 ? "" : "s");
}

void xdt_report_drops(xdt_hdl_t *h, const struct xdt_status *st)
{
	/* the report is cut short; h->errmsg says why */
	XDT_GUARDED(h, return, report_drops(h, st));
}

/*
 * Trace until exit(), a signal, or the -c/-p process is gone; then stop,
 * print the aggregations and the drops/errors, as dtrace(1) does.
 */
int xdt_exit_status(const xdt_hdl_t *h)
{
	return h->pr.exit_status;
}

/*
 * Take the kernel's aggregation data since the last snapshot and fold it
 * into the totals (agg.c): at most every aggrate unless @force (the end).
 * DTrace snapshots before it consumes records (dtrace_work), so printa()
 * and clear() act on data at least as new as the last snapshot.
 */
static int agg_snap(xdt_hdl_t *h, int force, const struct xdt_consumer *c)
{
	struct xdt_aggsnap a;
	struct timespec ts;
	long long now;
	char *buf = NULL;
	__u64 *drops;

	if (!h->p.naggs || !h->pr.aggs)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	now = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (!force && h->lastagg_ns && now - h->lastagg_ns < h->o.aggrate_us * 1000LL)
		return 0;
	h->lastagg_ns = now;
	/* only now: the returns above took it with them (a leak per work()) */
	drops = xzalloc((size_t)h->ncpus * sizeof(*drops));
	for (;;) {
		buf = xrealloc(buf, h->aggcap);
		memset(&a, 0, sizeof(a));
		a.size = (__u32)h->aggcap;
		a.buf = (__u64)(uintptr_t)buf;
		a.drops = (__u64)(uintptr_t)drops;
		a.ndrops = (__u32)h->ncpus;
		if (dev_ioctl(h, XDT_IOC_AGGSNAP, &a) == 0)
			break;
		/* the kernel keeps what it took until our buffer is big enough */
		if (errno == ENOSPC && a.size > h->aggcap && a.size < (1u << 30)) {
			h->aggcap = a.size;
			continue;
		}
		free(buf);
		free(drops);
		return HERR(h, "failed to snapshot aggregations: %s", strerror(errno));
	}
	aggtab_fold(h->pr.aggs, &h->p, buf, a.size, a.count);
	free(buf);
	for (int cpu = 0; cpu < h->ncpus; cpu++)
		if (drops[cpu])
			(c && c->drop ? c->drop : print_drop)(h, XDT_DROP_AGGREGATION,
							      cpu, drops[cpu],
							      c ? c->arg : NULL);
	free(drops);
	return 0;
}

/* xdt_aggwalk()'s sink: an entry's bytes as they are */
struct raw_sink {
	const struct prog *p;
	int (*fn)(const struct xdt_aggdata *, void *);
	void *arg;
};

static int raw_entry(void *ctx, const struct dt_aggent *e)
{
	struct raw_sink *s = ctx;
	struct xdt_aggdata d = { e->e, s->p->aggs[e->e->aggid].name, e->key,
				 e->vals };

	return s->fn(&d, s->arg);
}

/*
 * Walk every aggregation's totals.  The default printer is DTrace's
 * END-time output: at the end, dtrace(1) always writes one newline (quiet
 * or not, after the last record: illumos' main loop ends with
 * oprintf("\n")) and then the aggregations printa() has not printed,
 * one after the other (libdtrace's dt_print_aggs puts no line between).
 */
static int aggwalk(xdt_hdl_t *h, int (*fn)(const struct xdt_aggdata *, void *),
		void *arg)
{
	size_t size;
	unsigned count;
	char *buf, *want;
	int ret;

	if (!h->p.naggs) {
		if (!fn && !h->pr.json)
			putchar('\n');
		return 0;
	}
	ret = agg_snap(h, 1, NULL);
	if (ret) {
		if (!fn)
			fputc('\n', dt_out(h));
		return ret;
	}
	want = xzalloc((size_t)h->p.naggs + 1);
	for (int k = 0; k < h->p.naggs; k++)
		want[k] = fn || !h->p.aggs[k].printed;
	buf = aggtab_layout(h->pr.aggs, want, &size, &count, NULL);
	free(want);
	if (!fn && h->pr.json) {
		json_aggs(&h->p, &h->pr.sort, buf, size, count, dt_out(h), NULL, 0);
		free(buf);
		return 0;
	}
	if (!fn) {
		fputc('\n', dt_out(h));
		print_aggs(&h->p, &h->pr.sort, buf, size, count, dt_out(h));
		free(buf);
		return 0;
	}
	/* the raw entries, as the totals hold them (no order promised) */
	agg_walk(&h->p, buf, size, count, &(struct dt_aggsort){ .none = 1 },
		 NULL, 0, &(struct dt_aggsink){ .entry = raw_entry },
		 &(struct raw_sink){ &h->p, fn, arg });
	free(buf);
	return 0;
}

int xdt_aggwalk(xdt_hdl_t *h, int (*fn)(const struct xdt_aggdata *, void *),
		void *arg)
{
	int ret = -1;

	XDT_GUARDED(h, return -1, ret = aggwalk(h, fn, arg));
	return ret;
}

/* ---- structured consumers (libxdt.h) ------------------------------------ */
int xdt_record_nvalues(xdt_hdl_t *h, const struct xdt_record *r)
{
	if (r->clause < 0 || r->clause >= h->p.nclauses)
		return 0;
	return h->p.clauses[r->clause].nrecs;
}

int xdt_record_value(xdt_hdl_t *h, const struct xdt_record *r, int i,
		     struct xdt_value *v)
{
	const struct clause *c;

	if (i < 0 || i >= xdt_record_nvalues(h, r))
		return -1;
	c = &h->p.clauses[r->clause];
	if (c->recs[i].off + 8 > r->size)
		return -1;
	rec_value(&h->p, &c->recs[i], r->data, v);
	return 0;
}

static char *record_consume(xdt_hdl_t *h, const struct xdt_record *r, size_t *len)
{
	*len = 0;
	if (r->clause < 0 || r->clause >= h->p.nclauses)
		return xzalloc(1);
	return print_record_text(&h->pr, &h->p, r->clause, r->data, len);
}

char *xdt_record_consume(xdt_hdl_t *h, const struct xdt_record *r, size_t *len)
{
	char *ret = NULL;

	XDT_GUARDED(h, return NULL, ret = record_consume(h, r, len));
	return ret;
}

void xdt_ksym(__u64 pc, char *buf, size_t len)
{
	ksyms_format(pc, buf, len);
}

int xdt_frame(const struct xdt_value *v, unsigned i, char *buf, size_t len)
{
	if (v->kind != XDT_VAL_STACK)
		return 0;
	return dt_frame_format(v->pcs, v->nframes, i, buf, len);
}

/* The structured API's sink: each entry decoded, to the caller's @fn */
struct snap_sink {
	const struct prog *p;
	int (*fn)(const struct xdt_aggentry *, void *);
	void *arg;
};

static int snap_entry(void *ctx, const struct dt_aggent *e)
{
	struct snap_sink *s = ctx;
	struct xdt_aggbucket *b = xzalloc((e->e->nvals + 1) * sizeof(*b));
	struct xdt_aggentry d;
	int stop;

	agg_decode(s->p, e, &d, b);
	stop = s->fn(&d, s->arg);
	free(b);
	return stop;
}

static int snap_all(xdt_hdl_t *h, int (*fn)(const struct xdt_aggentry *, void *),
		    void *arg)
{
	size_t size;
	unsigned count;
	char *buf, *want;

	want = xzalloc((size_t)h->p.naggs + 1);
	memset(want, 1, (size_t)h->p.naggs);
	buf = aggtab_layout(h->pr.aggs, want, &size, &count, NULL);
	free(want);
	agg_walk(&h->p, buf, size, count, &h->pr.sort, NULL, 0,
		 &(struct dt_aggsink){ .entry = snap_entry },
		 &(struct snap_sink){ &h->p, fn, arg });
	free(buf);
	return 0;
}

static int aggsnapshot(xdt_hdl_t *h, int (*fn)(const struct xdt_aggentry *, void *),
		    void *arg)
{
	if (!h->p.naggs || !h->pr.aggs)
		return 0;
	if (h->running && agg_snap(h, 1, NULL))
		return -1;
	return snap_all(h, fn, arg);
}

int xdt_aggsnapshot(xdt_hdl_t *h, int (*fn)(const struct xdt_aggentry *, void *),
		    void *arg)
{
	int ret = -1;

	XDT_GUARDED(h, return -1, ret = aggsnapshot(h, fn, arg));
	return ret;
}
