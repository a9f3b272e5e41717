// SPDX-License-Identifier: GPL-2.0
/*
 * The ISA-independent half of a breakpoint trap.  The ISA's hook (trap.c)
 * finds the address of the breakpoint instruction and calls xdt_trap();
 * everything from there on -- which site, whether it is still ours, firing,
 * the trap counter, nesting -- is decided here, once for every ISA.
 */
#include <linux/uaccess.h>

#include "xdt_arch.h"

static bool __xdt_probe text_is_patch(struct xdt_site *s)
{
	xdt_patchval_t cur = 0;

	if (copy_from_kernel_nofault(&cur, (void *)s->addr,
				     XDT_PATCH_LEN(s->orig)))
		return true;	/* cannot tell: not ours to handle */
	return xdt_arch_is_patch(cur);
}

bool __xdt_probe xdt_trap(struct pt_regs *regs, unsigned long addr)
{
	struct xdt_site *s = xdt_site_lookup(addr);
	struct xdt_args args;

	if (!s)
		return xdt_xol_trap(regs, addr);
	if (!READ_ONCE(s->enabled)) {
		/*
		 * Restored while this trap was in flight.  If a breakpoint is
		 * still there it is someone else's (kprobes, kgdb), so leave
		 * it to them.  Otherwise an fbt site's instruction is emulated
		 * (exactly, from s->orig) rather than re-executed from memory:
		 * QEMU's TCG once kept running a stale translation of a
		 * restored entry NOP, so re-executing trapped again forever
		 * on both vCPUs (test_every_entry_probe_at_once hung; gdb
		 * rewriting the same byte, which flushes the translation, set
		 * the guest free).  The cost: if ftrace takes the site over
		 * in this window, this one call skips ftrace's hook.  kinst
		 * re-executes: its out-of-line slot may be gone by now.
		 */
		if (text_is_patch(s))
			return false;
		if (s->type == XDT_SITE_FBT)
			xdt_fbt_arch_emulate(s, regs);
		else
			instruction_pointer_set(regs, addr);
		return true;
	}
	this_cpu_inc(xdt_cpu.traps);
	/*
	 * A probe hit while this CPU is already handling one of ours (the
	 * argument fetch and the firing call kernel functions such as
	 * copy_from_kernel_nofault, which may themselves be probed) is only
	 * emulated.  Every ISA's hook runs with interrupts off, so the
	 * per-CPU depth is exact.
	 */
	if (this_cpu_inc_return(xdt_cpu.trapdepth) == 1) {
		/* kinst probes have no arguments (as on FreeBSD). */
		if (s->type == XDT_SITE_KINST) {
			memset(args.v, 0, sizeof(args.v));
			args.ready = XDT_NARGS;
		} else {
			args.ready = xdt_fbt_arch_args(s, regs, args.v);
		}
		args.site = s;
		args.regs = regs;
		this_cpu_write(xdt_cpu.framed, s->frame);
		xdt_probe_fire(s->probe, &args, regs);
	}
	this_cpu_dec(xdt_cpu.trapdepth);
	if (s->type == XDT_SITE_KINST)
		xdt_kinst_arch_emulate(s, regs);
	else
		xdt_fbt_arch_emulate(s, regs);
	return true;
}

/*
 * Argument @i of a firing, loading the stack arguments up to it the first
 * time one is read.  Runs inside the firing, so a probe on the fault-safe
 * load's own path only nests (trapdepth).
 */
u64 __xdt_probe xdt_arg(struct xdt_args *a, unsigned int i)
{
	if (i >= XDT_NARGS)
		return 0;
	for (; a->ready <= i; a->ready++) {
		unsigned long at = xdt_fbt_arch_stack_arg(a->site, a->regs,
							  a->ready);

		if (copy_from_kernel_nofault(&a->v[a->ready], (void *)at, 8))
			a->v[a->ready] = 0;
	}
	return a->v[i];
}

/*
 * Frame-pointer unwinding, the same on every ISA once the first frame is
 * found -- from the return address where the function has no frame record
 * in place (fbt's sites, kinst's before the prologue or after the
 * epilogue), or from the function's own record where the kinst site says
 * it is there.  Each frame record holds the caller's frame pointer and a
 * return address at offsets isa.h gives.  Every load is fault-safe; the walk
 * stops at a zero or misaligned frame pointer, at one that does not move
 * up the stack (stacks grow down on all of xdt's ISAs, so a loop or a
 * corrupt record ends here), or at an address outside the kernel half.
 */
unsigned int __xdt_probe xdt_stack(struct pt_regs *regs, u64 *pcs,
				   unsigned int max)
{
	u8 frame = this_cpu_read(xdt_cpu.framed);
	unsigned long fp, next;
	unsigned int n = 0;
	u64 ret;

	if (!max)
		return 0;
	if (frame == 1) {
		/*
		 * Mid-function (kinst): the probed function's own frame
		 * record is in place, and its return address is the first
		 * one the walk reads.
		 */
		fp = xdt_arch_frame_pointer(regs);
	} else {
		if (!xdt_arch_stack_start(regs, frame, &ret, &fp) ||
		    (long)ret >= 0)
			return 0;
		pcs[n++] = ret;
	}
	while (n < max && fp && !(fp & (sizeof(long) - 1))) {
		if (copy_from_kernel_nofault(&next,
					     (void *)(fp + XDT_FRAME_NEXT),
					     sizeof(next)) ||
		    copy_from_kernel_nofault(&ret, (void *)(fp + XDT_FRAME_RET),
					     sizeof(ret)) ||
		    (long)ret >= 0)
			break;
		pcs[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}
