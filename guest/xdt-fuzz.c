// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-fuzz: throw random and mutated program objects at /dev/xdt through
 * the raw ioctl, run the ones the kernel accepts, and count.  The kernel
 * must refuse what is malformed (EINVAL with a reason) and survive whatever
 * it accepts: a program may store anywhere, divide by zero, overflow the
 * tuple stack, exhaust scratch and dynamic variables -- each is an ERROR
 * record, never an oops.  (The caller checks dmesg afterwards.)
 *
 *   xdt-fuzz [-n PROGRAMS] [-t SECONDS] [-s SEED] [-v] [-F] [-B] [-V]
 *
 * A program is generated valid by construction (variable table, clauses on
 * dtrace:::BEGIN/END/ERROR and, in a quarter of the programs,
 * syscall::getppid:entry and fbt::vfs_read:entry (-F: no fbt, -B: only
 * dtrace probes), DIF that names real variables and branches
 * forward), with addresses that land near interesting places (the
 * program's own storage and its edges, scratch, kernel data, NULL, random
 * values); then, half of the time, mutated: bits, opcodes, operands,
 * indices, variable-table fields, action and header fields.  Accepted ones
 * run: GO (BEGIN), getppid and a read (their probes), STOP (END).
 * Progress every 5 s; the last line is the summary.
 *
 * -V (the host's build only): the same programs through libxdt's host VM
 * (core/host/hostvm.h) instead of /dev/xdt -- xdt.ko's portable core, the
 * verifier and DIF machine included, in this process, where the compiler's
 * sanitizers can watch it (make fuzz-san).  Only dtrace:::BEGIN/END/ERROR
 * exist there, so -V implies -B.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "xdt.h"
#include "dif.h"
#include "xdt_pobj.h"
#ifdef XDT_FUZZ_HOSTVM
#include "hostvm.h"
#endif

/* ---- the device: /dev/xdt, or the host VM (-V) --------------------------- */
static int hostvm;
#ifdef XDT_FUZZ_HOSTVM
static struct xdt_hostvm *hvm;
#endif

static int dev_open(void)
{
#ifdef XDT_FUZZ_HOSTVM
	if (hostvm) {
		hvm = xdt_hostvm_open();
		return hvm ? 0 : -1;
	}
#endif
	return open(XDT_DEVICE, O_RDWR);
}

static int dev_ioctl(int fd, unsigned long cmd, void *arg)
{
#ifdef XDT_FUZZ_HOSTVM
	if (hostvm)
		return xdt_hostvm_ioctl(hvm, cmd, arg);
#endif
	return ioctl(fd, cmd, arg);
}

static void dev_close(int fd)
{
#ifdef XDT_FUZZ_HOSTVM
	if (hostvm) {
		xdt_hostvm_close(hvm);
		hvm = NULL;
		return;
	}
#endif
	close(fd);
}

/* ---- random numbers ------------------------------------------------------ */
static unsigned long long rs = 88172645463325252ULL;

static unsigned long long rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static unsigned below(unsigned n)
{
	return n ? rnd() % n : 0;
}

static int chance(unsigned pct)
{
	return below(100) < pct;
}

/* ---- the program being built --------------------------------------------- */
#define MAXC	6
#define MAXA	32
#define MAXD	48
#define MAXI	2048
#define MAXN	128
#define MAXS	512
#define MAXV	10

static struct {
	struct xdt_prog p;
	struct xdt_clause c[MAXC];
	struct xdt_action a[MAXA];
	struct xdt_difo d[MAXD];
	__u32 insn[MAXI];
	__u64 ints[MAXN];
	char str[MAXS];
	struct xdt_var v[MAXV];
	unsigned nc, na, nd, ni, nn, ns, nv;
	unsigned strofs[16], nstr;
	struct xdt_aggdesc agg[3];	/* sum, lquantize, llquantize */
} g;

static char blob[sizeof(g) + 64];
static unsigned bloblen;

static const char *const strs[] = {
	"", "a", "hello", "xdt-fuzz", "0123456789abcdef0123456789abcdef",
	"getppid", "BEGIN", "%s%s%n",
};

/* Integers worth storing at, copying by, allocating and shifting by. */
static __u64 interesting(void)
{
	static const __u64 v[] = {
		0, 1, 2, 3, 7, 8, 9, 15, 16, 63, 64, 255, 256, 4095, 4096,
		65536, 1ULL << 20, 1ULL << 31, 1ULL << 32, 1ULL << 63,
		~0ULL, ~0ULL - 7, 0x7fffffffffffffffULL,
		0xffff888000000000ULL, 0xffffffff81000000ULL,
		0xffff800008000000ULL, 0xffffffff80000000ULL,
		0xff60000000000000ULL, 0xffffffc000000000ULL,
		0xdead000000000000ULL, 0x1000, 0x400000,
	};

	if (chance(15))
		return rnd();
	if (chance(10))
		return below(64) - 32;
	return v[below(sizeof(v) / sizeof(v[0]))];
}

/*
 * The aggregations: sum(), an lquantize() and an llquantize() with random
 * sound parameters, and now and then parameters the loader must refuse.
 */
static void gen_aggs(void)
{
	static const unsigned factors[] = { 2, 3, 4, 5, 10 };
	unsigned f = factors[below(5)], lo = below(4);
	unsigned steps = chance(50) ? f : f * f;

	g.agg[0] = (struct xdt_aggdesc){ XDT_AGG_SUM, 1, 0 };
	g.agg[1].func = XDT_AGG_LQUANTIZE;
	g.agg[1].arg = XDT_LQ_ARG((int)below(2001) - 1000, 1 + below(100),
				  1 + below(200));
	g.agg[2].func = XDT_AGG_LLQUANTIZE;
	g.agg[2].arg = XDT_LLQ_ARG(f, lo, lo + 1 + below(4), steps);
	if (chance(5))
		g.agg[1 + below(2)].arg = rnd();
	for (unsigned i = 1; i < 3; i++)
		g.agg[i].nvals = xdt_agg_nvals(g.agg[i].func, g.agg[i].arg) +
				 (chance(3) ? 1 : 0);
}

static void setup_tables(void)
{
	unsigned i;

	g.nn = 8 + below(MAXN - 8);
	for (i = 0; i < g.nn; i++)
		g.ints[i] = interesting();
	g.ns = 0;
	g.nstr = 0;
	for (i = 0; i < sizeof(strs) / sizeof(strs[0]); i++) {
		g.strofs[g.nstr++] = g.ns;
		strcpy(g.str + g.ns, strs[i]);
		g.ns += strlen(strs[i]) + 1;
	}
}

static void gen_vars(void)
{
	unsigned i;

	/* Mostly one of each (scope, kind) first, so the ops find theirs. */
	static const unsigned sk[5][2] = { { 0, 0 }, { 1, 0 }, { 2, 0 },
					   { 0, 1 }, { 1, 1 } };
	unsigned first = chance(90) ? 5 : below(6);

	g.nv = first + below(MAXV - first + 1);
	for (i = 0; i < g.nv; i++) {
		struct xdt_var *x = &g.v[i];
		static const unsigned sizes[] = { 1, 7, 8, 16, 32, 100, 256,
						  4096 };

		memset(x, 0, sizeof(*x));
		if (i < first) {
			x->scope = sk[i][0];
			x->kind = sk[i][1];
		} else {
			x->scope = below(3);
			x->kind = x->scope == XDT_VAR_LOCAL ? 0 : below(2);
		}
		switch (below(3)) {
		case 0:
			x->size = 8;
			break;
		case 1:
			x->flags = XDT_VF_BYREF;
			x->size = sizes[below(8)];
			break;
		default:
			x->flags = XDT_VF_BYREF | XDT_VF_STRING;
			x->size = sizes[below(8)];
			break;
		}
		if (x->kind) {
			unsigned k;

			x->nkeys = 1 + below(DIF_MAXTUPLE);
			x->keykinds = rnd() & ((1u << x->nkeys) - 1);
			/* by-value (struct) keys: some integer elements */
			for (k = 0; k < x->nkeys; k++)
				if (!(x->keykinds >> k & 1) && chance(25))
					x->keysize[k] = chance(90) ?
						1 + below(64) :
						1 + below(XDT_KEYMEM_MAX);
		}
		snprintf(x->name, sizeof(x->name), "v%u", i);
	}
}

/* A variable of @scope/@kind, or a random id when there is none. */
static unsigned pick_var(unsigned scope, unsigned kind)
{
	unsigned i, start = below(g.nv ? g.nv : 1);

	for (i = 0; i < g.nv; i++) {
		unsigned j = (start + i) % g.nv;

		if (g.v[j].scope == scope && g.v[j].kind == kind)
			return j;
	}
	return below(g.nv + 2);
}

/* ---- DIF generation -------------------------------------------------------- */
static unsigned reg(void)
{
	return 1 + below(DIF_NREGS - 1);
}

static unsigned rreg(void)
{
	return chance(8) ? 0 : reg();
}

static void emit(__u32 in)
{
	if (g.ni < MAXI)
		g.insn[g.ni++] = in;
}

static unsigned gen_addr(void);

/* Push a key that fits variable @v (or, sometimes, one that does not). */
static void push_key(unsigned v)
{
	static unsigned depth;	/* gen_addr() may read an array: bounded */

	unsigned k, n = v < g.nv ? g.v[v].nkeys : 1;

	if (chance(10))
		n = below(DIF_MAXTUPLE + 2);
	for (k = 0; k < n; k++) {
		unsigned r = reg();
		int str = v < g.nv ? (g.v[v].keykinds >> k) & 1 : 0;
		int ref = v < g.nv && k < DIF_MAXTUPLE && g.v[v].keysize[k];

		if (chance(5))
			str = !str;
		if (chance(5))
			ref = !ref;
		if (ref) {
			/* a struct key: the bytes at an address, good or bad */
			if (depth < 2) {
				depth++;
				r = gen_addr();
				depth--;
			} else {
				emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), r));
			}
			emit(DIF_INSN_R(DIF_OP_PUSHTR, r, 0, 0));
			continue;
		}
		if (str)
			emit(DIF_INSN_I(DIF_OP_SETS, g.strofs[below(g.nstr)], r));
		else
			emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), r));
		emit(DIF_INSN_R(str ? DIF_OP_PUSHTS : DIF_OP_PUSHTV, r, 0, 0));
	}
}

/* A register that holds an address of something, or near it. */
/* Each subroutine's argument kinds (uapi/dif.h). */
static const char *const subr_args[DIF_NSUBRS] = {
#define X(name, idx, str, rt, args, fl) [idx] = args,
	DIF_SUBRS(X)
#undef X
};

static unsigned gen_addr(void)
{
	unsigned r = reg(), o = reg();

	switch (below(7)) {
	case 0:			/* a global's or this->'s storage */
		if (chance(50))
			emit(DIF_INSN_I(DIF_OP_LDGS, pick_var(0, 0), r));
		else
			emit(DIF_INSN_I(DIF_OP_LDLS, pick_var(2, 0), r));
		break;
	case 1:			/* a dynamic variable, maybe missing */
		{
			unsigned t = below(2), v = pick_var(t, 1);

			push_key(v);
			emit(DIF_INSN_I(t ? DIF_OP_LDTAA : DIF_OP_LDGAA, v, r));
		}
		break;
	case 2:			/* scratch */
		emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), o));
		emit(DIF_INSN_R(DIF_OP_ALLOCS, o, 0, r));
		break;
	case 3:			/* kernel data */
		emit(DIF_INSN_I(DIF_OP_LDV, chance(50) ? DIF_VAR_EXECNAME :
				DIF_VAR_PROBEFUNC, r));
		break;
	case 4:			/* the string table (read-only) */
		emit(DIF_INSN_I(DIF_OP_SETS, g.strofs[below(g.nstr)], r));
		break;
	case 5:			/* a self-> value */
		emit(DIF_INSN_I(DIF_OP_LDTS, pick_var(1, 0), r));
		break;
	default:		/* anything */
		emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), r));
		return r;
	}
	if (chance(40)) {	/* step off to an edge */
		emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), o));
		emit(DIF_INSN_R(chance(50) ? DIF_OP_ADD : DIF_OP_SUB, r, o, r));
	}
	return r;
}

static const unsigned alu[] = {
	DIF_OP_ADD, DIF_OP_SUB, DIF_OP_MUL, DIF_OP_SDIV, DIF_OP_UDIV,
	DIF_OP_SREM, DIF_OP_UREM, DIF_OP_AND, DIF_OP_OR, DIF_OP_XOR,
	DIF_OP_SLL, DIF_OP_SRL, DIF_OP_SRA, DIF_OP_SEQ, DIF_OP_SNE,
	DIF_OP_SLT, DIF_OP_SLTU, DIF_OP_SLE, DIF_OP_SLEU, DIF_OP_SCMP,
};

static const unsigned loads[] = {
	DIF_OP_LDSB, DIF_OP_LDSH, DIF_OP_LDSW, DIF_OP_LDUB, DIF_OP_LDUH,
	DIF_OP_LDUW, DIF_OP_LDX,
};

static void gen_stmt(unsigned start, unsigned budget)
{
	unsigned r = reg(), v;

	switch (below(16)) {
	case 0:
		emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), r));
		break;
	case 1:
		emit(DIF_INSN_R(alu[below(20)], rreg(), rreg(), r));
		break;
	case 2:
		emit(DIF_INSN_I(DIF_OP_LDV, below(DIF_NVARS), r));
		break;
	case 3:
		emit(DIF_INSN_R(loads[below(7)], gen_addr(), 0, r));
		break;
	case 4: {		/* scalar store */
		static const unsigned st[] = { DIF_OP_STGS, DIF_OP_STTS,
					       DIF_OP_STLS };
		unsigned s = below(3), src = chance(50) ? gen_addr() : rreg();

		v = pick_var(s == 0 ? 0 : s == 1 ? 1 : 2, 0);
		emit(DIF_INSN_I(st[s], v, src));
		break;
	}
	case 5: {		/* scalar load */
		static const unsigned ld[] = { DIF_OP_LDGS, DIF_OP_LDTS,
					       DIF_OP_LDLS };
		unsigned s = below(3);

		emit(DIF_INSN_I(ld[s], pick_var(s, 0), r));
		break;
	}
	case 6: {		/* array store / load */
		unsigned t = below(2), src;

		v = pick_var(t, 1);
		src = chance(50) ? gen_addr() : rreg();
		push_key(v);
		if (chance(50))
			emit(DIF_INSN_I(t ? DIF_OP_STTAA : DIF_OP_STGAA, v, src));
		else
			emit(DIF_INSN_I(t ? DIF_OP_LDTAA : DIF_OP_LDGAA, v, r));
		break;
	}
	case 7: {		/* memory store */
		unsigned a = gen_addr();

		emit(DIF_INSN_R(DIF_OP_STB + below(4), rreg(), 0, a));
		break;
	}
	case 8: {		/* copy */
		unsigned d = gen_addr(), s = gen_addr(), n = reg();

		emit(DIF_INSN_I(DIF_OP_SETX, below(g.nn), n));
		emit(DIF_INSN_R(DIF_OP_COPYS, s, n, d));
		break;
	}
	case 9: {		/* subroutine: arguments of its row's kinds,
				   mostly; random pointers and lengths */
		unsigned sub = below(DIF_NSUBRS), k;
		const char *a = subr_args[sub];

		for (k = 0; a[k] && !(a[k] == '|' && chance(40)); k++) {
			int str = a[k] == 's' || (a[k] == 'S' && chance(70));

			if (a[k] == '|')
				continue;
			if (chance(5))
				str = !str;		/* a wrong kind */
			if (str)
				emit(DIF_INSN_R(DIF_OP_PUSHTS, gen_addr(), 0, 0));
			else
				emit(DIF_INSN_R(DIF_OP_PUSHTV, chance(50) ?
						gen_addr() : rreg(), 0, 0));
		}
		if (chance(5))			/* one too many */
			emit(DIF_INSN_R(DIF_OP_PUSHTV, rreg(), 0, 0));
		emit(DIF_INSN_I(DIF_OP_CALL, sub, r));
		break;
	}
	case 10:
		emit(DIF_INSN_R(DIF_OP_LDARG, rreg(), 0, r));
		break;
	case 11:
		emit(DIF_INSN_R(DIF_OP_PUSHTV, rreg(), 0, 0));
		if (chance(30))
			emit(DIF_INSN_R(DIF_OP_FLUSHTS, 0, 0, 0));
		break;
	case 12:		/* forward branch into what follows */
		emit(DIF_INSN_B(below(3) == 0 ? DIF_OP_BA :
				chance(50) ? DIF_OP_BZ : DIF_OP_BNZ, rreg(),
				g.ni + 1 + below(budget)));
		break;
	case 13:
		emit(DIF_INSN_I(DIF_OP_SETS, g.strofs[below(g.nstr)], r));
		break;
	case 14:
		emit(DIF_INSN_R(chance(50) ? DIF_OP_NOT : DIF_OP_NEG, rreg(), 0,
				r));
		break;
	default:
		emit(DIF_INSN_R(DIF_OP_MOV, rreg(), 0, r));
		break;
	}
	(void)start;
}

/* @addr: the value returned is an address (gen_addr()), as a struct key's */
static int gen_difo_ret(int rtype, int addr)
{
	struct xdt_difo *d;
	unsigned n = 1 + below(24), i, start = g.ni;

	if (g.nd >= MAXD || g.ni + 400 > MAXI)
		return -1;
	d = &g.d[g.nd];
	memset(d, 0, sizeof(*d));
	for (i = 0; i < n; i++)
		gen_stmt(start, 4);
	emit(DIF_INSN_R(DIF_OP_RET, 0, 0, addr ? gen_addr() : rreg()));
	/* Branch targets past the end land on the RET. */
	for (i = start; i < g.ni; i++) {
		__u32 in = g.insn[i], op = DIF_OP(in);

		if ((op == DIF_OP_BA || op == DIF_OP_BZ || op == DIF_OP_BNZ) &&
		    DIF_TARGET(in) >= g.ni)
			g.insn[i] = (in & ~0xffffu) | (g.ni - 1);
	}
	d->insn0 = start;
	d->ninsns = g.ni - start;
	d->rtype = rtype;
	/* Branch targets are absolute within the DIFO. */
	for (i = start; i < g.ni; i++) {
		__u32 in = g.insn[i], op = DIF_OP(in);

		if (op == DIF_OP_BA || op == DIF_OP_BZ || op == DIF_OP_BNZ)
			g.insn[i] = (in & ~0xffffu) | (DIF_TARGET(in) - start);
	}
	return g.nd++;
}

static int gen_difo(int rtype)
{
	return gen_difo_ret(rtype, 0);
}

/* A DIFO returning @v (an action's operand chosen, not random). */
static int gen_const(__u64 v)
{
	struct xdt_difo *d;
	unsigned k = below(g.nn), start = g.ni;

	if (g.nd >= MAXD || g.ni + 4 > MAXI)
		return -1;
	g.ints[k] = v;
	d = &g.d[g.nd];
	memset(d, 0, sizeof(*d));
	emit(DIF_INSN_I(DIF_OP_SETX, k, 1));
	emit(DIF_INSN_R(DIF_OP_RET, 0, 0, 1));
	d->insn0 = start;
	d->ninsns = g.ni - start;
	return g.nd++;
}

static int syscalls = 1, syscalls_now;

static void gen_clause(int fbt)
{
	struct xdt_clause *c = &g.c[g.nc++];
	unsigned i, n = 1 + below(4), w = below(10);

	memset(c, 0, sizeof(*c));
	if (fbt && syscalls_now && w == 0) {
		strcpy(c->desc.prov, "fbt");
		strcpy(c->desc.func, "vfs_read");
		strcpy(c->desc.name, "entry");
	} else if (w < 4 || !syscalls_now) {
		strcpy(c->desc.prov, "dtrace");
		strcpy(c->desc.name, "BEGIN");
	} else if (w < 5) {
		strcpy(c->desc.prov, "dtrace");
		strcpy(c->desc.name, w == 4 && chance(50) ? "END" : "ERROR");
	} else {
		strcpy(c->desc.prov, "syscall");
		strcpy(c->desc.func, "getppid");
		strcpy(c->desc.name, "entry");
	}
	c->pred = chance(25) ? gen_difo(0) : -1;
	c->action0 = g.na;
	/*
	 * A speculating clause: its speculate first (of a random id: mostly
	 * 0..nspec+1, so valid, 0 and out of range all occur), then the
	 * usual actions, which the loader accepts only if they record
	 * data (it refuses aggregations, exit and destructive ones).
	 */
	if (g.p.nspec && chance(20) && g.na < MAXA) {
		struct xdt_action *a = &g.a[g.na];

		memset(a, 0, sizeof(*a));
		a->kind = XDT_ACT_SPECULATE;
		a->difo = chance(80) ? gen_const(below(g.p.nspec + 2)) :
			  gen_difo(0);
		if (a->difo >= 0) {
			c->flags |= XDT_CLAUSE_SPEC;
			g.na++;
			c->nactions++;
		}
	}
	for (i = 0; i < n && g.na < MAXA; i++) {
		struct xdt_action *a = &g.a[g.na];
		unsigned k = below(12);

		memset(a, 0, sizeof(*a));
		if (g.p.nspec && chance(8)) {
			/* commit or discard a random id */
			a->kind = chance(50) ? XDT_ACT_COMMIT : XDT_ACT_DISCARD;
			a->difo = chance(80) ? gen_const(below(g.p.nspec + 2)) :
				  gen_difo(0);
		} else if (k == 10) {
			/* bytes at an address: tracemem(), trace() of a struct */
			a->kind = XDT_ACT_MEMREF;
			a->arg0 = chance(90) ? 1 + below(300) : rnd();
			a->difo = gen_difo(0);
		} else if (k == 11) {
			/*
			 * Destructive actions that cannot stop the fuzzer
			 * (its own process fires BEGIN and getppid): chill of
			 * random lengths (past the budget: a fault), raise of
			 * signals it ignores or of invalid numbers.  (Not
			 * breakpoint(): the lab's kgdb would wait for a gdb.)
			 */
			static const __u32 sigs[] = { 0, 17, 23, 28, 65, 0xffffffff };

			if (chance(50)) {
				a->kind = XDT_ACT_CHILL;
				a->difo = gen_const(chance(80) ? below(20000) : rnd());
			} else {
				a->kind = XDT_ACT_RAISE;
				a->difo = gen_const(sigs[below(6)]);
			}
		} else if (k < 4) {
			a->kind = XDT_ACT_DIFEXPR;
			a->difo = gen_difo(0);
		} else if (k < 7) {
			a->kind = XDT_ACT_RECORD;
			a->difo = gen_difo(0);
		} else if (k < 9) {
			a->kind = XDT_ACT_STRING;
			a->difo = gen_difo(1);
			/* its slot: strsize (0), a bound below it, or past */
			a->arg0 = chance(60) ? 0 : chance(80) ? 1 + below(64) :
				  rnd();
		} else if (k == 9 && chance(40)) {
			/*
			 * An aggregation key: an integer, a string, or a
			 * stack of either kind whose slot (XDT_KEY_STACKARG)
			 * is mostly valid, sometimes deeper or shallower than
			 * its words or past the limit.
			 */
			a->kind = XDT_ACT_AGGKEY;
			a->arg0 = chance(90) ? below(5) : rnd();
			if (a->arg0 == XDT_KEY_MEM) {
				/* a struct's bytes: mostly a valid size */
				a->arg1 = chance(90) ? 1 + below(64) :
					  chance(50) ? 1 + below(XDT_KEYMEM_MAX) :
					  chance(50) ? XDT_KEYMEM_MAX + below(3) :
					  rnd();
				a->difo = gen_difo_ret(0, chance(80));
			} else if (a->arg0 == XDT_KEY_STACK ||
				   a->arg0 == XDT_KEY_USTACK) {
				unsigned w = chance(90) ? 1 + below(XDT_MAXSTACK + 1) :
						 below(0x10000);
				unsigned s = chance(50) ? w : chance(80) ?
					     w + below(XDT_MAXSTACK + 2 - w % 64) :
					     below(0x10000);

				a->arg1 = chance(95) ? XDT_KEY_STACKARG(w, s) : rnd();
				a->difo = -1;
			} else {
				a->arg1 = chance(95) ? 0 : rnd();
				a->difo = gen_difo(a->arg0 == XDT_KEY_STRING);
			}
		} else {
			/* sum, lquantize or llquantize (g.agg), maybe
			   with an increment */
			a->kind = XDT_ACT_AGG;
			a->arg0 = below(3);
			a->arg1 = g.agg[a->arg0].func;
			if (a->arg0 && chance(30) && g.na + 1 < MAXA) {
				a->kind = XDT_ACT_AGGINCR;
				a->difo = gen_difo(0);
				if (a->difo < 0)
					break;
				g.na++;
				c->nactions++;
				a = &g.a[g.na];
				memset(a, 0, sizeof(*a));
				a->kind = XDT_ACT_AGG;
				a->arg0 = 1 + below(2);
				a->arg1 = g.agg[a->arg0].func;
			}
			a->difo = gen_difo(0);
		}
		/* a stack key has no DIF object (-1 is not a failure there) */
		if (a->difo < 0 && !(a->kind == XDT_ACT_AGGKEY &&
				     (a->arg0 == XDT_KEY_STACK ||
				      a->arg0 == XDT_KEY_USTACK)))
			break;
		g.na++;
		c->nactions++;
	}
}

/* ---- mutation ---------------------------------------------------------------- */
static void mutate(void)
{
	unsigned k, n = 1 + below(4);

	for (k = 0; k < n; k++) {
		switch (below(9)) {
		case 0:			/* a bit of an instruction */
			if (g.ni)
				g.insn[below(g.ni)] ^= 1u << below(32);
			break;
		case 1:			/* an opcode */
			if (g.ni) {
				unsigned i = below(g.ni);

				g.insn[i] = (g.insn[i] & 0xffffff) |
					    (chance(80) ? below(DIF_NOPS + 2) :
					     below(256)) << 24;
			}
			break;
		case 2:			/* an operand byte */
			if (g.ni) {
				unsigned i = below(g.ni), sh = 8 * below(3);

				g.insn[i] = (g.insn[i] & ~(0xffu << sh)) |
					    (chance(70) ? below(20) :
					     below(256)) << sh;
			}
			break;
		case 3:			/* a variable's field */
			if (g.nv) {
				struct xdt_var *x = &g.v[below(g.nv)];
				__u32 r = chance(50) ? below(10) : rnd();

				switch (below(7)) {
				case 0: x->scope = r; break;
				case 1: x->kind = r; break;
				case 2: x->flags = r; break;
				case 3: x->size = chance(50) ? below(70000) : r;
					break;
				case 4: x->nkeys = r; break;
				/* a key's size: past the limit, a string's, ... */
				case 5: x->keysize[below(8)] = chance(50) ?
					XDT_KEYMEM_MAX + below(3) - 1 : (__u16)r;
					break;
				default: x->keykinds = r; break;
				}
			}
			break;
		case 4:			/* an action */
			if (g.na) {
				struct xdt_action *a = &g.a[below(g.na)];

				switch (below(4)) {
				/* not STOP, BREAKPOINT, PANIC: they would stop
				   the fuzzer, wait for a debugger, panic */
				case 0: a->kind = chance(90) ? below(XDT_ACT_RAISE + 1) :
						  XDT_NACTS + below(3); break;
				case 1: a->difo = below(g.nd + 2) - 1; break;
				case 2: a->arg0 = below(5); break;
				/* a stack key's words and slot, among others */
				default: a->arg1 ^= 1u << below(32); break;
				}
			}
			break;
		case 5:			/* a DIFO's slice or type */
			if (g.nd) {
				struct xdt_difo *d = &g.d[below(g.nd)];

				switch (below(4)) {
				case 0: d->ninsns += below(5) - 2; break;
				case 1: d->insn0 += below(5) - 2; break;
				case 2: d->nints = below(MAXN * 2); break;
				default: d->rtype = below(3); break;
				}
			}
			break;
		case 6:			/* program options */
			switch (below(4)) {
			case 0: g.p.dynvarsize = chance(50) ? below(4096) : rnd();
				break;
			case 1: g.p.scratchsize = chance(50) ? below(100) : rnd();
				break;
			case 2: g.p.cleanrate = chance(50) ? below(20000) : rnd();
				break;
			/* past XDT_STRSIZE_MAX now and then: refused */
			default: g.p.strsize = 8 * below(9000); break;
			}
			break;
		case 7:			/* a clause's predicate */
			if (g.nc)
				g.c[below(g.nc)].pred = below(g.nd + 2) - 1;
			break;
		default:		/* a variable's id in an instruction */
			if (g.ni) {
				unsigned i = below(g.ni);
				__u32 op = DIF_OP(g.insn[i]);

				if (op >= DIF_OP_LDGS && op <= DIF_OP_STTAA)
					g.insn[i] = (g.insn[i] & 0xff0000ff) |
						    below(g.nv + 3) << 8;
			}
			break;
		}
	}
}

/*
 * The fuzzer's own process fires BEGIN and getppid: a raise() whose signal
 * a mutation chose could kill or stop it (a "Hangup" ended a run).  After
 * mutating, every raise() gets a fresh constant operand of a signal the
 * fuzzer ignores (or an invalid one), and actions that would stop the
 * process, wait for a debugger or panic become DIF expressions.
 */
static void sanitize(void)
{
	static const __u32 sigs[] = { 0, 17, 23, 28, 65, 0xffffffff };
	unsigned i;

	for (i = 0; i < g.na; i++) {
		struct xdt_action *a = &g.a[i];

		if (a->kind == XDT_ACT_STOP || a->kind == XDT_ACT_BREAKPOINT ||
		    a->kind == XDT_ACT_PANIC)
			a->kind = XDT_ACT_DIFEXPR;
		if (a->kind == XDT_ACT_RAISE) {
			int d = gen_const(sigs[below(6)]);

			if (d < 0)
				a->kind = XDT_ACT_DIFEXPR;
			else
				a->difo = d;
		}
	}
}

/* ---- the blob ---------------------------------------------------------------- */
static void lay_out(int mutate_header)
{
	struct xdt_prog *p = &g.p;
	const struct xdt_pobj_sections sect = {
		g.c, g.a, g.d, g.insn, g.ints, g.str, g.v, g.agg,
	};
	unsigned i;

	for (i = 0; i < g.nd; i++) {
		if (g.d[i].nints == 0)
			g.d[i].nints = g.nn;
		g.d[i].strlen = g.ns;
	}
	p->nclauses = g.nc;
	p->nactions = g.na;
	p->ndifos = g.nd;
	p->ninsns = g.ni;
	p->nints = g.nn;
	p->strtab_len = g.ns;
	p->nvars = g.nv;
	p->naggs = 3;
	bloblen = xdt_pobj_layout(p);
	xdt_pobj_write(blob, p, &sect);
	if (mutate_header) {
		__u32 *w = (__u32 *)p;

		/*
		 * A moved section could make any bytes an action, raise()
		 * among them: no destructive flag unless it is the word that
		 * the mutation picks (then the actions are the sanitized ones).
		 */
		p->flags = 0;
		unsigned f = 2 + below(sizeof(*p) / 4 - 2);

		w[f] = chance(50) ? w[f] + below(17) - 8 : (__u32)rnd();
		memcpy(blob, p, sizeof(*p));
	}
}

static void generate(int fbt)
{
	unsigned n;

	memset(&g.p, 0, sizeof(g.p));
	g.nc = g.na = g.nd = g.ni = 0;
	setup_tables();
	gen_aggs();
	gen_vars();
	g.p.strsize = chance(80) ? 0 : 8 << below(14);	/* 8 .. 64k */
	g.p.bufsize = chance(90) ? 4096 : 0;	/* small: quicker GO/close */
	/* switch, fill, ring, and one past them (refused) */
	g.p.bufpolicy = chance(50) ? 0 : below(4);
	/* -x cpu: CPU 0 or 1 (the guests have 2), or one past (refused) */
	g.p.onecpu = chance(80) ? 0 : 1 + below(3);
	/*
	 * Storage sizes: the defaults (a MiB or more per CPU each) one time
	 * in ten, otherwise small -- small arenas are where the exhaustion
	 * edges are, and on a KASAN kernel zeroing the default megabytes
	 * was most of an accepted program's time (~12 programs/s).
	 */
	g.p.dynvarsize = chance(10) ? 0 : 64 << below(12);
	g.p.scratchsize = chance(10) ? 0 : 8 << below(12);
	g.p.aggsize = chance(10) ? 0 : 4096 << below(8);
	g.p.cleanrate = chance(70) ? 0 : 1 + below(1000);
	/* speculations: none, or a few small ones (drops happen) */
	g.p.nspec = chance(50) ? 0 : 1 + below(4);
	g.p.specsize = chance(50) ? 0 : 8 << below(10);
	/* destructive actions and subroutines: accepted only with the flag */
	g.p.flags = chance(70) ? XDT_PROG_DESTRUCTIVE : 0;
	/*
	 * A quarter of the programs also probe syscall::getppid:entry (and
	 * fbt::vfs_read:entry): their STOP waits for SRCU and the text
	 * patching, ~3x the time of a BEGIN/END/ERROR-only program.
	 */
	syscalls_now = syscalls && chance(25);
	for (n = 1 + below(MAXC); n; n--)
		gen_clause(fbt);
	if (chance(40))
		mutate();
	sanitize();
	lay_out(chance(2));
}

/* ---- running ------------------------------------------------------------------- */
static unsigned long long faults[16];	/* ERROR records by fault kind */

/*
 * An aggregation snapshot, its per-CPU drop counts written to an array,
 * to none, to one too short, or to an address the kernel must refuse.
 */
static void agg_snapshot(int fd)
{
	static char buf[1 << 20];
	static __u64 drops[64];
	struct xdt_aggsnap a = { .size = below(2) ? sizeof(buf) : below(64),
				 .buf = (unsigned long)buf };

	switch (below(4)) {
	case 0: break;
	case 1: a.drops = (unsigned long)drops; a.ndrops = below(3); break;
	case 2: a.drops = (unsigned long)drops; a.ndrops = 64; break;
	default: a.drops = 0xdead0000 + below(4096); a.ndrops = 1 + below(8);
	}
	dev_ioctl(fd, XDT_IOC_AGGSNAP, &a);
}

/* Count the ERROR records in every CPU's buffer, by fault kind. */
static void count_faults(int fd)
{
	static char buf[2 << 20];
	long ncpu = sysconf(_SC_NPROCESSORS_CONF);
	int cpu;

	for (cpu = 0; cpu < ncpu; cpu++) {
		struct xdt_bufsnap b = { .cpu = cpu, .size = sizeof(buf),
					 .buf = (unsigned long)buf };
		unsigned off = 0;

		if (dev_ioctl(fd, XDT_IOC_BUFSNAP, &b) < 0)
			continue;
		while (off + sizeof(struct xdt_rechdr) <= b.size) {
			struct xdt_rechdr *h = (struct xdt_rechdr *)(buf + off);

			if (h->size < sizeof(*h) || off + h->size > b.size)
				break;
			if (h->epid == 0)
				faults[((__u64 *)(h + 1))[4] & 15]++;
			off += h->size;
		}
	}
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	unsigned long long seed = 1, nmax = 0, progs = 0, acc = 0, ref = 0;
	unsigned long long goerr = 0, errors = 0, dyndrops = 0, firings = 0;
	double secs = 0, t0, last, t;
	/* where the time goes: enable (verify), GO, the run, STOP, close */
	double tm[6] = { 0 };
	int fd = -1, opt, verbose = 0, fbt = 1;
	char buf[64];

	/* a raise() that slips past sanitize() must not end the run */
	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP && sig != SIGSEGV &&
		    sig != SIGBUS && sig != SIGILL && sig != SIGFPE &&
		    sig != SIGABRT)
			signal(sig, SIG_IGN);
	while ((opt = getopt(argc, argv, "n:t:s:vFBV")) != -1) {
		switch (opt) {
		case 'n': nmax = strtoull(optarg, NULL, 0); break;
		case 't': secs = atof(optarg); break;
		case 's': seed = strtoull(optarg, NULL, 0); break;
		case 'v': verbose = 1; break;
		case 'F': fbt = 0; break;
		case 'B': fbt = 0; syscalls = 0; break;
		case 'V': hostvm = 1; fbt = 0; syscalls = 0; break;
		default:
			fprintf(stderr, "usage: xdt-fuzz [-n PROGRAMS] "
				"[-t SECONDS] [-s SEED] [-v] [-F (no fbt)] "
				"[-B (dtrace probes only)] [-V (host VM)]\n");
			return 2;
		}
	}
#ifndef XDT_FUZZ_HOSTVM
	if (hostvm) {
		fprintf(stderr, "xdt-fuzz: -V: this build has no host VM\n");
		return 2;
	}
#endif
	if (!nmax && !secs)
		nmax = 1000;
	t0 = last = now();
	for (progs = 0; (!nmax || progs < nmax) &&
	     (!secs || now() - t0 < secs); progs++) {
		struct xdt_enable req;
		struct xdt_status st;
		int i, rfd;

		rs = seed * 0x9e3779b97f4a7c15ULL + progs * 0xbf58476d1ce4e5b9ULL;
		rs |= 1;
		for (i = 0; i < 4; i++)
			rnd();
		generate(fbt);
		if (fd < 0) {
			fd = dev_open();
			if (fd < 0) {
				fprintf(stderr, "xdt-fuzz: %s: %s\n",
					hostvm ? "host VM" : XDT_DEVICE,
					strerror(errno));
				return 1;
			}
		}
		memset(&req, 0, sizeof(req));
		req.prog = (unsigned long)blob;
		req.size = bloblen;
		t = now();
		i = dev_ioctl(fd, XDT_IOC_ENABLE, &req);
		tm[i < 0 ? 5 : 0] += now() - t;
		if (i < 0) {
			ref++;
			if (errno != EINVAL && errno != E2BIG) {
				printf("xdt-fuzz: program %llu: enable: %s "
				       "(%s)\n", progs, strerror(errno),
				       req.err);
				return 1;
			}
			if (verbose)
				printf("%llu refused: %s\n", progs, req.err);
			continue;
		}
		acc++;
		t = now();
		i = dev_ioctl(fd, XDT_IOC_GO, NULL);
		tm[1] += now() - t;
		t = now();
		if (i < 0) {
			goerr++;
			if (verbose)
				printf("%llu go: %s\n", progs, strerror(errno));
		} else {
			for (i = 0; i < 3; i++)
				syscall(SYS_getppid);
			rfd = open("/proc/version", O_RDONLY);
			if (rfd >= 0) {
				if (read(rfd, buf, sizeof(buf)) < 0)
					goerr++;
				close(rfd);
			}
			if (chance(30))
				agg_snapshot(fd);
			tm[2] += now() - t;
			t = now();
			dev_ioctl(fd, XDT_IOC_STOP, NULL);
			tm[3] += now() - t;
			t = now();
			if (chance(30))
				agg_snapshot(fd);
			count_faults(fd);
			if (!dev_ioctl(fd, XDT_IOC_STATUS, &st)) {
				errors += st.errors;
				dyndrops += st.dyndrops;
				firings += st.firings;
			}
		}
		dev_close(fd);
		fd = -1;
		tm[4] += now() - t;
		if (now() - last >= 5) {
			last = now();
			printf("xdt-fuzz: %llu programs, %llu accepted, %.0f/s\n",
			       progs + 1, acc, (progs + 1) / (last - t0));
			fflush(stdout);
		}
	}
	printf("xdt-fuzz: programs %llu accepted %llu refused %llu goerr %llu "
	       "firings %llu errors %llu dyndrops %llu wall %.1f s\n", progs,
	       acc, ref, goerr, firings, errors, dyndrops, now() - t0);
	printf("xdt-fuzz: seconds in refusals %.1f enable %.1f go %.1f run %.1f "
	       "stop %.1f close %.1f\n", tm[5], tm[0], tm[1], tm[2], tm[3],
	       tm[4]);
	printf("xdt-fuzz: ERROR records by fault: badaddr %llu divzero %llu "
	       "illop %llu noscratch %llu tupoflow %llu badalign %llu\n",
	       faults[XDT_FAULT_BADADDR], faults[XDT_FAULT_DIVZERO],
	       faults[XDT_FAULT_ILLOP], faults[XDT_FAULT_NOSCRATCH],
	       faults[XDT_FAULT_TUPOFLOW], faults[XDT_FAULT_BADALIGN]);
	return 0;
}
