/* SPDX-License-Identifier: GPL-2.0 */
/*
 * xdt core: the framework's internal interfaces.
 *
 * Contents
 *   1. probe context rules
 *   2. providers and probes          (core/portable/probes.c)
 *   3. patch sites                   (core/sites.c; arch/<isa>/ fills them)
 *   4. enablings                     (core/portable/enable.c, device.c)
 *   5. DIF                           (core/portable/dif.c)
 *   5b. D variables                  (core/portable/vars.c)
 *   6. buffers and aggregations      (core/portable/buf.c)
 *   7. firing                        (core/portable/firing.c)
 *   8. built-in providers            (providers/)
 *
 * 1. PROBE CONTEXT.  Everything reachable from a breakpoint trap runs with
 * interrupts off, possibly nested in any kernel code, on any CPU.  Such code
 * is marked __xdt_probe: it lives in .kprobes.text (so kprobes will not
 * instrument it), is notrace (so ftrace will not), and is in a module, which
 * fbt and kinst never instrument (they only provide probes on vmlinux text)
 * -- so xdt cannot trap inside its own trap path, by construction.  It may
 * only: read per-CPU state, read immutable tables (probe sites, the enabled
 * program), write the current CPU's buffers, and load memory through the
 * fault-safe loader.  It takes no sleeping locks and never sleeps; it
 * allocates only from pools made at enable (the dynamic variables of
 * core/portable/vars.c, whose tiny cmpxchg bucket locks are safe because a firing
 * runs with interrupts off and never nests on one CPU).
 * A fault or a bad operand sets a per-CPU fault code; the clause is
 * abandoned and dtrace:::ERROR fires with the details.
 */
#ifndef XDT_IMPL_H
#define XDT_IMPL_H

/*
 * The portable core (dif.c, vars.c, firing.c, buf.c, load.c) includes only
 * this header, and builds against the kernel or, for libxdt's host VM,
 * against core/host/kernel.h: the one place the core says which.
 */
#ifdef __KERNEL__
#include <linux/hash.h>
#include <linux/irqflags.h>
#include <linux/jhash.h>
#include <linux/kprobes.h>
#include <linux/list.h>
#include <linux/log2.h>
#include <linux/mutex.h>
#include <linux/percpu.h>
#include <linux/random.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/stringhash.h>
#include <linux/types.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>
#include "isa.h"
#else
#include "host/kernel.h"
#endif

#include "uapi/xdt.h"
#include "uapi/dif.h"

#define __xdt_probe	__kprobes notrace
/*
 * A probe-context local that needs no zeroing: the kernels build with
 * CONFIG_INIT_STACK_ALL_ZERO, which clears every automatic variable.
 */
#if defined(__has_attribute)
#if __has_attribute(__uninitialized__)
#define __xdt_noinit	__attribute__((__uninitialized__))
#endif
#endif
#ifndef __xdt_noinit
#define __xdt_noinit
#endif

#define XDT_NARGS	10
#define XDT_MAXKEYS	8
#define XDT_MAXAGGS	1024
/*
 * Per-CPU aggregation arena bytes (-x aggsize).  DTrace's default is 4 MiB
 * per CPU; xdt keeps its 1 MiB default (the lab guests have little memory).
 * A small size is what the user asked for (an arena that fills drops, and
 * the drops are reported): the floor is one keyless entry (load.c).
 */
#define XDT_AGGSIZE_DEFAULT	(1u << 20)
#define XDT_AGGSIZE_MIN		64u
#define XDT_AGGSIZE_MAX		(64u << 20)
#define XDT_MAX_PROG	(16u << 20)	/* bytes of a program object */

/* ---- 2. providers and probes -------------------------------------------- */
struct xdt_probe;
struct xdt_site;
struct xdt_ctx;

struct xdt_provider_ops {
	/*
	 * Providers with patch sites list them, and the core patches every
	 * site of an enabling in one batch (one cross-CPU sync in all, not
	 * one per probe).  Store up to @max of @probe's sites at @out (which
	 * may be NULL) and return how many it has.
	 */
	u32 (*sites)(struct xdt_probe *probe, struct xdt_site **out, u32 max);
	/*
	 * Providers that create probes on demand (kinst) make those @d
	 * names before the table is matched against it, for listing and for
	 * enabling.  When @d names something that cannot have a probe (an
	 * offset that is not an instruction boundary) write why into @why
	 * (@len bytes), which the enabling reports if @d then matches
	 * nothing.  Holds xdt_lock.  May sleep.
	 */
	void (*provide)(const struct xdt_probedesc *d, char *why, size_t len);
	/*
	 * Probes made while consumers trace (pid: an object the process
	 * dlopen()ed) are bound to the running clauses that match them
	 * (xdt_state_bind_late).  Providers without sites only.
	 */
	bool late;
	/* Providers without sites: switch @probe on / off.  May sleep. */
	int (*enable)(struct xdt_probe *probe);
	void (*disable)(struct xdt_probe *probe);
	/*
	 * After STOP has disabled every probe: return only when no CPU can
	 * still be inside one of this provider's firings by a path the
	 * core's synchronize_rcu() does not cover (tracepoints called under
	 * SRCU).  Called once per STOP, not once per probe: thousands of
	 * tracepoint probes would otherwise wait thousands of grace periods.
	 */
	void (*quiesce)(void);
	/*
	 * Providers with a choice of insertion mechanism (fbt): pick it for
	 * @probe from the consumer's @prog (-x fbtmode) at GO, before its
	 * sites are gathered, for a probe GO switches on.  After the
	 * enable()s (GO) and disable()s (STOP) of one consumer, commit()
	 * applies what they queued, once.
	 */
	void (*choose)(struct xdt_probe *probe, const struct xdt_prog *prog);
	/*
	 * Whether the provider has @addr's instruction for itself (a stable
	 * probe's kprobe there): fbt and kinst sites are not patched over
	 * it.  xdt_lock.
	 */
	bool (*claims)(unsigned long addr);
	/* For `dtrace -l -v`: xdt_probeinfo.mech of @probe.  xdt_lock. */
	void (*mechanism)(struct xdt_probe *probe, char *buf, size_t len);
	int (*commit)(void);
	/*
	 * Probe context (illumos' dtps_getargval): argument @i of the firing
	 * @ctx, for i >= ctx->nargs -- an argument that costs a memory access
	 * (fbt's stack arguments) and is fetched only if a clause reads it.
	 * Providers without it have every argument in ctx->args.
	 */
	u64 (*getarg)(struct xdt_ctx *ctx, unsigned int i);
};

struct xdt_provider {
	const char *name;
	const struct xdt_provider_ops *ops;
	struct list_head list;
	struct list_head probes;	/* its probes, ID order (probes.c) */
};

struct xdt_ecb;
struct xdt_vars;

struct xdt_probe {
	u32 id;
	u32 nenabled;			/* ECBs linked in (GO to STOP) */
	/*
	 * ECBs of any consumer that name it, from ENABLE until the
	 * consumer's state is reset (xdt_lock): a provider that destroys
	 * probes on its own (pid, when the process is gone) waits for 0.
	 */
	u32 nbound;
	struct xdt_provider *prov;
	struct module *owner;		/* text it instruments; NULL = vmlinux.
					   Each ECB holds a reference. */
	const char *mod, *func, *name;	/* stable for the probe's life */
	void *parg;			/* the provider's */
	/*
	 * Clauses of every consumer, each consumer's in program order and
	 * together.  An RCU list: changed under xdt_lock while firings walk
	 * it (IRQs off), an ECB freed only after a grace period.
	 */
	struct xdt_ecb *ecbs;
	/*
	 * @ecbs' only ECB when there is one and its clause is one the firing
	 * can run without a context (XDT_CLAUSE_K_COUNTS or _K_EMPTY), else
	 * NULL: xdt_probe_fast().  Set with @ecbs, under xdt_lock.
	 */
	struct xdt_ecb *fast;
	u64 lategen;			/* xdt_state_bind_late()'s pass, xdt_lock */
	struct list_head fnode;		/* by function name, ID order */
	struct list_head pnode;		/* in prov->probes */
	struct list_head nnode;		/* by probe name, ID order */
};

int xdt_provider_register(struct xdt_provider *prov);
void xdt_provider_unregister(struct xdt_provider *prov);
/* The same, for a caller that holds xdt_lock (providers made on demand). */
void __xdt_provider_register(struct xdt_provider *prov);
void __xdt_provider_unregister(struct xdt_provider *prov);
void xdt_probes_exit(void);	/* after every provider unregistered */
struct xdt_probe *xdt_probe_create(struct xdt_provider *prov, const char *mod,
				   const char *func, const char *name,
				   void *parg);
struct xdt_probe *xdt_probe_lookup(u32 id);
void xdt_probe_destroy(struct xdt_probe *p);
u32 xdt_nprobes(void);
bool xdt_probe_matches(const struct xdt_probe *p,
		       const struct xdt_probedesc *d);
void xdt_probes_init(void);
int xdt_probe_foreach(const struct xdt_probedesc *d,
		      int (*fn)(struct xdt_probe *p, void *arg), void *arg);
bool xdt_glob(const char *pat, const char *s);
int xdt_probe_query(struct xdt_probe_query *q);

/*
 * Functions a provider could not instrument, with why, for `dtrace -l -v`.
 * @why must be a string literal of at most 63 characters (the ABI's field).
 */
void xdt_refusal_add(struct xdt_provider *prov, const char *mod,
		     const char *func, const char *why);
/* ... one probe name of it only (kinst: an instruction offset). */
void xdt_refusal_add_name(struct xdt_provider *prov, const char *mod,
			  const char *func, const char *name,
			  const char *why);
const char *xdt_refused(struct xdt_provider *prov, const char *mod,
			const char *func, const char *name);
void xdt_provide(const struct xdt_probedesc *d, char *why, size_t len);

void xdt_refusal_forget(struct xdt_provider *prov, const char *mod);

extern struct mutex xdt_lock;		/* probe table, state changes */

/* ---- 3. patch sites ------------------------------------------------------ */
/*
 * One patched instruction.  Sites are created when a provider is set up and
 * never move or change until it is torn down, so the trap handler looks
 * them up without locks.  @orig, @kind and @aux come from the ISA's site
 * description (xdt_arch.h), @patch from xdt_arch_patch_for(@orig).
 */
struct xdt_site_ops {
	/*
	 * Probe context.  Store the arguments a firing at @s knows without
	 * a memory access at @args and return how many (the firing
	 * context's nargs); NULL: none.  The same shape as the ISA's
	 * xdt_fbt_arch_args, so fbt points straight at it: one call less
	 * on the hottest path (icount: ~20 instructions a firing).
	 */
	unsigned int (*args)(struct xdt_site *s, struct pt_regs *regs,
			     u64 *args);
	/* Probe context: resume @regs as if the displaced insn had run. */
	void (*emulate)(struct xdt_site *s, struct pt_regs *regs);
	/*
	 * Probe context, optional (NULL: always): whether a trap at @s
	 * fires before it is emulated (a conditional return that is not
	 * taken does not).
	 */
	bool (*fires)(struct xdt_site *s, struct pt_regs *regs);
	/*
	 * Probe context: @s trapped but was restored (disabled) while the
	 * trap was in flight, and its text no longer holds a breakpoint.
	 */
	void (*restored)(struct xdt_site *s, struct pt_regs *regs);
};

struct xdt_site {
	unsigned long addr;
	struct xdt_site *hnext;		/* address hash chain */
	struct xdt_probe *probe;
	const struct xdt_site_ops *ops;	/* the provider's, per kind */
	u32 arg;			/* provider's: e.g. return offset */
	u8 kind;			/* arch's: how to emulate */
	u8 enabled;
	u8 frame;			/* kinst: own frame record in place */
	u8 len;				/* kinst: instruction length */
	u8 ool;				/* kinst: runs out of line (xol) */
	u8 via;				/* XDT_VIA_*: how it is reached */
	u8 live;			/* via FTRACE/TRAMP: in place */
	unsigned long aux;		/* arch's: e.g. a branch target */
	unsigned long xol;		/* kinst (ool): trampoline slot, or 0;
					 * fbt via TRAMP: the ISA's own (tramp.c) */
	unsigned long resume;		/* kinst: after a trap in the slot */
	xdt_patchval_t orig;		/* bytes the patch displaces (isa.h) */
	xdt_patchval_t patch;
};

/*
 * How a site's firing is reached: its breakpoint (patched in and out by
 * xdt_sites_patch, @enabled), or -- fbt entry sites only -- ftrace's call
 * or xdt's own trampoline call at the function's patchable entry
 * (core/fentry.c, @live).  Chosen while the site's probe is off.
 */
enum { XDT_VIA_TRAP = 0, XDT_VIA_FTRACE, XDT_VIA_TRAMP };

void xdt_site_insert(struct xdt_site *site);
void xdt_site_remove(struct xdt_site *site);
struct xdt_site *xdt_site_lookup(unsigned long addr);
struct xdt_site *xdt_site_lookup_via(unsigned long addr, u8 via);
bool xdt_site_busy(unsigned long addr);
bool xdt_sites_enabled_in(unsigned long addr, unsigned long len);
void xdt_site_fire(struct xdt_site *s, struct pt_regs *regs);

/*
 * core/fentry.c: fbt entry sites reached through ftrace (and, where the
 * ISA has them, xdt's trampolines).  want() queues a site on or off; one
 * commit() applies the queue (one ftrace filter update, one code patch
 * for thousands of functions).  On failure nothing queued went in.
 */
bool xdt_fentry_traceable(unsigned long addr);
/* One kallsyms symbol of fbt's load-time walk (fentry.c's lookups). */
void xdt_fentry_kallsyms(const char *name, unsigned long addr);
/*
 * A GO's choosing begins (choose_begin); reserve() is one entry site's
 * claim on the trampolines' room (XDT_TRAMP_MAX): false when there is
 * none left, and the site takes the breakpoint.
 */
bool xdt_fentry_tramp_reserve(void);
void xdt_fentry_want(struct xdt_site *s, bool on);
int xdt_fentry_commit(void);
void xdt_fentry_exit(void);
void xdt_fentry_tramp_fire(unsigned long site, struct pt_regs *regs);

/* kinst's out-of-line slots (core/xol.c). */
bool xdt_xol_trap(struct pt_regs *regs, unsigned long addr);
unsigned int xdt_xol_used(void);

/* ---- 4. enablings --------------------------------------------------------- */
struct xdt_difo_k {
	const u32 *insns;
	const u64 *ints;
	const char *strtab;
	u32 ninsns, nints, strlen, rtype;
};

struct xdt_act_k {
	u32 kind;
	s32 difo;
	u32 arg0, arg1;
	u32 off;			/* record offset, RECORD/STRING/EXIT */
};

struct xdt_clause_k {
	s32 pred;
	u32 nacts;
	struct xdt_act_k *acts;
	u32 recsize;			/* header + data, 8-aligned */
	u32 flags;			/* XDT_CLAUSE_*, XDT_CLAUSE_K_* */
	u32 index;
	s32 count1;			/* the aggregation of a clause that is
					   one keyless count(), else -1 */
};
/* Kernel-only clause flags, derived at load (core/portable/load.c) */
#define XDT_CLAUSE_K_COUNTS	0x80000000u	/* only keyless count()s */
#define XDT_CLAUSE_K_EMPTY	0x40000000u	/* no predicate, no action: at
						   most the default record's
						   header (RECORD) */

struct xdt_ecb {
	u32 epid;
	struct xdt_clause_k *clause;
	struct xdt_probe *probe;
	struct xdt_state *st;		/* its consumer */
	struct xdt_ecb *next;		/* same probe */
};

struct xdt_scpu;

/*
 * Something a provider hangs on a running consumer (pid: the hold at the
 * loader's r_brk), taken off at its STOP before END, xdt_lock held: ->stop
 * may sleep and frees it.
 */
struct xdt_attach {
	struct xdt_attach *next;
	void (*stop)(struct xdt_attach *a);
};
/* A consumer's ->attn was set: wake its poll() (core/main.c) */
void xdt_attn_wake(void);

/*
 * One consumer (one open of /dev/xdt): its program, ECBs, per-CPU buffers
 * and aggregations, variables and exit status.  Consumers share only the
 * probes: a probe is patched in / enabled while any consumer has an ECB on
 * it.
 */
struct xdt_state {
	void *blob;			/* the program object, kept whole */
	const struct xdt_prog *prog;
	struct xdt_difo_k *difos;
	struct xdt_clause_k *clauses;
	struct xdt_act_k *acts;		/* every clause's, in clause order */
	struct xdt_aggdesc *aggs;	/* [naggs], checked copies */
	struct xdt_ecb *ecbs;
	u32 necbs;
	u32 ecbcap;			/* room at @ecbs: necbs + xdt_enable.late */
	u32 strsize, bufsize, aggsize, bufpolicy;
	u32 onecpu;		/* -x cpu: 1 + the CPU that traces, 0 = all */
	u32 endreserve;			/* fill: the largest END record */
	u32 keymax;			/* bytes of the longest aggregation key */
	struct xdt_spec *spec;		/* speculations (spec.c), or NULL */
	/* a merged snapshot the consumer's buffer was too small for */
	char *aggpend;
	u32 aggpend_size, aggpend_count;
	int state;			/* XDT_STATE_* */
	int exited;
	struct xdt_site **sites;	/* sites GO patched in (probes no other
					   consumer had enabled) */
	u32 nsites, sitecap;
	bool unpatched;			/* GO's patch failed as a whole */
	bool counted;			/* in xdt_tracing (enable.c) */
	struct xdt_vars *vars;		/* D variables, scratch (vars.c) */
	struct xdt_vcpu *vcpu;		/* [nr_cpu_ids]: vars' per-CPU parts */
	struct xdt_scpu *cpu;		/* [nr_cpu_ids]: buffers, aggregations */
	int running;			/* firings run its clauses: after BEGIN
					   until STOP */
	u64 traps0, traps1;		/* machine's trap count at GO, STOP */
	struct xdt_attach *attached;	/* providers' (GO to STOP) */
	int attn;			/* poll(): EPOLLPRI (xdt_attn_wake) */
	/*
	 * Set at open from the opener's capabilities (core/main.c) and kept
	 * for the life of the file -- it is last, where xdt_state_reset
	 * stops clearing.  true: CAP_PERFMON without
	 * CAP_SYS_ADMIN, so its D programs may not read kernel memory
	 * (xdt_read: KPRIV) nor be destructive (-w refused at enable).
	 * false (and the host VM's zeroed state): no limits.
	 * docs/privileges.md.
	 */
	bool perfmon_only;
};

enum { XDT_STATE_IDLE, XDT_STATE_ENABLED, XDT_STATE_RUNNING,
       XDT_STATE_STOPPED };

/* load.c: check and load @blob (which @st then owns), no probes bound. */
int xdt_prog_load(struct xdt_state *st, struct xdt_enable *req, void *blob);
#define XDT_EERR(req, fmt, ...) \
	({ snprintf((req)->err, sizeof((req)->err), fmt, ##__VA_ARGS__); \
	   -EINVAL; })
int xdt_state_enable(struct xdt_state *st, struct xdt_enable *req, void *blob);
int xdt_state_go(struct xdt_state *st);
int xdt_state_bind_late(struct xdt_state *st, u32 *bound);
void xdt_state_stop(struct xdt_state *st);
void xdt_state_reset(struct xdt_state *st);
void xdt_state_free(struct xdt_state *st);
/*
 * anon.c: anonymous tracing.  Start the enabling of dtrace -A's file
 * (@img, @size bytes; the caller keeps it): 0 and a note (its probes) in
 * @why, or an error and why.  Claim it into @cur (idle), *@claimed
 * getting the state; discard one never claimed (module unload).
 */
int xdt_anon_start(const void *img, size_t size, char *why, size_t len);
int xdt_anon_claim(struct xdt_state *cur, struct xdt_anon_claim *c,
		   struct xdt_state **claimed);
void xdt_anon_discard(void);
/* An ioctl of /dev/xdt on @st (core/portable/device.c); the caller
 * serialises a consumer's ioctls. */
long xdt_ioctl_state(struct xdt_state *st, unsigned int cmd, void __user *uarg);
extern int xdt_tracing;		/* consumers tracing; xdt_lock */

/* ---- 5. DIF ------------------------------------------------------------- */
int xdt_dif_verify(const struct xdt_difo_k *d, const struct xdt_var *vars,
		   u32 nvars, bool destructive, char *err, size_t errlen);
bool xdt_subr_destructive(u32 subr);

/* The tuple stack of one DIF run: keys and subroutine arguments. */
struct xdt_tuple {
	u32 n;
	struct {
		u64 v;
		u32 str;		/* PUSHTS: v is a string's address */
		u32 ref;		/* PUSHTR: v is a value's address */
	} e[DIF_MAXTUPLE];
};

struct xdt_vcpu;

struct xdt_mstate {
	struct xdt_ctx *ctx;
	const struct xdt_ecb *ecb;
	u32 strsize;
	u32 scratch_used;		/* ALLOCS bytes this clause */
	struct xdt_vars *vars;
	struct xdt_vcpu *vc;		/* this CPU's part of @vars */
	struct xdt_spec *spec;		/* speculation(): the consumer's */
	struct xdt_scpu *sc;		/* ... and its counters on this CPU */
	bool nokread;			/* the consumer's perfmon_only */
};
int xdt_dif_run(const struct xdt_difo_k *d, struct xdt_mstate *m, u64 *rv);
void xdt_dif_resample(struct xdt_ctx *ctx, u32 v);
/* What the portable core needs of where it runs: core/portable/xdt_env.h */
#include "xdt_env.h"
/*
 * The core's one way to read memory a D program names (core/portable/vars.c):
 * 0 or the fault kind (XDT_FAULT_KPRIV, XDT_FAULT_BADADDR), which the
 * caller raises; the string copy returns the length or minus the kind.
 * xdt_move() is xdt_read() into the program's own storage when the two
 * ranges may overlap (DIF's copys, bcopy()): memmove()'s result.
 */
int xdt_read(struct xdt_mstate *m, void *dst, u64 src, size_t n);
int xdt_move(struct xdt_mstate *m, u64 dst, u64 src, u64 n);
long xdt_readstr(struct xdt_mstate *m, char *dst, u64 src, u32 max);
#define XDT_SIGSTOP	19	/* Linux's, on every ISA xdt has */
void xdt_destructive_init(void);	/* kernel only */
void xdt_destructive_exit(void);
void xdt_dif_init(void);
void xdt_dif_fault(struct xdt_mstate *m, int kind, u64 addr, u32 pc);

/* ---- 5b. D variables (core/portable/vars.c; docs/variables.md) -------------------- */
/* This CPU's part of a program's variables, scratch and working buffers. */
struct xdt_vcpu {
	char *locals;			/* this-> storage */
	char *scratch;			/* ALLOCS, reset every clause */
	char *key;			/* an array key being built */
	char *bounce;			/* a by-reference value being stored */
	int locals_dirty;		/* this-> written since last zeroed */
	u64 rand;			/* rand()'s state */
	u64 strtok;			/* strtok()'s position, this firing */
	u64 dyndrops, dyndrops_dirty;
};

int xdt_vars_check(const struct xdt_prog *p, const struct xdt_var *tab,
		   char *err, size_t errlen);
int xdt_vars_create(struct xdt_state *st, char *err, size_t errlen);
/* xdt_vars_start, _unhook, _stop: xdt_env.h */
void xdt_vars_free(struct xdt_vars *v);
void xdt_vars_status(struct xdt_vars *v, struct xdt_status *s);
void xdt_vars_clear(struct xdt_vars *v, struct xdt_vcpu *vc);
/*
 * @alloc (the destination register was non-zero, DTrace's convention): a
 * by-reference dynamic variable that does not exist is made, zeroed, so a
 * member of it can be stored to (a[k].m = v).
 */
int xdt_var_load(struct xdt_mstate *m, struct xdt_tuple *t, u32 op, u32 id,
		 u64 *val, bool alloc, u32 pc);
int xdt_var_store(struct xdt_mstate *m, struct xdt_tuple *t, u32 op, u32 id,
		  u64 val, u32 pc);
int xdt_mem_store(struct xdt_mstate *m, u64 addr, u64 val, u32 n, u32 pc);
int xdt_mem_copystr(struct xdt_mstate *m, u64 dst, u64 src, u64 n, u32 pc);
int xdt_mem_copy(struct xdt_mstate *m, u64 dst, u64 src, u64 n, u32 pc);
int xdt_scratch_alloc(struct xdt_mstate *m, u64 n, u64 *addr, u32 pc);
/* @n bytes at @a a program may write (else BADADDR raised: NULL). */
char *xdt_mem_dest(struct xdt_mstate *m, u64 a, u64 n, u32 pc);
bool xdt_in_scratch(struct xdt_mstate *m, u64 a, u64 n);
int xdt_subr_call(struct xdt_mstate *m, struct xdt_tuple *t, u32 subr,
		  u64 *rv, u32 pc);

/* ---- 6. buffers and aggregations ---------------------------------------- */
struct xdt_buf {
	char *data;
	u32 size, off;
	u64 drops;
	/*
	 * ring: the records are [oldest, end) then [0, off) once wrapped;
	 * fill: @limit is what firings other than END may use.
	 */
	u32 oldest, end, limit;
	bool wrapped, full;
};

/* The machine's, per CPU: shared by every consumer. */
struct xdt_cpu {
	int busy;			/* re-entrancy guard */
	int trapdepth;			/* nesting of xdt's own traps */
	int in_error;			/* running dtrace:::ERROR clauses */
	u64 traps;
};

DECLARE_PER_CPU(struct xdt_cpu, xdt_cpu);

/* One consumer's part of one CPU. */
struct xdt_scpu {
	int active;			/* which of bufs[] takes records */
	u32 policy;			/* XDT_BUFPOLICY_* */
	struct xdt_buf bufs[2];
	/*
	 * Two aggregation arenas: firings update ag[agact]; a snapshot
	 * switches (on the CPU, as for bufs[]) and takes the other whole,
	 * leaving it empty: the consumer keeps the totals (DTrace's model),
	 * so the space is recycled every snapshot.
	 */
	struct xdt_aggarena {
		char *data;
		u32 *hash;		/* aggslots offsets into data, 0 = empty */
		u32 *nokey;		/* [XDT_MAXAGGS]: offset of the keyless
					   entry of each aggregation, or 0 */
		u32 off;		/* bytes used; entries start at 8 */
	} ag[2];
	int agact;
	u32 aggsize;
	u32 aggslots;			/* slots of each arena's hash */
	u64 aggdrops;
	u64 aggdrops_seen;		/* aggdrops the last snapshot reported */
	u64 specdrops, specbusy, specunavail;	/* speculations (spec.c) */
	u64 dblerrors;			/* faults in ERROR clauses */
	char *keybuf;			/* keymax: aggregation key being built */
	u64 firings, errors;
};

int xdt_bufs_alloc(struct xdt_state *st);
void xdt_bufs_free(struct xdt_state *st);

/*
 * The CPU whose principal, aggregation and speculation buffers a firing
 * on @cpu uses.  -x cpu allocates them for the one traced CPU only, as
 * DTrace does (dtrace_state_buffer()), so -x cpu=0 -x bufsize=... costs one
 * CPU's memory; other CPUs' firings do not run (firing.c).  BEGIN and END,
 * fired by the consumer's own ioctl wherever it runs, use the traced
 * CPU's: nothing else of the consumer fires or reads them then (running is
 * 0, and ioctls are serialized).  DTrace would drop their records instead.
 */
static inline int xdt_buf_cpu(const struct xdt_state *st, int cpu)
{
	return st->onecpu ? (int)st->onecpu - 1 : cpu;
}
char *xdt_buf_reserve(struct xdt_scpu *c, u32 size);
void xdt_bufs_end(struct xdt_state *st);
int xdt_buf_snap(struct xdt_state *st, u32 cpu, void __user *dst, u32 *size,
		 u64 *drops);
bool xdt_agg_counts(struct xdt_scpu *c, const struct xdt_clause_k *cl);
/*
 * The values of the keyless entry at @off of @a (@off from a->nokey, not
 * 0): an entry is its header, its key padded to 8 (none here), its values.
 */
static __always_inline s64 *xdt_agg_nokey_vals(struct xdt_aggarena *a,
					       u32 off)
{
	return (s64 *)(a->data + off + sizeof(struct xdt_aggent));
}
int xdt_agg_update(struct xdt_scpu *c, const struct xdt_aggdesc *d, u32 aggid,
		   const char *key, u32 keylen, s64 val, s64 incr);
/*
 * The fast firing: a probe whose one clause only counts or is empty needs
 * no context -- no arguments, registers, clocks or machine state -- so a
 * provider tries this before it builds one (xdt_site_fire, syscall,
 * profile, rawtp, pid).  It does what xdt_probe_fire_irqsoff() would, in
 * the same order, for that one ECB; where it would do more (-x cpu, the
 * first count on this CPU since a snapshot, which creates the slot) it
 * returns false before changing anything and the provider fires the
 * general way.  What it leaves out is only what the clause cannot see:
 * this-> values of an earlier firing stay marked for the next general
 * firing to clear.  Trade-off: one ECB only (xdt_impl.h, @fast); two
 * consumers or two clauses on a probe take the general path.  Inline
 * for the trampolines' entry (core/fentry.c), where its call and frame
 * were a tenth of a count() firing; xdt_probe_fast_irqsoff() for the rest.
 */
static __always_inline bool xdt_probe_fast_ecb(struct xdt_ecb *e)
{
	const struct xdt_clause_k *cl;
	struct xdt_aggarena *a;
	struct xdt_rechdr *h;
	u32 off;
	struct xdt_state *st;
	struct xdt_scpu *sc;
	struct xdt_cpu *c;

	st = e->st;			/* not -x cpu's: set_fast() */
	c = this_cpu_ptr(&xdt_cpu);
	if (c->busy || !READ_ONCE(st->running))
		return true;		/* the general path would skip it too */
	sc = &st->cpu[raw_smp_processor_id()];
	if (unlikely(READ_ONCE(st->exited))) {
		sc->firings++;
		return true;
	}
	/* an NMI's firing must not interleave with this one's updates */
	c->busy = 1;
	cl = e->clause;
	if (cl->flags & XDT_CLAUSE_K_COUNTS) {
		/* `@ = count();`, the commonest, here; several counts there */
		a = &sc->ag[READ_ONCE(sc->agact)];
		off = cl->count1 >= 0 ? a->nokey[cl->count1] : 0;
		if (likely(off))
			xdt_agg_nokey_vals(a, off)[0]++;
		else if (!xdt_agg_counts(sc, cl)) {
			c->busy = 0;
			return false;
		}
	} else if (cl->flags & XDT_CLAUSE_RECORD) {
		/* DTrace's default action: the probe, i.e. the EPID alone */
		h = (struct xdt_rechdr *)xdt_buf_reserve(sc, sizeof(*h));
		if (h) {
			h->epid = e->epid;
			h->size = sizeof(*h);
		}
	}
	sc->firings++;
	c->busy = 0;
	return true;
}

/* @p's fast firing, if it has one (@fast: its one ECB) */
static __always_inline bool xdt_probe_fast_inline(struct xdt_probe *p)
{
	struct xdt_ecb *e = READ_ONCE(p->fast);

	return e && xdt_probe_fast_ecb(e);
}

u64 xdt_traps(void);
void xdt_state_status(struct xdt_state *st, struct xdt_status *s);
int xdt_agg_snap(struct xdt_state *st, struct xdt_aggsnap *req);

/* ---- 6b. speculations (core/portable/spec.c) ---------------------------------------- */
#define XDT_CLEAN_DEFAULT	101	/* Hz, DTrace's cleanrate default */
#define XDT_NSPEC_MAX		256
#define XDT_SPECSIZE_DEFAULT	(64u << 10)
#define XDT_SPECMEM_MAX		(64u << 20)	/* nspec * specsize * CPUs */
struct xdt_specbuf {			/* one CPU's part of a speculation */
	char *data;
	u32 off;
};
struct xdt_spec {
	u32 n, size;
	struct xdt_spec1 {
		u32 state;		/* SPEC_* (spec.c), cmpxchg'd */
		int cleaning;		/* the cleaner's, process context */
		struct xdt_specbuf *cpu;	/* [nr_cpu_ids] */
	} *s;
	struct delayed_work cleaner;	/* kernel: every cleanrate */
	unsigned long period;
	bool running;
	struct xdt_state *st;
};
int xdt_spec_create(struct xdt_state *st, u32 n, u32 size);
void xdt_spec_free(struct xdt_state *st);
u64 xdt_spec_alloc(struct xdt_spec *sp, struct xdt_scpu *sc);
char *xdt_spec_reserve(struct xdt_spec *sp, struct xdt_scpu *sc, int cpu,
		       u64 id, u32 size, int *err);
int xdt_spec_commit(struct xdt_spec *sp, struct xdt_scpu *sc, int cpu, u64 id);
int xdt_spec_discard(struct xdt_spec *sp, int cpu, u64 id);
void xdt_spec_clean(struct xdt_state *st);
/* xdt_spec_start, _stop (the cleaner): xdt_env.h */

/* ---- 7. firing ------------------------------------------------------------ */
/*
 * A firing's context: everything the probe path knows about one firing,
 * built by whoever fires (a breakpoint trap, a timer, a tracepoint, a
 * syscall hook, the framework for BEGIN/END/ERROR) on its own stack and
 * passed down to the DIF machine.  Nothing about the firing lives in
 * per-CPU state, so a probe that is not a trap fires exactly as a trap
 * does, and a nested firing (ERROR from inside a clause) has its own.
 *
 * Where stack() starts is the firer's to say, because only it knows what
 * was interrupted:
 *   XDT_STACK_NONE  no kernel context (BEGIN, END, ERROR; a profile tick
 *                   that interrupted user mode).
 *   XDT_STACK_SITE  a breakpoint site in a function: the ISA finds the
 *                   first return address from @regs and @frame (the
 *                   site's frame state, see xdt_arch_stack_start).
 *   XDT_STACK_REGS  an interrupt: @regs' PC is the first frame (as
 *                   illumos' profile records the interrupted PC), then
 *                   the frame-pointer chain from @regs.
 *   XDT_STACK_HERE  a call from kernel code (tracepoints, syscall hooks):
 *                   the chain from the firing's own frame, without the
 *                   frames in xdt.ko and in [@skip_lo, @skip_hi) (the
 *                   tracepoint's iterator), so the first frame is the
 *                   function that hit the tracepoint.
 */
enum { XDT_STACK_NONE, XDT_STACK_SITE, XDT_STACK_REGS, XDT_STACK_HERE };

struct xdt_ctx {
	struct xdt_probe *probe;
	struct pt_regs *regs;		/* interrupted registers, or NULL */
	u64 args[XDT_NARGS];		/* [0..nargs) valid; the rest from
					   regargs, then the provider's
					   getarg, cached */
	u32 nargs;
	/*
	 * A site's register arguments (its ops' args), fetched on the first
	 * read of any argument rather than on every firing: a clause that
	 * reads none (count(), most predicates on pid or execname) saves
	 * the copy -- 16 instructions a firing on x86_64, 50 on arm64
	 * (bench/stepprof.py).  NULL once fetched, or for other firers.
	 */
	unsigned int (*regargs)(struct xdt_site *s, struct pt_regs *regs,
				u64 *args);
	u8 stack;			/* XDT_STACK_* */
	u8 frame;			/* XDT_STACK_SITE: the site's state */
	u8 uentry;			/* @regs are user registers at a
					   function's first instruction (pid
					   entry): its return address is not
					   in a frame record yet */
	unsigned long skip_lo, skip_hi;	/* XDT_STACK_HERE */
	void *priv;			/* the firer's: e.g. the site */
	s32 err;			/* the errno variable (syscall return) */
	/*
	 * The clocks a clause has read (bit = DIF_VARS' slot) and their
	 * values: sampled once per firing, as DTrace's machine state
	 * caches them (core/portable/dif.c, ldv).  A firer that does not
	 * use xdt_ctx_init() must clear @sampled.
	 */
	u8 sampled;
	u64 clocks[DIF_NFIRINGVARS];
	/* the fault being raised, for ERROR */
	int fault;
	u32 fault_pc;
	u64 fault_addr;
	/* BEGIN, END: only this consumer's clauses (GO, STOP fire them) */
	struct xdt_state *only;
};

/* A context with no arguments, registers or stack (BEGIN, END, ERROR). */
static inline void xdt_ctx_init(struct xdt_ctx *ctx, struct xdt_probe *probe)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->probe = probe;
	ctx->nargs = XDT_NARGS;
}

void xdt_probe_fire(struct xdt_ctx *ctx);
void xdt_probe_fire_irqsoff(struct xdt_ctx *ctx);
/*
 * A firing a provider may try before it builds a context: true when the
 * probe's firing is done (its one clause only counts or is empty), false
 * when the provider must go on to xdt_probe_fire() -- nothing done then.
 */
bool xdt_probe_fast_irqsoff(struct xdt_probe *p);
bool xdt_probe_fast(struct xdt_probe *p);
u64 xdt_arg(struct xdt_ctx *ctx, unsigned int i);
/* xdt_stack: xdt_env.h */

/* ---- 8. providers ------------------------------------------------------- */
/*
 * The providers (providers/, one file each) and the order they come up in:
 * one row each in providers/providers.c's table, which the core walks at
 * module init (unwinding on a failure) and exit, and nowhere else.
 */
struct file;
struct xdt_provider_module {
	const char *name;
	int (*init)(void);
	void (*exit)(void);
	/*
	 * A provider whose probes a consumer asks for by ioctl (pid: the
	 * consumer resolves symbols, as DTrace's does) owns that one
	 * command of /dev/xdt; @f is its open file (the opener's
	 * credentials).  0: none.
	 */
	unsigned int ioc;
	long (*ioctl)(struct xdt_state *st, struct file *f,
		      void __user *uarg);
};
extern const struct xdt_provider_module xdt_provider_modules[];
extern const unsigned int xdt_nprovider_modules;
/* Does a provider hold @addr (ops->claims)?  xdt_lock. */
bool xdt_addr_claimed(unsigned long addr);
/* Is @addr inside xdt.ko (frames stack() leaves out)? */
bool xdt_own_text(unsigned long addr);
#endif
