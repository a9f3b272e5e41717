// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-rawprog: hand a deliberately malformed program object to /dev/xdt
 * through the raw ioctl, bypassing the compiler, and print the kernel's
 * verdict.  Proves the verifier refuses what the compiler would never
 * emit.  usage: xdt-rawprog backward-branch|bad-opcode|write-r0|bad-size
 *
 * It also runs the benchmark's xdt variants with no compiler in the way:
 *   xdt-rawprog count|empty PROV FUNC NAME CMD...
 * enables PROV::FUNC:NAME with a count() clause (count) or a clause with no
 * action at all (empty: what a firing costs before any action runs), runs
 * CMD, stops, and prints the probe count, the aggregation and xdt's
 * firing/trap/error counters.
 *
 * And D variables without the compiler: `xdt-rawprog vars-CASE` assembles
 * a program by hand (a small builder below), runs it and prints each
 * record as "c<clause>: value ..." (strings quoted), each ERROR as
 * "error c<clause> act <n> pc <n> fault <kind> addr <hex>", then the status
 * counters; `xdt-rawprog vars-refuse-CASE` prints the verifier's verdict.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xdt.h"
#include "dif.h"
#include "xdt_pobj.h"

struct blob {
	struct xdt_prog p;
	struct xdt_clause c;
	struct xdt_action a;
	struct xdt_difo d;
	__u32 insns[4];
	struct xdt_aggdesc agg;		/* aggregation 0: count() */
};

/* XDT_FBTMODE=breakpoint|ftrace|trampoline in the environment: -x fbtmode */
static __u32 fbtmode(void)
{
	static const char *const names[] = XDT_FBTMODE_NAMES;
	const char *v = getenv("XDT_FBTMODE");
	__u32 i;

	for (i = 0; v && i < XDT_FBTMODE_NMODES; i++)
		if (!strcmp(v, names[i]))
			return i;
	return XDT_FBTMODE_DEFAULT;
}

/*
 * The mechanism the (first) probe matching @d is in by (`dtrace -l -v`'s
 * "in use: M"), or "-" for providers without a choice.
 */
static void mech_in_use(int fd, const struct xdt_probedesc *d, char *out,
			size_t len)
{
	static struct xdt_probeinfo pi[4];
	struct xdt_probe_query q;
	const char *u;

	memset(&q, 0, sizeof(q));
	q.match = *d;
	q.cap = 4;
	q.buf = (unsigned long)pi;
	snprintf(out, len, "-");
	if (ioctl(fd, XDT_IOC_PROBES, &q) < 0 || !q.count)
		return;
	u = strstr(pi[0].mech, "in use: ");
	if (u)
		snprintf(out, len, "%s", u + 8);
}

static int count(int fd, struct blob *b, char **argv, int empty)
{
	char mech[32];
	struct xdt_enable req;
	struct xdt_status st;
	struct xdt_aggsnap snap;
	static char buf[1 << 16];
	long long n = 0;
	pid_t pid;
	int status;

	strncpy(b->c.desc.prov, argv[0], sizeof(b->c.desc.prov) - 1);
	memset(b->c.desc.name, 0, sizeof(b->c.desc.name));
	strncpy(b->c.desc.func, argv[1], sizeof(b->c.desc.func) - 1);
	strncpy(b->c.desc.name, argv[2], sizeof(b->c.desc.name) - 1);
	b->p.naggs = 1;
	b->p.fbtmode = fbtmode();
	b->a.kind = XDT_ACT_AGG;
	b->a.difo = -1;
	b->a.arg0 = 0;
	b->a.arg1 = XDT_AGG_COUNT;
	if (empty) {
		b->p.naggs = 0;
		b->p.nactions = 0;
		b->c.nactions = 0;
	}
	memset(&req, 0, sizeof(req));
	req.prog = (unsigned long)b;
	req.size = sizeof(*b);
	if (ioctl(fd, XDT_IOC_ENABLE, &req) < 0) {
		printf("refused: %s: %s\n", strerror(errno), req.err);
		return 1;
	}
	if (req.unmatched >= 0) {
		printf("no probe matched\n");
		return 1;
	}
	if (ioctl(fd, XDT_IOC_GO) < 0) {
		printf("go: %s\n", strerror(errno));
		return 1;
	}
	mech_in_use(fd, &b->c.desc, mech, sizeof(mech));
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	if (ioctl(fd, XDT_IOC_STOP) < 0) {
		printf("stop: %s\n", strerror(errno));
		return 1;
	}
	memset(&snap, 0, sizeof(snap));
	snap.size = sizeof(buf);
	snap.buf = (unsigned long)buf;
	if (ioctl(fd, XDT_IOC_AGGSNAP, &snap) < 0) {
		printf("aggsnap: %s\n", strerror(errno));
		return 1;
	}
	if (snap.count) {
		struct xdt_aggent *e = (struct xdt_aggent *)buf;

		memcpy(&n, (char *)(e + 1) + e->keylen, 8);
	}
	ioctl(fd, XDT_IOC_STATUS, &st);
	printf("probes %u count %lld firings %llu traps %llu errors %llu"
	       " mech %s\n", req.nprobes, n, (unsigned long long)st.firings,
	       (unsigned long long)st.traps, (unsigned long long)st.errors,
	       mech);
	return 0;
}

/* ---- D variables: a program builder and hand-assembled cases ------------ */
#define PB_C	16
#define PB_A	128
#define PB_D	128
#define PB_I	8192
#define PB_N	512
#define PB_S	4096
#define PB_V	16

struct pb {
	struct xdt_prog p;
	struct xdt_clause c[PB_C];
	struct xdt_action a[PB_A];
	struct xdt_difo d[PB_D];
	__u32 insn[PB_I];
	__u64 ints[PB_N];
	char str[PB_S];
	struct xdt_var v[PB_V];
	unsigned nc, na, nd, ni, nn, ns, nv;
};
/* pb's aggregation, when it has one: count() */
static const struct xdt_aggdesc pb_agg = { XDT_AGG_COUNT, 1, 0 };

static struct pb pb;
static char blobbuf[sizeof(struct pb) + 64];

#define R(op, r1, r2, rd)	DIF_INSN_R(DIF_OP_##op, r1, r2, rd)
#define IX(op, idx, rd)		DIF_INSN_I(DIF_OP_##op, idx, rd)
#define RET1			R(RET, 0, 0, 1)
/* A DIF object from a list of instructions; its index. */
#define DIFO(rtype, ...) \
	difo(rtype, (__u32[]){ __VA_ARGS__ }, \
	     sizeof((__u32[]){ __VA_ARGS__ }) / 4)

static int K(__u64 v)
{
	pb.ints[pb.nn] = v;
	return pb.nn++;
}

static int S(const char *s)
{
	int off = pb.ns;

	strcpy(pb.str + pb.ns, s);
	pb.ns += strlen(s) + 1;
	return off;
}

static int var(int scope, int kind, int flags, int size, int nkeys,
	       int keykinds, const char *name)
{
	struct xdt_var *x = &pb.v[pb.nv];

	x->scope = scope;
	x->kind = kind;
	x->flags = flags;
	x->size = size;
	x->nkeys = nkeys;
	x->keykinds = keykinds;
	strncpy(x->name, name, sizeof(x->name) - 1);
	return pb.nv++;
}

static int difo(int rtype, const __u32 *in, unsigned n)
{
	struct xdt_difo *d = &pb.d[pb.nd];

	d->insn0 = pb.ni;
	d->ninsns = n;
	d->rtype = rtype;
	memcpy(pb.insn + pb.ni, in, n * 4);
	pb.ni += n;
	return pb.nd++;
}

/* Start a clause; its actions are the act() calls that follow. */
static void clause(const char *prov, const char *func, const char *name,
		   int pred)
{
	struct xdt_clause *c = &pb.c[pb.nc++];

	strcpy(c->desc.prov, prov);
	strcpy(c->desc.func, func);
	strcpy(c->desc.name, name);
	c->pred = pred;
	c->action0 = pb.na;
}

static void act(int kind, int difo)
{
	pb.a[pb.na].kind = kind;
	pb.a[pb.na].difo = difo;
	if (kind == XDT_ACT_AGG)
		pb.a[pb.na].arg1 = XDT_AGG_COUNT;
	pb.na++;
	pb.c[pb.nc - 1].nactions++;
}

/* Lay the sections out as the compiler does (core/uapi/xdt_pobj.h). */
static unsigned pb_blob(void)
{
	struct xdt_prog *p = &pb.p;
	const struct xdt_pobj_sections sect = {
		pb.c, pb.a, pb.d, pb.insn, pb.ints, pb.str, pb.v, &pb_agg,
	};
	unsigned i;

	for (i = 0; i < pb.nd; i++) {
		pb.d[i].int0 = 0;
		pb.d[i].nints = pb.nn;
		pb.d[i].str0 = 0;
		pb.d[i].strlen = pb.ns;
	}
	p->nclauses = pb.nc;
	p->nactions = pb.na;
	p->ndifos = pb.nd;
	p->ninsns = pb.ni;
	p->nints = pb.nn;
	p->strtab_len = pb.ns;
	p->nvars = pb.nv;
	xdt_pobj_layout(p);
	xdt_pobj_write(blobbuf, p, &sect);
	return p->size;
}

static int pb_enable(int fd, struct xdt_enable *req)
{
	memset(req, 0, sizeof(*req));
	req->prog = (unsigned long)blobbuf;
	req->size = pb_blob();
	if (ioctl(fd, XDT_IOC_ENABLE, req) < 0) {
		printf("refused: %s: %s\n", strerror(errno), req->err);
		return -1;
	}
	return 0;
}

/* A child named xdtvar that calls getppid @n times, @gap_ms apart. */
static pid_t xdtvar_child(int n, int rfd)
{
	pid_t pid = fork();
	char c;
	int i;

	if (pid)
		return pid;
	prctl(PR_SET_NAME, "xdtvar");
	for (i = 0; i < n; i++) {
		syscall(SYS_getppid);
		/* Between calls, wait for the parent's go (all alive). */
		if (rfd >= 0 && i + 1 < n && read(rfd, &c, 1) != 1)
			_exit(1);
	}
	_exit(0);
}

static void msleep(int ms)
{
	usleep(ms * 1000);
}

/* What runs while tracing: the case's own workload. */
static void (*during)(void);

static void during_threads(void)
{
	int p[2], i;
	pid_t kids[3];

	if (pipe(p))
		return;
	for (i = 0; i < 3; i++)
		kids[i] = xdtvar_child(2, p[0]);
	msleep(300);
	/* Each has made its first call: let them make their second. */
	if (write(p[1], "xxx", 3) != 3)
		return;
	for (i = 0; i < 3; i++)
		waitpid(kids[i], NULL, 0);
}

static void during_sequential(void)
{
	int i;

	for (i = 0; i < 4; i++) {
		waitpid(xdtvar_child(2, -1), NULL, 0);
		/*
		 * Its exit freed its variables; the cleaner recycles them
		 * after a grace period (ms in a quiet guest: 1 s is for a
		 * host busy with other guests).
		 */
		msleep(1000);
	}
}

static void during_later(void)
{
	msleep(1000);
	waitpid(xdtvar_child(1, -1), NULL, 0);
}

/* vars-multi: two consumers at once, meeting through files in /tmp. */
static const char *multi_me, *multi_other;

static void multi_mark(const char *who, const char *what)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/tmp/%s.%s", who, what);
	fd = open(path, O_WRONLY | O_CREAT, 0644);
	if (fd >= 0)
		close(fd);
}

static void multi_wait(const char *who, const char *what)
{
	char path[128];
	int i;

	snprintf(path, sizeof(path), "/tmp/%s.%s", who, what);
	for (i = 0; i < 6000 && access(path, F_OK); i++)
		msleep(10);
}

static void during_multi(void)
{
	/* Both trace while both workloads run: each sees all ten calls. */
	multi_mark(multi_me, "started");
	multi_wait(multi_other, "started");
	waitpid(xdtvar_child(5, -1), NULL, 0);
	multi_mark(multi_me, "done");
	multi_wait(multi_other, "done");
}

/* Record layout of clause @ci, as the kernel lays it out. */
static void print_record(unsigned ci, const char *rec, unsigned strsize)
{
	const struct xdt_clause *c = &pb.c[ci];
	unsigned i, off = sizeof(struct xdt_rechdr);

	printf("c%u:", ci);
	for (i = 0; i < c->nactions; i++) {
		const struct xdt_action *a = &pb.a[c->action0 + i];
		__u64 v;

		off = (off + 7) & ~7u;
		if (a->kind == XDT_ACT_RECORD || a->kind == XDT_ACT_EXIT) {
			memcpy(&v, rec + off, 8);
			printf(" %lld", (long long)v);
			off += 8;
		} else if (a->kind == XDT_ACT_STRING) {
			printf(" \"%.*s\"", (int)strsize, rec + off);
			off += strsize;
		}
	}
	printf("\n");
}

static int vars_run(int fd)
{
	static char buf[4 << 20];
	struct xdt_eprobe eps[256];
	struct xdt_eprobe_query eq = { .cap = 256,
				       .buf = (unsigned long)eps };
	struct xdt_enable req;
	struct xdt_status st;
	unsigned strsize = pb.p.strsize ? pb.p.strsize : 256;
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	if (pb_enable(fd, &req))
		return 1;
	if (ioctl(fd, XDT_IOC_EPROBES, &eq) < 0 || eq.count > eq.cap) {
		printf("eprobes: %s\n", strerror(errno));
		return 1;
	}
	if (ioctl(fd, XDT_IOC_GO) < 0) {
		printf("go: %s\n", strerror(errno));
		return 1;
	}
	if (during)
		during();
	if (ioctl(fd, XDT_IOC_STOP) < 0) {
		printf("stop: %s\n", strerror(errno));
		return 1;
	}
	for (cpu = 0; cpu < ncpu; cpu++) {
		struct xdt_bufsnap b = { .cpu = cpu, .size = sizeof(buf),
					 .buf = (unsigned long)buf };
		unsigned off = 0;

		if (ioctl(fd, XDT_IOC_BUFSNAP, &b) < 0) {
			printf("bufsnap %d: %s\n", cpu, strerror(errno));
			return 1;
		}
		while (off + sizeof(struct xdt_rechdr) <= b.size) {
			struct xdt_rechdr *h = (struct xdt_rechdr *)(buf + off);
			__u64 *v = (__u64 *)(h + 1);

			if (h->size < sizeof(*h) || off + h->size > b.size)
				break;
			if (h->epid == 0)
				printf("error c%u act %llu pc %llu fault %llu "
				       "addr %#llx\n",
				       v[1] && v[1] <= eq.count ?
				       eps[v[1] - 1].clause : 999,
				       (unsigned long long)v[2],
				       (unsigned long long)v[3],
				       (unsigned long long)v[4],
				       (unsigned long long)v[5]);
			else if (h->epid != 0xffffffff && h->epid <= eq.count)
				print_record(eps[h->epid - 1].clause,
					     (char *)h, strsize);
			off += h->size;
		}
	}
	if (pb.p.naggs) {
		struct xdt_aggsnap snap = { .size = sizeof(buf),
					    .buf = (unsigned long)buf };
		long long n = 0;

		if (ioctl(fd, XDT_IOC_AGGSNAP, &snap) < 0) {
			printf("aggsnap: %s\n", strerror(errno));
			return 1;
		}
		if (snap.count) {
			struct xdt_aggent *e = (struct xdt_aggent *)buf;

			memcpy(&n, (char *)(e + 1) + e->keylen, 8);
		}
		printf("agg %lld\n", n);
	}
	ioctl(fd, XDT_IOC_STATUS, &st);
	printf("status errors %llu drops %llu dyndrops %llu dirty %llu "
	       "exited %u\n",
	       (unsigned long long)st.errors, (unsigned long long)st.drops,
	       (unsigned long long)st.dyndrops,
	       (unsigned long long)st.dyndrops_dirty, st.exited);
	return 0;
}

/* Predicate execname == "xdtvar". */
static int pred_xdtvar(void)
{
	return DIFO(XDT_TYPE_INT, IX(LDV, DIF_VAR_EXECNAME, 1),
		    IX(SETS, S("xdtvar"), 2), R(SCMP, 1, 2, 3),
		    R(SEQ, 3, 0, 1), RET1);
}

/*
 * Push integer @k then string @s, the key of a[int, string]: in %r6 and
 * %r7, the top of DIF's eight, which the programs' own values never use.
 */
#define KEY_IS(k, s)	IX(SETX, K(k), 6), R(PUSHTV, 6, 0, 0), \
			IX(SETS, S(s), 7), R(PUSHTS, 7, 0, 0)
#define KEY_I(k)	IX(SETX, K(k), 6), R(PUSHTV, 6, 0, 0)

enum { G = XDT_VAR_GLOBAL, T = XDT_VAR_THREAD, L = XDT_VAR_LOCAL };
enum { SC = XDT_VAR_SCALAR, AR = XDT_VAR_ARRAY };
#define STR	(XDT_VF_BYREF | XDT_VF_STRING)

static void case_global(void)
{
	int g = var(G, SC, 0, 8, 0, 0, "g");
	int gs = var(G, SC, STR, 32, 0, 0, "gs");
	int l = var(L, SC, 0, 8, 0, 0, "l");
	int ls = var(L, SC, STR, 32, 0, 0, "ls");

	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETX, K(42), 1), IX(STGS, g, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETS, S("hello"), 1),
				  IX(STGS, gs, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETX, K(7), 1), IX(STLS, l, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETS, S("this"), 1),
				  IX(STLS, ls, 1), RET1));
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, IX(LDGS, g, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, IX(LDGS, gs, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, IX(LDLS, l, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, IX(LDLS, ls, 1), RET1));
	/* A byte store into the global string's storage. */
	act(XDT_ACT_STRING, DIFO(1, IX(LDGS, gs, 1), IX(SETX, K('J'), 2),
				 R(STB, 2, 0, 1), RET1));
	/* Scratch, and a copy into it. */
	act(XDT_ACT_STRING, DIFO(1, IX(SETX, K(16), 2), R(ALLOCS, 2, 0, 3),
				 IX(SETS, S("copied"), 4), IX(SETX, K(7), 5),
				 R(COPYS, 4, 5, 3), R(MOV, 3, 0, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, IX(SETS, S("hello"), 2),
				 R(PUSHTS, 2, 0, 0),
				 IX(CALL, DIF_SUBR_STRLEN, 1), RET1));
	clause("dtrace", "", "END", -1);
	act(XDT_ACT_RECORD, DIFO(0, IX(LDLS, l, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, IX(LDLS, ls, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, IX(LDGS, g, 1), RET1));
}

static void case_thread(int tiny)
{
	int x = var(T, SC, 0, 8, 0, 0, "x");
	int ts = var(T, SC, STR, tiny ? 1024 : 16, 0, 0, "ts");

	if (tiny)
		pb.p.dynvarsize = 4096;	/* room for one thread's pair */
	clause("syscall", "getppid", "entry", pred_xdtvar());
	act(XDT_ACT_RECORD, DIFO(0, IX(LDV, DIF_VAR_TID, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, IX(LDTS, x, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, IX(LDTS, ts, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(LDV, DIF_VAR_TID, 1),
				  IX(STTS, x, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(LDV, DIF_VAR_EXECNAME, 1),
				  IX(STTS, ts, 1), RET1));
	during = tiny ? during_sequential : during_threads;
}

static void case_array(void)
{
	int a = var(G, AR, 0, 8, 2, 0x2, "a");
	int s = var(G, AR, STR, 32, 1, 0, "s");

	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_IS(1, "foo"), IX(SETX, K(10), 1),
				  IX(STGAA, a, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_IS(2, "foo"), IX(SETX, K(20), 1),
				  IX(STGAA, a, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_IS(1, "bar"), IX(SETX, K(30), 1),
				  IX(STGAA, a, 1), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_I(1), IX(SETS, S("xyz"), 1),
				  IX(STGAA, s, 1), RET1));
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, KEY_IS(1, "foo"), IX(LDGAA, a, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, KEY_IS(2, "foo"), IX(LDGAA, a, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, KEY_IS(1, "bar"), IX(LDGAA, a, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, KEY_IS(3, "foo"), IX(LDGAA, a, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, KEY_I(1), IX(LDGAA, s, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, KEY_I(9), IX(LDGAA, s, 1), RET1));
	/* Storing 0 (a NULL source, for the string) frees an element. */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_IS(1, "foo"), IX(STGAA, a, 0),
				  RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_I(1), IX(STGAA, s, 0), RET1));
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, KEY_IS(1, "foo"), IX(LDGAA, a, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, KEY_IS(2, "foo"), IX(LDGAA, a, 1), RET1));
	act(XDT_ACT_STRING, DIFO(1, KEY_I(1), IX(LDGAA, s, 1), RET1));
}

static void case_exhaust(void)
{
	int a = var(G, AR, 0, 8, 1, 0, "a");
	__u32 in[64 * 5 + 2];
	unsigned i, n = 0;

	pb.p.dynvarsize = 512;
	clause("dtrace", "", "BEGIN", -1);
	for (i = 1; i <= 64; i++) {
		in[n++] = IX(SETX, K(i), 1);
		in[n++] = R(PUSHTV, 1, 0, 0);
		in[n++] = IX(STGAA, a, 1);
	}
	in[n++] = RET1;
	act(XDT_ACT_DIFEXPR, difo(0, in, n));
	/* How many of the 64 are there. */
	clause("dtrace", "", "BEGIN", -1);
	n = 0;
	in[n++] = R(MOV, 0, 0, 3);
	for (i = 1; i <= 64; i++) {
		in[n++] = IX(SETX, K(i), 1);
		in[n++] = R(PUSHTV, 1, 0, 0);
		in[n++] = IX(LDGAA, a, 2);
		in[n++] = R(SNE, 2, 0, 2);
		in[n++] = R(ADD, 3, 2, 3);
	}
	in[n++] = R(RET, 0, 0, 3);
	act(XDT_ACT_RECORD, difo(0, in, n));
	/* A free goes to the dirty list: no room until it is cleaned. */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_I(1), IX(STGAA, a, 0), RET1));
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_I(100), IX(SETX, K(100), 1),
				  IX(STGAA, a, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, KEY_I(100), IX(LDGAA, a, 1), RET1));
	/* ... and after the cleaner has run, there is. */
	clause("syscall", "getppid", "entry", pred_xdtvar());
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_I(101), IX(SETX, K(101), 1),
				  IX(STGAA, a, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, KEY_I(101), IX(LDGAA, a, 1), RET1));
	during = during_later;
}

static void case_fault(void)
{
	int g = var(G, SC, 0, 8, 0, 0, "g");
	int gs = var(G, SC, STR, 32, 0, 0, "gs");
	int a = var(G, AR, 0, 8, 2, 0x2, "a");
	int s = var(G, AR, STR, 32, 1, 0, "s");

	/* c0: a byte store into the kernel (the thread's comm) */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(LDV, DIF_VAR_EXECNAME, 1),
				  IX(SETX, K(0x41), 2), R(STB, 2, 0, 1),
				  RET1));
	/* c1: a misaligned word store into a global */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(LDGS, gs, 1), IX(SETX, K(1), 2),
				  R(ADD, 1, 2, 1), R(STW, 2, 0, 1), RET1));
	/* c2: a store into the zero area a missing element loads as */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, KEY_I(5), IX(LDGAA, s, 1),
				  IX(SETX, K(1), 2), R(STB, 2, 0, 1), RET1));
	/* c3: more scratch than there is */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETX, K(1 << 30), 1),
				  R(ALLOCS, 1, 0, 2), RET1));
	/* c4: nine tuple elements */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, R(PUSHTV, 0, 0, 0), R(PUSHTV, 0, 0, 0),
				  R(PUSHTV, 0, 0, 0), R(PUSHTV, 0, 0, 0),
				  R(PUSHTV, 0, 0, 0), R(PUSHTV, 0, 0, 0),
				  R(PUSHTV, 0, 0, 0), R(PUSHTV, 0, 0, 0),
				  R(PUSHTV, 0, 0, 0), RET1));
	/* c5: strlen() without its argument */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, IX(CALL, DIF_SUBR_STRLEN, 1), RET1));
	/* c6: args[10] */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, IX(SETX, K(10), 1), R(LDARG, 1, 0, 2),
				 R(RET, 0, 0, 2)));
	/* c7: a key of the wrong kinds (int, int for int, string) */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, KEY_I(1), KEY_I(2), IX(LDGAA, a, 1),
				 RET1));
	/* c8: a by-reference store from a bad address */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETX, K(8), 1), IX(STGS, gs, 1),
				  RET1));
	/* c9: none of the faulting stores stored anything */
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_STRING, DIFO(1, IX(LDGS, gs, 1), RET1));
	act(XDT_ACT_RECORD, DIFO(0, IX(LDGS, g, 1), RET1));
}

/*
 * One of two concurrent consumers (vars-multi TAG ME OTHER [exit]):
 * BEGIN { g = TAG } getppid /xdtvar/ { trace(g); @ = count(); }
 * END { trace(g); [exit(0)] } -- its records, aggregation, variable and
 * exit status must be its own.
 */
static void case_multi(int argc, char **argv)
{
	int g = var(G, SC, 0, 8, 0, 0, "g");

	if (argc < 4) {
		fprintf(stderr, "usage: xdt-rawprog vars-multi TAG ME OTHER "
			"[exit]\n");
		exit(2);
	}
	multi_me = argv[2];
	multi_other = argv[3];
	pb.p.naggs = 1;
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_DIFEXPR, DIFO(0, IX(SETX, K(strtoull(argv[1], NULL, 0)),
					1), IX(STGS, g, 1), RET1));
	clause("syscall", "getppid", "entry", pred_xdtvar());
	act(XDT_ACT_RECORD, DIFO(0, IX(LDGS, g, 1), RET1));
	act(XDT_ACT_AGG, -1);
	clause("dtrace", "", "END", -1);
	act(XDT_ACT_RECORD, DIFO(0, IX(LDGS, g, 1), RET1));
	if (argc > 4 && !strcmp(argv[4], "exit"))
		act(XDT_ACT_EXIT, DIFO(0, R(MOV, 0, 0, 1), RET1));
	during = during_multi;
}

/* BEGIN { trace(*(uint64_t *)ADDR) }: device memory must fault, not oops. */
static void case_load(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: xdt-rawprog vars-load ADDR\n");
		exit(2);
	}
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, IX(SETX, K(strtoull(argv[1], NULL, 0)), 1),
				 R(LDX, 1, 0, 1), RET1));
}

/* A valid base (g, BEGIN { trace(g) }), then one flaw. */
static void case_refuse(const char *what)
{
	int g = var(G, SC, 0, 8, 0, 0, "g");
	__u32 ld = IX(LDGS, g, 1);

	if (!strcmp(what, "bad-id"))
		ld = IX(LDGS, 5, 1);
	else if (!strcmp(what, "wrong-scope"))
		ld = IX(LDTS, g, 1);
	else if (!strcmp(what, "array-op"))
		ld = IX(LDGAA, g, 1);
	else if (!strcmp(what, "no-keys"))
		pb.v[g].kind = AR;
	else if (!strcmp(what, "keykinds")) {
		pb.v[g].kind = AR;
		pb.v[g].nkeys = 1;
		pb.v[g].keykinds = 2;
	} else if (!strncmp(what, "keysize", 7)) {
		/* a struct key: too big, on a string element, past the keys */
		pb.v[g].kind = AR;
		pb.v[g].nkeys = 2;
		pb.v[g].keysize[what[7] == '-' ? 2 : 0] = XDT_KEYMEM_MAX;
		if (!what[7])
			pb.v[g].keysize[0] = XDT_KEYMEM_MAX + 1;
		else if (!strcmp(what + 7, "-string"))
			pb.v[g].keykinds = 1, pb.v[g].keysize[0] = 8;
	} else if (!strcmp(what, "memkey")) {
		/* an aggregation key of more bytes than a key holds */
		pb.p.naggs = 1;
		clause("dtrace", "", "BEGIN", -1);
		act(XDT_ACT_AGGKEY, DIFO(0, IX(LDGS, g, 1), RET1));
		pb.a[pb.na - 1].arg0 = XDT_KEY_MEM;
		pb.a[pb.na - 1].arg1 = XDT_KEYMEM_MAX + 1;
		act(XDT_ACT_AGG, -1);
	} else if (!strcmp(what, "local-array")) {
		pb.v[g].scope = L;
		pb.v[g].kind = AR;
		pb.v[g].nkeys = 1;
	} else if (!strcmp(what, "int-size"))
		pb.v[g].size = 4;
	else if (!strcmp(what, "scope"))
		pb.v[g].scope = 3;
	else if (!strcmp(what, "subr"))
		ld = IX(CALL, 99, 1);
	else if (!strcmp(what, "stray"))
		ld = R(FLUSHTS, 0, 0, 1);
	clause("dtrace", "", "BEGIN", -1);
	act(XDT_ACT_RECORD, DIFO(0, ld, RET1));
}

static int vars_main(int argc, char **argv)
{
	const char *what = argv[0] + 5;
	struct xdt_enable req;
	int fd = open(XDT_DEVICE, O_RDWR);

	if (fd < 0) {
		fprintf(stderr, "xdt-rawprog: %s: %s\n", XDT_DEVICE,
			strerror(errno));
		return 1;
	}
	if (!strncmp(what, "refuse-", 7)) {
		case_refuse(what + 7);
		if (pb_enable(fd, &req))
			return 1;
		printf("accepted: %u probes\n", req.nprobes);
		return 0;
	}
	if (!strcmp(what, "global"))
		case_global();
	else if (!strcmp(what, "thread"))
		case_thread(0);
	else if (!strcmp(what, "thread-exit"))
		case_thread(1);
	else if (!strcmp(what, "array"))
		case_array();
	else if (!strcmp(what, "exhaust"))
		case_exhaust();
	else if (!strcmp(what, "fault"))
		case_fault();
	else if (!strcmp(what, "multi"))
		case_multi(argc, argv);
	else if (!strcmp(what, "load"))
		case_load(argc, argv);
	else {
		fprintf(stderr, "xdt-rawprog: unknown case vars-%s\n", what);
		return 2;
	}
	return vars_run(fd);
}

int main(int argc, char **argv)
{
	struct blob b;
	struct xdt_enable req;
	const char *what = argc > 1 ? argv[1] : "backward-branch";
	int fd, ret;

	/*
	 * By hand, not by xdt_pobj_layout(): the cases below break this
	 * object on purpose, field by field, to see the kernel refuse it.
	 */
	memset(&b, 0, sizeof(b));
	b.p.magic = XDT_PROG_MAGIC;
	b.p.version = XDT_ABI_VERSION;
	b.p.size = sizeof(b);
	b.p.nclauses = 1;
	b.p.clauses_off = offsetof(struct blob, c);
	b.p.aggs_off = offsetof(struct blob, agg);
	b.agg = (struct xdt_aggdesc){ XDT_AGG_COUNT, 1, 0 };
	b.p.nactions = 1;
	b.p.actions_off = offsetof(struct blob, a);
	b.p.ndifos = 1;
	b.p.difos_off = offsetof(struct blob, d);
	b.p.ninsns = 3;
	b.p.insns_off = offsetof(struct blob, insns);
	b.p.ints_off = sizeof(b);
	b.p.strtab_off = sizeof(b);
	strcpy(b.c.desc.prov, "dtrace");
	strcpy(b.c.desc.name, "BEGIN");
	b.c.pred = -1;
	b.c.nactions = 1;
	b.a.kind = XDT_ACT_RECORD;
	b.a.difo = 0;
	b.d.ninsns = 3;
	/* A valid shape: r1 = 0; if (r1 == 0) goto 2; ret r1 */
	b.insns[0] = DIF_INSN_R(DIF_OP_MOV, 0, 0, 1);
	b.insns[1] = DIF_INSN_B(DIF_OP_BZ, 1, 2);
	b.insns[2] = DIF_INSN_R(DIF_OP_RET, 0, 0, 1);
	if (!strncmp(what, "vars-", 5))
		return vars_main(argc - 1, argv + 1);
	if (!strcmp(what, "backward-branch"))
		b.insns[1] = DIF_INSN_B(DIF_OP_BZ, 1, 0);
	else if (!strcmp(what, "bad-opcode"))
		b.insns[0] = 0xee000001;
	else if (!strcmp(what, "write-r0"))
		b.insns[0] = DIF_INSN_R(DIF_OP_MOV, 1, 0, 0);
	else if (!strcmp(what, "bad-size"))
		b.p.size = sizeof(b) + 64;
	else if ((!strcmp(what, "count") || !strcmp(what, "empty")) &&
		 argc < 6) {
		fprintf(stderr, "usage: xdt-rawprog count|empty PROV FUNC NAME "
			"CMD...\n");
		return 2;
	} else if (strcmp(what, "valid") && strcmp(what, "count") &&
		   strcmp(what, "empty")) {
		fprintf(stderr, "xdt-rawprog: unknown case %s\n", what);
		return 2;
	}
	fd = open(XDT_DEVICE, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "xdt-rawprog: %s: %s\n", XDT_DEVICE,
			strerror(errno));
		return 1;
	}
	if (!strcmp(what, "count") || !strcmp(what, "empty"))
		return count(fd, &b, argv + 2, !strcmp(what, "empty"));
	memset(&req, 0, sizeof(req));
	req.prog = (unsigned long)&b;
	req.size = sizeof(b);
	ret = ioctl(fd, XDT_IOC_ENABLE, &req);
	if (ret < 0) {
		printf("refused: %s: %s\n", strerror(errno), req.err);
		return 1;
	}
	printf("accepted: %u probes\n", req.nprobes);
	return 0;
}
