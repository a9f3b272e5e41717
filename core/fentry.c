// SPDX-License-Identifier: GPL-2.0
/*
 * fbt entry probes without a breakpoint: ftrace's call (fbtmode=ftrace).
 *
 * Every function the kernel can ftrace begins with a patchable entry
 * (x86_64: the 5-byte NOP over `call __fentry__`; arm64: two NOPs, the
 * first made `mov x9, x30` at boot; riscv64: the NOPs ftrace turns into
 * `auipc t0; jalr t0`), and fbt's entry site is that NOP on every ISA.
 * One ftrace_ops, whose filter is the set of live functions, replaces the
 * trap: ftrace writes the call (on x86 through its int3-bridged
 * text_poke_bp batch, on arm64 one word, on riscv64 under stop_machine),
 * and its trampoline saves the argument registers and calls
 * xdt_fentry_ftrace() -- no exception, no emulation.
 *
 * ftrace_regs: xdt reads them as the pt_regs they begin with.  What the
 * firing reads -- the argument registers, the stack and frame pointers
 * and the return address (xdt_fbt_arch_args, xdt_arch_stack_start,
 * xdt_fbt_arch_stack_arg) -- is saved by x86_64's ftrace_caller (with
 * DYNAMIC_FTRACE_WITH_ARGS) and arm64's (x0-x8, x29, the caller's x30 as
 * regs[30], sp); riscv64's ftrace_caller saves an argument area of its own
 * shape, so there the ops asks for full pt_regs (XDT_FTRACE_OPS_FLAGS,
 * isa.h), whose saved sp is off by their own size (XDT_FTRACE_SP_BIAS).
 *
 * Coexistence: ftrace_ops share a site, so unlike the breakpoint, ftrace
 * mode works beside the function tracer, kprobes-on-ftrace, fprobes and
 * BPF trampolines on the same function.  What it must never meet is a
 * breakpoint of xdt's own in the NOP it rewrites (a kinst probe at the
 * function's first instruction, or an fbt breakpoint another consumer
 * put there): ftrace would find bytes it does not expect and disable
 * itself (ftrace_bug).  commit() refuses such a function (-EBUSY), and
 * the core's byte check refuses a breakpoint over a live ftrace call.
 *
 * The ops is module data, so ftrace marks it DYNAMIC and calls it through
 * ftrace_ops_assist_func: its recursion guard, preemption off and, with
 * FTRACE_OPS_FL_RCU, a call only while RCU watches (a function ftraced
 * from the idle loop after RCU stopped watching is not fired: the
 * breakpoint's NMI-like entry would have made RCU watch).  That detour is
 * ftrace's cost; xdt's trampolines (fbtmode=trampoline) avoid it.
 */
#include <linux/ftrace.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_REGS

static void __xdt_probe xdt_fentry_ftrace(unsigned long ip,
					  unsigned long parent_ip,
					  struct ftrace_ops *op,
					  struct ftrace_regs *fregs)
{
	struct xdt_site *s = xdt_site_lookup_via(ip, XDT_VIA_FTRACE);
	unsigned long flags;

	if (unlikely(!s))
		return;
	flags = arch_local_irq_save();
	if (!xdt_probe_fast_irqsoff(s->probe)) {
		XDT_REGS_SP(&fregs->regs) += XDT_FTRACE_SP_BIAS;
		xdt_site_fire(s, &fregs->regs);
		XDT_REGS_SP(&fregs->regs) -= XDT_FTRACE_SP_BIAS;
	}
	arch_local_irq_restore(flags);
}

static struct ftrace_ops fops = {
	.func = xdt_fentry_ftrace,
	.flags = FTRACE_OPS_FL_RCU | XDT_FTRACE_OPS_FLAGS,
};
static bool registered;
static u32 nlive;			/* functions in the filter */

/*
 * Is @addr a call site ftrace knows?  A NOP at a function's entry is not
 * always one: ftrace has no record for some (a batch naming one fails as a
 * whole, EINVAL), so fbt asks once per function when it builds its probes.
 * The answer is ftrace_location()'s, which 6.1 does not export: its
 * address comes from the kallsyms walk fbt makes at load
 * (xdt_fentry_kallsyms).  Asking through the filter of an ops that is
 * never registered (ftrace_set_filter_ip, which calls ftrace_location()
 * and nothing else that can fail but memory) builds and frees an 8 KiB
 * filter hash per question: loading xdt.ko under TCG took 9.3 s on
 * x86_64 with it, 2.1 s without (18 740 functions).  That stays
 * the way where an indirect call to an unexported function would not be
 * safe (x86's IBT seals its ENDBR away; kCFI has no type hash for it).
 */
static struct ftrace_ops probe_ops;
static unsigned long (*ftrace_loc)(unsigned long ip);

void xdt_fentry_kallsyms(const char *name, unsigned long addr)
{
	if (!IS_ENABLED(CONFIG_X86_KERNEL_IBT) &&
	    !IS_ENABLED(CONFIG_CFI_CLANG) && !strcmp(name, "ftrace_location"))
		ftrace_loc = (unsigned long (*)(unsigned long))addr;
}

bool xdt_fentry_traceable(unsigned long addr)
{
	if (ftrace_loc)
		return ftrace_loc(addr) != 0;
	return !ftrace_set_filter_ip(&probe_ops, addr, 0, 1);
}

/*
 * The queue of one GO or STOP, and the addresses commit() hands ftrace;
 * xdt_lock.  A GO makes room for its sites plus every site already live,
 * so a STOP -- which queues only live sites -- never allocates here: a
 * STOP that failed for memory would leave functions calling into xdt
 * with no consumer behind them (make soak's fail-nth).
 */
static struct xdt_site **queue;
static unsigned long *qips;
static u32 nqueue, qcap;
static u32 nsites;			/* sites with live == 1 */
static u32 ntramp;			/* of them, via XDT_VIA_TRAMP */
static u32 nreserved;			/* chosen for it by the GO under way */

/*
 * How many trampoline sites the ISA can have at once (isa.h).  fbt asks
 * for each entry site as it chooses (xdt_fentry_tramp_reserve); past the
 * limit the site takes the breakpoint, which has no such limit.  (Not
 * ftrace's ops: an fbtmode=ftrace enabling that also held ftrace's own
 * functions -- no ftrace site, so breakpoints -- hung in its second GO on
 * x86_64, not yet understood; nothing is sent there that the user did not
 * ask for.)
 */
#ifndef XDT_TRAMP_MAX
#define XDT_TRAMP_MAX		UINT_MAX
#endif
#ifndef XDT_TRAMP_REGS_LATE
#define XDT_TRAMP_REGS_LATE(regs)	do { } while (0)
#endif

void xdt_fentry_choose_begin(void)
{
	nreserved = 0;
}

bool xdt_fentry_tramp_reserve(void)
{
	if ((u64)ntramp + nreserved >= XDT_TRAMP_MAX)
		return false;
	nreserved++;
	return true;
}
static bool qfailed;			/* a GO's queue could not grow */

static bool queue_room(u32 need)
{
	struct xdt_site **n;
	unsigned long *ips;
	u32 ncap;

	if (need <= qcap)
		return true;
	ncap = max3(need, qcap * 2, 64u);
	n = kvmalloc_array(ncap, sizeof(*n), GFP_KERNEL);
	ips = kvmalloc_array(ncap, sizeof(*ips), GFP_KERNEL);
	if (!n || !ips) {
		kvfree(n);
		kvfree(ips);
		return false;
	}
	if (queue)
		memcpy(n, queue, nqueue * sizeof(*n));
	kvfree(queue);
	kvfree(qips);
	queue = n;
	qips = ips;
	qcap = ncap;
	return true;
}

void xdt_fentry_want(struct xdt_site *s, bool on)
{
	if (!on && s->live != 1) {
		/* never went in (its GO failed): nothing to take out */
		WRITE_ONCE(s->live, 0);
		return;
	}
	if (on && (qfailed || !queue_room(nqueue + nsites + 1))) {
		qfailed = true;		/* commit() fails the batch */
		return;
	}
	queue[nqueue++] = s;
	WRITE_ONCE(s->live, on ? 2 : 3);	/* 2, 3: queued on / off */
}

/* ftrace's filter takes addresses; @ips is filled from the queue. */
static int filter(unsigned long *ips, u32 n, bool remove)
{
	int ret = 0;
	u32 i;

	/* ftrace_set_filter_ips takes an int count: a chunk at a time */
	for (i = 0; i < n && !ret; i += 65536)
		ret = ftrace_set_filter_ips(&fops, ips + i,
					    min(n - i, 65536u), remove, 0);
	return ret;
}

/*
 * Probe context: xdt's trampoline (arch/<isa>/tramp*), called from the
 * entry of a function whose site is @site, with the registers it saved.
 */
void __xdt_probe xdt_fentry_tramp_fire(unsigned long site,
				       struct pt_regs *regs)
{
	struct xdt_site *s = xdt_site_lookup_via(site, XDT_VIA_TRAMP);
	unsigned long flags;

	/*
	 * As FTRACE_OPS_FL_RCU does for the ftrace mode: a firing walks RCU
	 * lists, so none while RCU is not watching this CPU (a traced
	 * function called from the idle path after RCU stopped watching).
	 */
	if (unlikely(!s || READ_ONCE(s->live) == 0 || !rcu_is_watching()))
		return;
	flags = arch_local_irq_save();
	if (!xdt_probe_fast_inline(s->probe)) {	/* else a context first */
		XDT_TRAMP_REGS_LATE(regs);
		xdt_site_fire(s, regs);
	}
	arch_local_irq_restore(flags);
}

static int ftrace_commit(unsigned long *ips)
{
	u32 i, nadd = 0, ndel = 0;
	int ret = 0;

	/* Removals first: the filter must not pass through empty while
	 * registered, which would trace every function. */
	for (i = 0; i < nqueue; i++)
		if (queue[i]->via == XDT_VIA_FTRACE && queue[i]->live == 3)
			ips[ndel++] = queue[i]->addr;
	if (ndel) {
		if (ndel == nlive && registered) {
			unregister_ftrace_function(&fops);
			registered = false;
		}
		if (filter(ips, ndel, true))
			pr_err("xdt: ftrace filter removal failed\n");
		nlive -= ndel;
	}
	for (i = 0; i < nqueue && !ret; i++)
		if (queue[i]->via == XDT_VIA_FTRACE && queue[i]->live == 2) {
			if (xdt_site_busy(queue[i]->addr))
				ret = -EBUSY;
			ips[nadd++] = queue[i]->addr;
		}
	if (nadd && !ret) {
		ret = filter(ips, nadd, false);
		if (!ret && !registered) {
			ret = register_ftrace_function(&fops);
			if (ret)
				filter(ips, nadd, true);
			else
				registered = true;
		}
		if (!ret)
			nlive += nadd;
	}
	return ret;
}

static int tramp_commit(struct xdt_site **sites)
{
	u32 i, n = 0;
	int ret = 0;

	if (!XDT_HAVE_TRAMP)
		return 0;
	for (i = 0; i < nqueue; i++)
		if (queue[i]->via == XDT_VIA_TRAMP && queue[i]->live == 3)
			sites[n++] = queue[i];
	if (n)
		xdt_arch_tramp_off(sites, n);
	n = 0;
	for (i = 0; i < nqueue && !ret; i++)
		if (queue[i]->via == XDT_VIA_TRAMP && queue[i]->live == 2) {
			/*
			 * Where the ISA writes the call itself, a function
			 * ftrace went live on since fbt chose (a kprobe of
			 * the same program, enabled after the choice) goes
			 * by ftrace instead, which shares the site.
			 */
			if (!xdt_arch_tramp_ok(queue[i]->addr)) {
				WRITE_ONCE(queue[i]->via, XDT_VIA_FTRACE);
				continue;
			}
			if (xdt_site_busy(queue[i]->addr))
				ret = -EBUSY;
			sites[n++] = queue[i];
		}
	if (n && !ret)
		ret = xdt_arch_tramp_on(sites, n);
	return ret;
}

int xdt_fentry_commit(void)
{
	int rf = -ENOMEM, rt = -ENOMEM;
	u32 i;

	if (!nqueue && !qfailed)
		return 0;
	if (!qfailed) {
		/* trampolines first: what they cannot take goes by ftrace */
		rt = tramp_commit((struct xdt_site **)qips);
		rf = ftrace_commit(qips);
	}
	/*
	 * Sites go live only once their batch is in, so a STOP after a
	 * failed GO takes out exactly what went in.
	 */
	for (i = 0; i < nqueue; i++) {
		struct xdt_site *s = queue[i];
		int r = s->via == XDT_VIA_TRAMP ? rt : rf;

		if (s->live == 3) {
			nsites--;
			ntramp -= s->via == XDT_VIA_TRAMP;
		} else if (!r) {
			nsites++;
			ntramp += s->via == XDT_VIA_TRAMP;
		}
		WRITE_ONCE(s->live, s->live == 2 && !r ? 1 : 0);
	}
	nqueue = 0;
	nreserved = 0;
	qfailed = false;
	return rf ?: rt;
}

#ifdef XDT_TRAMP_NOP
/*
 * For ISAs that write the trampoline call themselves (tramp.c of arm64 and
 * riscv64; isa.h defines XDT_TRAMP_NOP): the call's words at each site, in or out, through the same
 * stop_machine batches as breakpoints.  The ISA says what the call is
 * (xdt_arch_tramp_call: up to two words) and what the site held
 * (XDT_TRAMP_NOP, each word).  In: all or none, every site checked
 * before any is written.  Out: a site holding anything but xdt's call is
 * left alone (-EBUSY).
 */
static bool tramp_holds(unsigned long site, bool call)
{
	u32 cur[2], w[2];
	unsigned int i, n = xdt_arch_tramp_call(site, w);

	if (copy_from_kernel_nofault(cur, (void *)site, n * 4))
		return false;
	for (i = 0; i < n; i++)
		if (cur[i] != (call ? w[i] : XDT_TRAMP_NOP))
			return false;
	return true;
}

int xdt_tramp_write(struct xdt_site **sites, unsigned int n, bool on)
{
	unsigned long addrs[64];
	xdt_patchval_t vals[64];
	unsigned int i, j, k = 0, nw;
	u32 w[2];
	int ret = 0;

	for (i = 0; on && i < n; i++)
		if (!xdt_arch_tramp_ok(sites[i]->addr) ||
		    !tramp_holds(sites[i]->addr, false))
			return -EBUSY;
	for (i = 0; i < n && !ret; i++) {
		if (!on && !tramp_holds(sites[i]->addr, true))
			return -EBUSY;	/* not what this mechanism left */
		nw = xdt_arch_tramp_call(sites[i]->addr, w);
		for (j = 0; j < nw; j++) {
			addrs[k] = sites[i]->addr + 4 * j;
			vals[k++] = on ? w[j] : XDT_TRAMP_NOP;
		}
		if (k > ARRAY_SIZE(addrs) - 2 || i == n - 1) {
			ret = xdt_arch_poke(addrs, vals, k);
			k = 0;
		}
	}
	return ret;
}

/* ... which is all on, off and exit are for those ISAs. */
int xdt_arch_tramp_on(struct xdt_site **sites, unsigned int n)
{
	return xdt_tramp_write(sites, n, true);
}

void xdt_arch_tramp_off(struct xdt_site **sites, unsigned int n)
{
	if (xdt_tramp_write(sites, n, false))
		pr_err("xdt: could not restore trampoline sites\n");
}

void xdt_arch_tramp_exit(void)
{
	/* every site went out with its STOP */
}
#endif

void xdt_fentry_exit(void)
{
	ftrace_free_filter(&probe_ops);
	if (XDT_HAVE_TRAMP)
		xdt_arch_tramp_exit();
	if (registered)
		unregister_ftrace_function(&fops);
	registered = false;
	kvfree(queue);
	kvfree(qips);
	queue = NULL;
	qips = NULL;
	nqueue = qcap = nsites = ntramp = 0;
	qfailed = false;
}

#else	/* no ftrace with registers: fbt offers the breakpoint only */

void xdt_fentry_kallsyms(const char *name, unsigned long addr)
{
}

bool xdt_fentry_traceable(unsigned long addr)
{
	return false;
}

void __xdt_probe xdt_fentry_tramp_fire(unsigned long site,
				       struct pt_regs *regs)
{
}

void xdt_fentry_want(struct xdt_site *s, bool on)
{
}

void xdt_fentry_choose_begin(void)
{
}

bool xdt_fentry_tramp_reserve(void)
{
	return false;
}

int xdt_fentry_commit(void)
{
	return -EOPNOTSUPP;
}

void xdt_fentry_exit(void)
{
}

#endif
