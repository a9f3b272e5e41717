/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xdt user/kernel ABI: /dev/xdt ioctls, the program object the consumer
 * hands to the kernel, and the records the kernel hands back.  Included by
 * xdt.ko (core/) and by the consumer (libxdt/), built for the host and for
 * every guest ISA; so only fixed-size types, explicit padding, no pointers
 * (addresses travel as __u64).
 *
 * Contents
 *   1. device and ioctls
 *   2. probe listing
 *   3. program object (clauses, actions, DIF objects)
 *   4. principal buffer records
 *   5. aggregation snapshots
 *   6. status
 *   7. user-space probes (pid provider)
 * The DIF instruction set is in dif.h beside this file.
 */
#ifndef XDT_UAPI_H
#define XDT_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define XDT_DEVICE		"/dev/xdt"
#define XDT_ABI_VERSION		13	/* 5: aggregation descriptors, lquantize,
					   llquantize, increments; 6: speculations,
					   double errors; 7: buffer policies,
					   per-CPU aggregation drops; 8: user-space
					   probes (XDT_IOC_UPROBES); 9: USDT;
					   10: -x cpu (xdt_prog.onecpu);
					   11: probes bound after GO
					   (xdt_enable.late); 12: anonymous
					   tracing (XDT_IOC_ANON), the lock
					   subroutines (mutex_*, rw_*); 13: a
					   string record's slot (STRING's arg0) */

/*
 * The longest execname with its NUL: a Linux task's comm (TASK_COMM_LEN).
 * The compiler records execname in a slot this size, not strsize's.
 */
#define XDT_EXECNAME_MAX	16

#define XDT_PROVNAMELEN		32
#define XDT_MODNAMELEN		64
#define XDT_FUNCNAMELEN		128
#define XDT_NAMELEN		64

/* ---- 1. ioctls ---------------------------------------------------------- */
#define XDT_IOC_MAGIC		0xd7
#define XDT_IOC_VERSION		_IOR(XDT_IOC_MAGIC, 0, __u32)
#define XDT_IOC_PROBES		_IOWR(XDT_IOC_MAGIC, 1, struct xdt_probe_query)
#define XDT_IOC_ENABLE		_IOWR(XDT_IOC_MAGIC, 2, struct xdt_enable)
#define XDT_IOC_GO		_IO(XDT_IOC_MAGIC, 3)
#define XDT_IOC_STOP		_IO(XDT_IOC_MAGIC, 4)
#define XDT_IOC_BUFSNAP		_IOWR(XDT_IOC_MAGIC, 5, struct xdt_bufsnap)
#define XDT_IOC_AGGSNAP		_IOWR(XDT_IOC_MAGIC, 6, struct xdt_aggsnap)
#define XDT_IOC_STATUS		_IOR(XDT_IOC_MAGIC, 7, struct xdt_status)
#define XDT_IOC_EPROBES		_IOWR(XDT_IOC_MAGIC, 8, struct xdt_eprobe_query)
#define XDT_IOC_UPROBES		_IOWR(XDT_IOC_MAGIC, 9, struct xdt_uprobe_req)
#define XDT_IOC_UHOLD		_IOWR(XDT_IOC_MAGIC, 10, struct xdt_uhold_req)
#define XDT_IOC_ANON		_IOWR(XDT_IOC_MAGIC, 11, struct xdt_anon_claim)

/* ---- 2. probe listing --------------------------------------------------- */
struct xdt_probedesc {
	char prov[XDT_PROVNAMELEN];
	char mod[XDT_MODNAMELEN];
	char func[XDT_FUNCNAMELEN];
	char name[XDT_NAMELEN];
};

/* One listed probe, or (XDT_PROBE_REFUSED) a function without one. */
struct xdt_probeinfo {
	__u32 id;			/* 0 for a refused function */
	__u32 flags;
	__u64 addr;			/* patch site, when the provider has one */
	struct xdt_probedesc desc;
	char why[64];			/* reason a function has no probe */
	/*
	 * How the probe is inserted, for providers with a choice (fbt):
	 * the mechanisms it can take, then "; in use: M" while enabled
	 * (docs/mechanisms.md); "" for the others.
	 */
	char mech[64];
};
#define XDT_PROBE_ENABLED	0x1
#define XDT_PROBE_REFUSED	0x2

/*
 * The globs in @match select probes (empty field = any); descriptions are
 * comma-free here, the consumer splits lists.  The kernel fills up to
 * @cap entries at @buf and sets @count to the number that matched (which
 * may exceed @cap: call again with a bigger buffer).
 */
struct xdt_probe_query {
	struct xdt_probedesc match;
	__u32 flags;			/* XDT_PQ_REFUSED: list refusals too */
	__u32 cap;
	__u32 count;
	__u32 pad;
	__u64 buf;			/* struct xdt_probeinfo[cap] */
	/* out: why the description names nothing (kinst offsets), or "" */
	char err[128];
};
#define XDT_PQ_REFUSED		0x1

/* ---- 3. program object -------------------------------------------------- */
/*
 * One blob, all offsets from its start, every length checked by the kernel:
 *
 *   xdt_prog | clauses[nclauses] | actions[nactions] | difos[ndifos] |
 *   insns (u32) | ints (u64) | strtab (bytes) | vars[nvars]
 *
 * A clause binds a probe description to an optional predicate and a run of
 * actions.  An action evaluates its DIF object (if any) and does something
 * with the value; the records a clause writes are the RECORD/STRING/EXIT
 * actions' values in order, each at an 8-byte aligned offset after the
 * record header (struct xdt_rechdr), so the consumer knows the layout of
 * every record from the program alone.
 */
#define XDT_PROG_MAGIC		0x58445450	/* "XDTP" */

struct xdt_prog {
	__u32 magic;
	__u32 version;			/* XDT_ABI_VERSION */
	__u32 size;			/* whole blob */
	__u32 nclauses, clauses_off;
	__u32 nactions, actions_off;
	__u32 ndifos, difos_off;
	__u32 ninsns, insns_off;
	__u32 nints, ints_off;
	__u32 strtab_len, strtab_off;
	__u32 naggs;			/* aggregation ids are 0..naggs-1 */
	__u32 strsize;			/* bytes recorded for a string value */
	__u32 bufsize;			/* per-CPU buffer bytes, 0 = default;
					   at most XDT_BUFSIZE_MAX */
	__u32 nvars, vars_off;		/* struct xdt_var[nvars]: D variables */
	__u32 dynvarsize;		/* dynamic variable space, 0 = default */
	__u32 scratchsize;		/* per-CPU scratch bytes, 0 = default */
	__u32 cleanrate;		/* dirty dynvars cleaned, Hz; 0 = default */
	__u32 flags;			/* XDT_PROG_* */
	__u32 aggs_off;			/* struct xdt_aggdesc[naggs] */
	__u32 aggsize;			/* per-CPU aggregation bytes, 0 = default */
	__u32 nspec;			/* speculations, 0 = default (1) */
	__u32 specsize;			/* per-CPU bytes of each, 0 = default */
	__u32 bufpolicy;		/* XDT_BUFPOLICY_* */
	__u32 fbtmode;			/* XDT_FBTMODE_*: -x fbtmode */
	__u32 onecpu;			/* -x cpu: 1 + the one CPU whose
					   firings run the clauses; 0 = all */
	__u32 pad;			/* 128 bytes: a builder that places the
					   sections right after the header
					   (xdt-rawprog) keeps them 8-aligned */
};
_Static_assert(sizeof(struct xdt_prog) % 8 == 0, "xdt_prog: 8-byte multiple");
/*
 * -x fbtmode: how an fbt entry probe this program switches on is inserted
 * (docs/mechanisms.md).  default: the cheapest the function allows;
 * breakpoint: the ISA's trap instruction over the entry site; ftrace: an
 * ftrace_ops on the function (ftrace's call at its patchable entry);
 * trampoline: xdt's own call at that entry into a trampoline in xdt.ko.
 * A function the chosen one cannot take gets the breakpoint.  Return
 * probes are breakpoints under every mode.
 */
enum { XDT_FBTMODE_DEFAULT = 0, XDT_FBTMODE_BREAKPOINT = 1,
       XDT_FBTMODE_FTRACE = 2, XDT_FBTMODE_TRAMPOLINE = 3,
       XDT_FBTMODE_NMODES };
#define XDT_FBTMODE_NAMES { "default", "breakpoint", "ftrace", "trampoline" }
/*
 * DTrace's buffer policies.  switch: two buffers per CPU, the consumer
 * takes the full one (drops when one interval fills it); fill: one
 * buffer, filled once: past it everything drops and the consumer stops
 * (END's records still fit: space is kept for them); ring: one buffer the
 * newest records overwrite, read only after STOP.
 */
enum { XDT_BUFPOLICY_SWITCH = 0, XDT_BUFPOLICY_FILL = 1,
       XDT_BUFPOLICY_RING = 2 };
#define XDT_BUFSIZE_MAX		(64u << 20)
#define XDT_STRSIZE_MAX		(64u << 10)	/* -x strsize: 2 .. this */
#define XDT_PROG_DESTRUCTIVE	0x1	/* dtrace -w: destructive actions allowed */

/*
 * A D variable the program's DIF names by its index in this table (the
 * variable ops of dif.h).  Scalars of the global and clause-local scopes
 * live in storage allocated at enable (globals once, clause-locals per
 * CPU); thread-locals and associative arrays are dynamic variables, made
 * on first store in the bounded dynamic variable space and freed by
 * storing 0 (and, for thread-locals, when their thread exits).
 */
enum xdt_var_scope {
	XDT_VAR_GLOBAL = 0,
	XDT_VAR_THREAD = 1,		/* self-> */
	XDT_VAR_LOCAL = 2,		/* this-> */
};

enum xdt_var_kind {
	XDT_VAR_SCALAR = 0,
	XDT_VAR_ARRAY = 1,		/* associative: keyed by a tuple */
};

#define XDT_VF_BYREF	0x1		/* held by reference: loads give the
					   address of the value, stores copy
					   size bytes from an address */
#define XDT_VF_STRING	0x2		/* (with BYREF) copy up to the NUL:
					   at most size bytes, NUL-terminated,
					   zero-padded */

struct xdt_var {
	__u16 scope;			/* enum xdt_var_scope */
	__u16 kind;			/* enum xdt_var_kind */
	__u32 flags;			/* XDT_VF_* */
	__u32 size;			/* value bytes: 8 for an integer */
	__u32 nkeys;			/* ARRAY: tuple elements (1..8) */
	__u32 keykinds;			/* ARRAY: bit i set = element i is a
					   string (strsize bytes, NUL-padded),
					   clear = an 8-byte integer -- or,
					   if keysize[i], keysize[i] bytes */
	/*
	 * ARRAY: element i's bytes when it is a value held by reference (a
	 * struct, union or array pushed by PUSHTR), 1..XDT_KEYMEM_MAX; 0 for
	 * an integer or a string.  The key holds it zero-padded to 8.
	 */
	__u16 keysize[8];
	__u32 pad;
	char name[32];			/* for messages; may be truncated */
};					/* 72 bytes */

struct xdt_clause {
	struct xdt_probedesc desc;
	__s32 pred;			/* DIF object index, -1 = none */
	__u32 action0;			/* first action index */
	__u32 nactions;
	__u32 flags;			/* XDT_CLAUSE_* */
};
/*
 * Write a record (the header alone if no action records data) whenever
 * the clause runs: printf() without arguments, and DTrace's default
 * action of a clause without statements (the consumer prints the probe).
 */
#define XDT_CLAUSE_RECORD	0x1
/*
 * The clause speculates: its record is reserved by its speculate action
 * (in that speculation's buffer), not before the first action, and the
 * clause ends there if the speculation has no buffer for it.
 */
#define XDT_CLAUSE_SPEC		0x2

/*
 * The actions: one row each, expanded by the kernel's loader (record
 * layout, checks), the DIF disassembler and the compiler.  Columns: name,
 * value, name in -S listings, what it records (XDT_REC_*), flags:
 *   XDT_AF_VALUE  needs a DIF object (its value is the operand)
 *   XDT_AF_DESTR  destructive: refused unless the program says -w
 *           (XDT_PROG_DESTRUCTIVE), as DTrace refuses it
 */
#define XDT_ACTIONS(X) \
	X(RECORD,     1, "record",     U64,  XDT_AF_VALUE)	/* the 8-byte value */ \
	X(STRING,     2, "string",     STR,  XDT_AF_VALUE)	/* arg0 bytes (0: strsize) */ \
	X(EXIT,	      3, "exit",       U64,   0)	/* record, then stop */ \
	X(AGGKEY,     4, "aggkey",     NONE,  0)	/* push a key */ \
	X(AGG,	      5, "agg",	       NONE,  0)	/* aggregate the keys */ \
	X(STACK,      6, "stack",      STACK, 0)	/* arg0 return addrs */ \
	X(DIFEXPR,    7, "difexpr",    NONE, XDT_AF_VALUE)	/* for its effects */ \
	X(MEMREF,     8, "memref",     MEM,  XDT_AF_VALUE)	/* arg0 bytes at value */ \
	X(CHILL,      9, "chill",      NONE, XDT_AF_VALUE | XDT_AF_DESTR) \
	X(RAISE,     10, "raise",      NONE, XDT_AF_VALUE | XDT_AF_DESTR) \
	X(STOP,	     11, "stop",       NONE,  XDT_AF_DESTR)	/* SIGSTOP */ \
	X(BREAKPOINT, 12, "breakpoint", NONE, XDT_AF_DESTR)	/* kgdb */ \
	X(PANIC,     13, "panic",      NONE,  XDT_AF_DESTR) \
	X(AGGINCR,   14, "aggincr",    NONE, XDT_AF_VALUE)	/* the next agg's
							   increment */ \
	X(SPECULATE, 15, "speculate",  NONE, XDT_AF_VALUE)	/* the record goes
						   to speculation #value */ \
	X(COMMIT,    16, "commit",     NONE, XDT_AF_VALUE) \
	X(DISCARD,   17, "discard",    NONE, XDT_AF_VALUE)

enum xdt_action_kind {
#define XDT_AENUM(name, v, dis, rec, fl) XDT_ACT_##name = v,
	XDT_ACTIONS(XDT_AENUM)
#undef XDT_AENUM
	XDT_NACTS
};

/* What an action records: nothing, 8 bytes, a string, arg0 frames, arg0 bytes */
enum xdt_rec_kind {
	XDT_REC_NONE, XDT_REC_U64, XDT_REC_STR, XDT_REC_STACK, XDT_REC_MEM,
};
#define XDT_AF_VALUE	0x1
#define XDT_AF_DESTR	0x2
#define XDT_MAXMEMREF	(64u << 10)	/* bytes one tracemem()/trace() records */

/*
 * The aggregating functions: one row each, expanded by the kernel (how many
 * 8-byte values an entry keeps), the compiler (D name, arguments) and the
 * printers.  X(name, value, D name, values kept (0: from the descriptor's
 * parameters), fewest D arguments, most D arguments).  The last argument
 * of quantize, lquantize and llquantize beyond their parameters is the
 * increment (DTrace's), which an XDT_ACT_AGGINCR before the XDT_ACT_AGG
 * carries.
 */
#define XDT_AGGFUNCS(X) \
	X(COUNT,      1, "count",      1, 0, 0) \
	X(SUM,	      2, "sum",	       1, 1, 1) \
	X(MIN,	      3, "min",	       1, 1, 1) \
	X(MAX,	      4, "max",	       1, 1, 1) \
	X(AVG,	      5, "avg",	       2, 1, 1)	/* count, sum */ \
	X(QUANTIZE,   6, "quantize",   XDT_QUANTIZE_BUCKETS, 1, 2) \
	X(STDDEV,     7, "stddev",     4, 1, 1)	/* count, sum, sum of squares
						   (128 bits: low, high) */ \
	X(LQUANTIZE,  8, "lquantize",  0, 3, 5)	/* < base, levels, >= limit */ \
	X(LLQUANTIZE, 9, "llquantize", 0, 5, 6)	/* < factor^low, ..., overflow */

enum xdt_aggfunc {
#define XDT_AGGENUM(name, v, dname, nvals, amin, amax) XDT_AGG_##name = v,
	XDT_AGGFUNCS(XDT_AGGENUM)
#undef XDT_AGGENUM
	XDT_NAGGFUNCS
};

/*
 * One per aggregation (struct xdt_prog's aggs_off): its function and, for
 * lquantize and llquantize, their parameters packed in @arg:
 *   lquantize:  base (s32) << 32 | step (u16) << 16 | levels (u16)
 *   llquantize: factor << 48 | low << 32 | high << 16 | steps (u16 each)
 * @nvals is what xdt_agg_nvals() gives; the loader checks it.
 */
struct xdt_aggdesc {
	__u32 func;
	__u32 nvals;
	__u64 arg;
};
#define XDT_LQ_ARG(base, step, levels) \
	((__u64)(__u32)(__s32)(base) << 32 | (__u64)(__u16)(step) << 16 | \
	 (__u16)(levels))
#define XDT_LQ_BASE(a)		((__s32)((a) >> 32))
#define XDT_LQ_STEP(a)		((__u16)((a) >> 16))
#define XDT_LQ_LEVELS(a)	((__u16)(a))
#define XDT_LLQ_ARG(factor, low, high, steps) \
	((__u64)(__u16)(factor) << 48 | (__u64)(__u16)(low) << 32 | \
	 (__u64)(__u16)(high) << 16 | (__u16)(steps))
#define XDT_LLQ_FACTOR(a)	((__u16)((a) >> 48))
#define XDT_LLQ_LOW(a)		((__u16)((a) >> 32))
#define XDT_LLQ_HIGH(a)		((__u16)((a) >> 16))
#define XDT_LLQ_STEPS(a)	((__u16)(a))
#define XDT_MAXAGGVALS		(1u << 17)	/* values one entry may keep */

#define XDT_MAXSTACK	64		/* frames stack() may record */
/*
 * A ustack() record or key is its frames + 1 words: XDT_USTACK_TAG | the
 * process's pid, then the user frames, innermost first, zero-padded.  No
 * kernel text address has these top bits on any of xdt's ISAs, so a stack
 * tells by its first word whose it is (the consumer symbolises a user one
 * from that process's objects).
 */
#define XDT_USTACK_TAG		0x5553000000000000ULL	/* "US" */
#define XDT_USTACK_MASK		0xffff000000000000ULL
#define XDT_IS_USTACK(w)	(((w) & XDT_USTACK_MASK) == XDT_USTACK_TAG)
/*
 * ufunc(), usym(), umod(), uaddr(): two words, XDT_USYM_TAG | the form
 * << 32 | pid, then the address -- the compiler's DIF records both (no
 * kernel action of their own); the consumer names the address from the
 * process's objects in the form asked.  sym(), func() and mod() are their
 * kernel twins (DTrace's DTRACEACT_SYM and DTRACEACT_MOD): the same two
 * words with a kernel form and no pid, named from the kernel's symbols.
 */
#define XDT_USYM_TAG		0x5546000000000000ULL	/* "UF" */
#define XDT_IS_USYM(w)		(((w) & XDT_USTACK_MASK) == XDT_USYM_TAG)
#define XDT_USYM_FORM(w)	((unsigned)((w) >> 32) & 0xff)
enum { XDT_USYM_FUNC, XDT_USYM_SYM, XDT_USYM_MOD, XDT_USYM_ADDR,
       XDT_KSYM_SYM, XDT_KSYM_MOD };
#define XDT_USYM_KERNEL(form)	((form) >= XDT_KSYM_SYM)
/* XDT_ACT_AGGKEY arg0: the key's type */
enum xdt_key_kind {
	XDT_KEY_INT = 0,		/* 8-byte value from the DIF object */
	XDT_KEY_STRING = 1,		/* strsize bytes, NUL-padded */
	XDT_KEY_STACK = 2,		/* arg1 frames, 8 bytes each; no DIF */
	XDT_KEY_USTACK = 3,		/* arg1 words (XDT_USTACK_TAG | pid,
					   then frames), 8 bytes each; no DIF */
	XDT_KEY_MEM = 4,		/* arg1 bytes at the DIF value's address
					   (a struct, union or array),
					   zero-padded to 8 */
};
/*
 * A by-value key's most bytes (XDT_KEY_MEM, struct xdt_var's keysize): as
 * much as the longest string key, so that 8 keys of any kind fit the
 * kernel's 32 KiB key buffer.
 */
#define XDT_KEYMEM_MAX	4096
/*
 * A stack key's arg1: the words it records (low 16 bits) and the words its
 * key slot holds (high 16 bits; 0 = the same), zero-padded.  One
 * aggregation's uses may put stack(5), stack(20) and ustack() in one key
 * position, as DTrace allows; the compiler gives them all the largest
 * one's slot, so that every entry's key has one length and each stack
 * still tells its kind by its first word.
 */
#define XDT_KEY_WORDS(arg1)	((arg1) & 0xffff)
#define XDT_KEY_SLOT(arg1)	((arg1) >> 16 ? (arg1) >> 16 : (arg1) & 0xffff)
#define XDT_KEY_STACKARG(words, slot) \
	((__u32)(words) | ((__u32)(slot) == (__u32)(words) ? 0 : \
			   (__u32)(slot) << 16))

struct xdt_action {
	__u32 kind;
	__s32 difo;			/* -1 = none */
	__u32 arg0, arg1;
};

enum xdt_type {
	XDT_TYPE_INT = 0,
	XDT_TYPE_STRING = 1,		/* value is a kernel address of a string */
};

struct xdt_difo {
	__u32 insn0, ninsns;		/* slice of insns[] */
	__u32 int0, nints;		/* slice of ints[] (SETX operands) */
	__u32 str0, strlen;		/* slice of strtab (SETS operands) */
	__u32 rtype;			/* enum xdt_type of the returned value */
	__u32 pad;
};

struct xdt_enable {
	__u64 prog;			/* struct xdt_prog blob */
	__u32 size;
	__u32 nprobes;			/* out: probes the clauses matched */
	/* out: on EINVAL, why (e.g. "difo 2 insn 5: branch backwards") */
	char err[128];
	/* out: index of the first clause that matched nothing, or -1 */
	__s32 unmatched;
	/*
	 * in: room for this many ECBs of probes made after GO (the pid
	 * provider's, in an object the process dlopen()s while traced), at
	 * most XDT_LATE_MAX; 0: the clauses are bound once, at ENABLE
	 */
	__u32 late;
};
#define XDT_LATE_MAX		65536

/*
 * Anonymous tracing (dtrace -A, dtrace -a; core/portable/anon.c): the file
 * dtrace -A writes and xdt.ko reads as it loads.  One blob, offsets from
 * its start: this header, the program object exactly as XDT_IOC_ENABLE
 * takes it (8-aligned), and the consumer's own part, which the kernel
 * keeps but never reads (libxdt: the sources and options it recompiles
 * to read the records).  Where xdt.ko reads it from: XDT_ANON_PATH,
 * unless its module parameter anon= names another file ("" for none).
 */
#define XDT_ANON_MAGIC		0x58445441	/* "XDTA" */
#define XDT_ANON_PATH		"/lib/firmware/xdt/anon.xdt"
#define XDT_ANON_MAX		(20u << 20)	/* bytes of the file: a program
						   object of the most the kernel
						   takes, and 4 MiB more */

struct xdt_anon {
	__u32 magic;
	__u32 version;			/* XDT_ABI_VERSION */
	__u32 size;			/* whole file */
	__u32 flags;			/* XDT_ANON_* */
	__u32 prog_off, prog_size;	/* struct xdt_prog blob */
	__u32 meta_off, meta_size;	/* the consumer's, opaque here */
};
#define XDT_ANON_ZDEFS		0x1	/* -Z: a clause may match no probe */

/*
 * Claim the anonymous enabling into this descriptor, whose own state must
 * be idle: it becomes this descriptor's state, running, its records since
 * load still in its buffers.  The kernel copies the file it loaded to
 * @buf; @cap too small: ENOSPC, nothing claimed, @size says how much.
 * ENOENT: there is none (never loaded, failed to load, or claimed
 * already); the other errors say why in @err.
 */
struct xdt_anon_claim {
	__u64 buf;
	__u32 cap;
	__u32 size;			/* out: the file's bytes */
	char err[128];
};

/* ---- 4. records --------------------------------------------------------- */
/*
 * An enabled probe id (EPID) names one (clause, probe) pair.  Records are
 * 8-aligned: size is always a multiple of 8.  EPID 0 is a dtrace:::ERROR
 * record: after the header, six __u64: 0, the faulting EPID, the action
 * (0 = predicate, n = the clause's n-th action), the DIF pc, the fault kind
 * and the faulting address.  EPID 0xffffffff is a record abandoned by a
 * fault half-way (its ERROR record follows); skip it.
 */
struct xdt_rechdr {
	__u32 epid;
	__u32 size;			/* including this header */
};

/* DTrace's DTRACEFLT_* values: what ERROR's arg4 holds, scripts compare it. */
enum xdt_fault_kind {
	XDT_FAULT_NONE = 0,
	XDT_FAULT_BADADDR = 1,		/* "invalid address" */
	XDT_FAULT_BADALIGN = 2,		/* "invalid alignment" */
	XDT_FAULT_ILLOP = 3,		/* "illegal operation" */
	XDT_FAULT_DIVZERO = 4,		/* "divide-by-zero" */
	XDT_FAULT_NOSCRATCH = 5,	/* "out of scratch space" */
	XDT_FAULT_KPRIV = 6,		/* "invalid kernel access" */
	XDT_FAULT_UPRIV = 7,		/* "invalid user access" */
	XDT_FAULT_TUPOFLOW = 8,		/* "tuple stack overflow" */
	XDT_FAULT_BADSTACK = 9,		/* "bad stack" */
	/*
	 * A fault of the consumer's own (DTrace's dt_handle_liberr): no
	 * probe context raises it; the number is DTrace's, for scripts.
	 */
	XDT_FAULT_LIBRARY = 1000,	/* "library-level fault" */
};

/*
 * The DIF offset of a fault (ERROR's arg3) is a byte offset into the DIF
 * object, 4 per instruction, as DTrace reports it; a fault outside DIF
 * (recording a string) has none.
 */
#define XDT_NO_DIFOFF	0xffffffffu

struct xdt_eprobe {
	__u32 epid;
	__u32 clause;
	__u32 probe;			/* probe id */
	__u32 pad;
	struct xdt_probedesc desc;
};

struct xdt_eprobe_query {
	__u32 cap, count;
	__u64 buf;			/* struct xdt_eprobe[cap] */
};

/*
 * Take CPU @cpu's filled buffer (the kernel switches to its other one).
 * ENOSPC: @buf is smaller than the retired buffer; @size says how big.
 */
struct xdt_bufsnap {
	__u32 cpu;
	__u32 size;			/* in: capacity of @buf; out: bytes */
	__u64 buf;
	__u64 drops;			/* out: records dropped since last snap */
};

/* ---- 5. aggregations ---------------------------------------------------- */
#define XDT_QUANTIZE_BUCKETS	127	/* 63 negative, zero, 63 positive */
#define XDT_QUANTIZE_ZERO	63	/* bucket of 0; bucket 63+k: [2^(k-1),2^k) */

/*
 * The bucket arithmetic of lquantize and llquantize, here once for the
 * kernel (which bucket a value goes to), the loader and compiler (are the
 * parameters sound, how many buckets) and the printers (what each bucket's
 * value is).  Plain C on the uapi types: it builds in both worlds.
 *
 * lquantize: bucket 0 is below base, bucket 1 + i is [base + i*step,
 * base + (i+1)*step), bucket levels + 1 is base + levels*step and above.
 *
 * llquantize, as DTrace lays it out: bucket 0 is below factor^low; each
 * order of magnitude o from low to high is cut into equal steps of
 * factor^(o+1) / steps (1 while factor^(o+1) <= steps), which leaves
 * steps - steps/factor buckets per order once the order is wide enough;
 * the last bucket is factor^(high+1) and above.
 */
static __inline__ __u64 xdt_llq_pow(__u64 f, unsigned int n)
{
	__u64 r = 1;

	while (n--)
		r *= f;
	return r;
}

static const __u32 xdt_agg_fixed_nvals[XDT_NAGGFUNCS] = {
#define XDT_AGGNVALS(name, v, dname, nvals, amin, amax) [v] = nvals,
	XDT_AGGFUNCS(XDT_AGGNVALS)
#undef XDT_AGGNVALS
};

/* @nvals of a descriptor, 0 if its function or parameters are unsound. */
static __inline__ __u32 xdt_agg_nvals(__u32 func, __u64 arg)
{
	if (func == XDT_AGG_LQUANTIZE) {
		if (!XDT_LQ_STEP(arg) || !XDT_LQ_LEVELS(arg))
			return 0;
		return XDT_LQ_LEVELS(arg) + 2u;
	}
	if (func == XDT_AGG_LLQUANTIZE) {
		__u64 f = XDT_LLQ_FACTOR(arg), n = XDT_LLQ_STEPS(arg), v, o;
		__u64 total = 2;
		unsigned int i;

		if (f < 2 || XDT_LLQ_LOW(arg) >= XDT_LLQ_HIGH(arg) || n < f ||
		    n % f)
			return 0;
		for (v = f; v < n; v *= f)
			;
		if (v % n)
			return 0;
		/* factor^(high+2) must not overflow (DTrace's rule) */
		for (i = 0, o = 1; i <= XDT_LLQ_HIGH(arg) + 1u; i++) {
			if (o * f / f != o)
				return 0;
			o *= f;
		}
		for (i = XDT_LLQ_LOW(arg); i <= XDT_LLQ_HIGH(arg); i++) {
			__u64 lo = xdt_llq_pow(f, i), hi = lo * f;
			__u64 step = hi > n ? hi / n : 1;

			total += (hi - lo) / step;
			if (total > XDT_MAXAGGVALS)
				return 0;
		}
		return (__u32)total;
	}
	return func < XDT_NAGGFUNCS ? xdt_agg_fixed_nvals[func] : 0;
}

/*
 * Fold entry values @src into @dst, as every snapshot does across CPUs
 * (the kernel) and across snapshots (the consumer): sums for counts and
 * buckets, the extreme for min/max, stddev's sum of squares with its carry.
 */
static __inline__ void xdt_agg_merge(__u32 func, __s64 *dst, const __s64 *src,
				     __u32 n)
{
	__u32 i;

	if (func == XDT_AGG_MIN) {
		if (src[0] < dst[0])
			dst[0] = src[0];
	} else if (func == XDT_AGG_MAX) {
		if (src[0] > dst[0])
			dst[0] = src[0];
	} else if (func == XDT_AGG_STDDEV && n >= 4) {
		__u64 lo = (__u64)dst[2] + (__u64)src[2];

		/* sums wrap as the kernel's do (not C's undefined overflow) */
		dst[0] = (__s64)((__u64)dst[0] + (__u64)src[0]);
		dst[1] = (__s64)((__u64)dst[1] + (__u64)src[1]);
		dst[3] = (__s64)((__u64)dst[3] + (__u64)src[3] +
				 (lo < (__u64)dst[2]));
		dst[2] = (__s64)lo;
	} else {
		for (i = 0; i < n; i++)
			dst[i] = (__s64)((__u64)dst[i] + (__u64)src[i]);
	}
}

static __inline__ __u32 xdt_lq_bucket(__u64 arg, __s64 v)
{
	__s64 base = XDT_LQ_BASE(arg);
	__u64 level;

	if (v < base)
		return 0;
	level = ((__u64)v - (__u64)base) / XDT_LQ_STEP(arg);
	return level < XDT_LQ_LEVELS(arg) ? (__u32)level + 1 :
		XDT_LQ_LEVELS(arg) + 1u;
}

static __inline__ __u32 xdt_llq_bucket(__u64 arg, __s64 v)
{
	__u64 f = XDT_LLQ_FACTOR(arg), n = XDT_LLQ_STEPS(arg);
	__u64 lo = xdt_llq_pow(f, XDT_LLQ_LOW(arg));
	__u32 bin = 1;
	unsigned int o;

	if (v < 0 || (__u64)v < lo)
		return 0;
	for (o = XDT_LLQ_LOW(arg); o <= XDT_LLQ_HIGH(arg); o++, lo *= f) {
		__u64 hi = lo * f, step = hi > n ? hi / n : 1;

		if ((__u64)v < hi)
			return bin + (__u32)(((__u64)v - lo) / step);
		bin += (__u32)((hi - lo) / step);
	}
	return bin;
}

/*
 * A snapshot is a sequence of entries, summed over CPUs:
 *   xdt_aggent | key bytes (keylen, 8-aligned) | __s64 values[nvals]
 * Integer keys are 8 bytes; string keys strsize bytes, NUL padded.
 */
struct xdt_aggent {
	__u32 aggid;
	__u32 keylen;
	__u32 nvals;
	__u32 size;			/* of the whole entry */
};

struct xdt_aggsnap {
	__u32 size;			/* in: capacity; out: bytes (or needed) */
	__u32 count;			/* out: entries */
	__u64 buf;
	__u64 drops;			/* in: __u64[ndrops] or 0; out there:
					   each CPU's aggregation drops since
					   the last snapshot (DTrace reports
					   them per CPU) */
	__u32 ndrops;
	__u32 pad;
};

/* ---- 6. status ---------------------------------------------------------- */
struct xdt_status {
	__u64 drops;			/* principal buffer records dropped */
	__u64 aggdrops;			/* aggregation entries that found no room */
	__u64 errors;			/* ERROR probe firings */
	__u64 firings;			/* probe firings handled */
	__u64 traps;			/* breakpoint traps taken by xdt */
	__u32 exited;			/* exit() was called */
	__u32 state;			/* 0 idle, 1 enabled, 2 running, 3 stopped */
	__u64 dyndrops;			/* dynamic variables not allocated: the
					   space was full ... */
	__u64 dyndrops_dirty;		/* ... of which while freed variables
					   were still waiting to be cleaned */
	__u64 specdrops;		/* speculative records with no room */
	__u64 specbusy;			/* speculation() failed, one was busy
					   committing or discarding */
	__u64 specunavail;		/* speculation() failed, none free */
	__u64 dblerrors;		/* faults in an ERROR clause (no ERROR
					   fires for them) */
	__u32 filled;			/* bufpolicy=fill: a CPU's buffer is full */
	__u32 pad;
};

/* ---- 7. user-space probes ---------------------------------------------- */
/*
 * The pid provider's probes are made by the consumer, as DTrace's are
 * (libdtrace's dt_pid.c and the fasttrap ioctl): libxdt reads the
 * process's mappings and its objects' ELF symbol tables and asks for
 * probes at addresses in the process; the kernel checks that the caller
 * may trace the process (the same uid and a dumpable process, or
 * CAP_SYS_PTRACE), that every address lies in an executable file mapping
 * of it, and makes the probes of provider <prov><pid> (pid1234).  They
 * live as long as the process (and its current image: an exec ends them)
 * or, after that, until no consumer has them enabled.
 */
#define XDT_UP_ENTRY		0	/* a uprobe at @addr; args = the ABI's */
#define XDT_UP_RETURN		1	/* a uretprobe on the function at @addr */
#define XDT_UP_OFFSET		2	/* a uprobe at @addr + @off, which must
					   be an instruction boundary; no
					   arguments; named by @off in hex */
#define XDT_UP_OFFSETS		3	/* one such at every instruction of
					   [@addr, @addr + @size) */
#define XDT_UP_USDT		4	/* a USDT probe's site at @addr (systemtap
					   <sys/sdt.h> notes): @args, @refctr;
					   one probe may have several sites */
#define XDT_UPROBES_MAX		65536	/* probes in one request */
#define XDT_UFUNC_MAX		65536	/* bytes of a function decoded */
#define XDT_USDT_ARGS		12	/* <sys/sdt.h>'s most */

/*
 * A USDT argument, from the note's "size@operand" spec: the consumer
 * parses the operand's syntax (the same on every ISA but for x86's % and
 * $), the kernel names its register by arch/<isa>/user_isa.c's table.
 */
#define XDT_UA_NONE		0	/* not given, or an operand xdt cannot
					   evaluate: reads as 0 */
#define XDT_UA_REG		1	/* the register @reg */
#define XDT_UA_MEM		2	/* the memory at @reg + @off */
#define XDT_UA_CONST		3	/* @off itself */
#define XDT_UA_ABS		4	/* the memory at @off (a global) */

struct xdt_uarg {
	__s64 off;
	__s8 size;			/* 1, 2, 4, 8 bytes; < 0: signed */
	__u8 kind;			/* XDT_UA_* */
	char reg[6];			/* as the assembler spells it: rdi,
					   edi, x0, w1, a0, sp */
};

struct xdt_uprobe {
	__u64 addr;			/* the function's start, in the process;
					   USDT: the probe's site */
	__u32 kind;			/* XDT_UP_* */
	__u32 size;			/* offsets: the function's bytes */
	__u32 off;			/* XDT_UP_OFFSET */
	__u32 nargs;			/* USDT: @args given */
	__u64 refctr;			/* USDT: the semaphore's offset in the
					   file (is-enabled probes), 0: none */
	char mod[XDT_MODNAMELEN];
	char func[XDT_FUNCNAMELEN];
	char name[XDT_NAMELEN];		/* entry, return, USDT's; offsets:
					   unused */
	struct xdt_uarg args[XDT_USDT_ARGS];
};

struct xdt_uprobe_req {
	__s32 pid;
	__u32 count;			/* entries at @probes */
	__u64 probes;			/* struct xdt_uprobe[count] */
	char prov[XDT_PROVNAMELEN];	/* "pid": the provider is pid<pid>;
					   USDT: the notes' provider name */
	__u32 created;			/* out: probes new in this request */
	__u32 bound;			/* out: after GO, enabled probes (ECBs)
					   the new probes gave the clauses */
	char err[128];			/* out: why the request was refused; on
					   success, why the last probe not made
					   was not (a first instruction uprobes
					   cannot take), or empty */
};

/*
 * The loader's hold (providers/pid.c): while tracing, a thread of @pid
 * that calls @addr (the loader's r_brk, which it calls before and after
 * it maps or unmaps an object) waits until the consumer has made the
 * probes of what was mapped and says so, at most XDT_UHOLD_MS; poll() on
 * the consumer's file says EPOLLPRI while one waits.
 */
#define XDT_UHOLD_SET		0	/* hold @pid's calls of @addr */
#define XDT_UHOLD_PEEK		1	/* out: @seq, the calls so far */
#define XDT_UHOLD_ACK		2	/* release the calls up to @seq */
#define XDT_UHOLD_SET_RET	3	/* hold @pid's returns from @addr */
#define XDT_UHOLD_MS		2000

struct xdt_uhold_req {
	__s32 pid;
	__u32 op;			/* XDT_UHOLD_* */
	__u64 addr;
	__u64 seq;
	char err[128];			/* out: why SET was refused */
};

#endif
