// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 trap glue: the int3 hook (added to do_int3 by kernel.patch) and
 * text patching through the patch's xdt_text_poke_bytes().
 *
 * int3 is a trap: regs->ip points after the 0xcc, so the site is ip - 1.
 * Kernel-mode int3 entry leaves a gap below the interrupted stack
 * (entry_64.S), which is what lets int3_emulate_push() work here.
 */
#include <linux/uaccess.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <asm/text-patching.h>

#include "xdt_arch.h"

#define XDT_POKE_CHUNK	512

extern bool (*xdt_int3_hook)(struct pt_regs *regs);
extern void xdt_text_poke_bytes(void *const *addrs, const u8 *vals,
				unsigned int n);

static bool __xdt_probe xdt_int3(struct pt_regs *regs)
{
	unsigned long addr = regs->ip - 1;
	struct xdt_site *s = xdt_site_lookup(addr);
	u64 args[XDT_NARGS];
	u8 cur;

	if (!s)
		return false;
	if (!READ_ONCE(s->enabled)) {
		/*
		 * Restored while this trap was in flight: run the original
		 * instruction.  If an int3 is still there it is someone
		 * else's (kprobes, kgdb), so leave it to them.
		 */
		if (copy_from_kernel_nofault(&cur, (void *)addr, 1) ||
		    cur == XDT_PATCHVAL)
			return false;
		regs->ip = addr;
		return true;
	}
	this_cpu_inc(xdt_cpu.traps);
	/*
	 * A probe hit while this CPU is already handling one of ours (the
	 * argument fetch and the firing call kernel functions such as
	 * copy_from_kernel_nofault, which may themselves be probed) is only
	 * emulated.  int3 runs with interrupts off, so the per-CPU depth is
	 * exact.
	 */
	if (this_cpu_inc_return(xdt_cpu.trapdepth) == 1) {
		xdt_fbt_arch_args(s, regs, args);
		xdt_probe_fire(s->probe, args);
	}
	this_cpu_dec(xdt_cpu.trapdepth);
	xdt_fbt_arch_emulate(s, regs);
	return true;
}

int xdt_arch_trap_init(void)
{
	if (cmpxchg(&xdt_int3_hook, NULL, xdt_int3) != NULL)
		return -EBUSY;
	return 0;
}

void xdt_arch_trap_exit(void)
{
	WRITE_ONCE(xdt_int3_hook, NULL);
	/* int3 handlers are RCU readers (NMI-like entry): wait them out. */
	synchronize_rcu();
}

int xdt_arch_poke(struct xdt_site **sites, unsigned int n, bool on)
{
	void **addrs;
	u8 *vals;
	unsigned int i;
	int ret = 0;

	addrs = kvmalloc_array(n, sizeof(*addrs), GFP_KERNEL);
	vals = kvmalloc_array(n, 1, GFP_KERNEL);
	if (!addrs || !vals) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		u8 cur, want = on ? sites[i]->orig : sites[i]->patch;

		/* Refuse, writing nothing, if the text is not what we left. */
		if (copy_from_kernel_nofault(&cur, (void *)sites[i]->addr, 1) ||
		    cur != want) {
			pr_err("xdt: %ps+%#x: found %#x, expected %#x; "
			       "not patching\n", (void *)sites[i]->addr, 0,
			       cur, want);
			ret = -EBUSY;
			goto out;
		}
		addrs[i] = (void *)sites[i]->addr;
		vals[i] = on ? sites[i]->patch : sites[i]->orig;
	}
	/*
	 * Chunks, so tens of thousands of sites do not hold text_mutex and the
	 * CPU for tens of seconds (an RCU stall on this non-preemptible
	 * kernel under TCG).  Each site is valid on its own, so a half-done
	 * batch is a consistent state; each chunk ends with a cross-CPU sync.
	 */
	for (i = 0; i < n; i += XDT_POKE_CHUNK) {
		xdt_text_poke_bytes(addrs + i, vals + i,
				    min_t(unsigned int, n - i, XDT_POKE_CHUNK));
		cond_resched();
	}
out:
	kvfree(addrs);
	kvfree(vals);
	return ret;
}
