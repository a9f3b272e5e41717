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
	u64 args[XDT_NARGS];

	if (!s)
		return false;
	if (!READ_ONCE(s->enabled)) {
		/*
		 * Restored while this trap was in flight: run the original
		 * instruction.  If a breakpoint is still there it is someone
		 * else's (kprobes, kgdb), so leave it to them.
		 */
		if (text_is_patch(s))
			return false;
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
		xdt_fbt_arch_args(s, regs, args);
		xdt_probe_fire(s->probe, args, regs);
	}
	this_cpu_dec(xdt_cpu.trapdepth);
	xdt_fbt_arch_emulate(s, regs);
	return true;
}

/*
 * Frame-pointer unwinding, the same on every ISA once the first frame is
 * found: each frame record holds the caller's frame pointer and a return
 * address at offsets isa.h gives.  Every load is fault-safe; the walk
 * stops at a zero or misaligned frame pointer, at one that does not move
 * up the stack (stacks grow down on all of xdt's ISAs, so a loop or a
 * corrupt record ends here), or at an address outside the kernel half.
 */
unsigned int __xdt_probe xdt_stack(struct pt_regs *regs, u64 *pcs,
				   unsigned int max)
{
	unsigned long fp, next;
	unsigned int n = 0;
	u64 ret;

	if (!max || !xdt_arch_stack_start(regs, &ret, &fp) || (long)ret >= 0)
		return 0;
	pcs[n++] = ret;
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
