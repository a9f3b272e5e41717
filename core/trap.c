// SPDX-License-Identifier: GPL-2.0
/*
 * The ISA-independent half of a breakpoint trap, and the pieces of a
 * firing every provider shares: arguments and stack().  The ISA's hook
 * (trap.c) finds the address of the breakpoint instruction and calls
 * xdt_trap(); everything from there on -- which site, whether it is still
 * ours, the firing context, the trap counter, nesting -- is decided here,
 * once for every ISA, and what differs between kinds of site (fbt, kinst)
 * is the site's ops, not a switch here.
 */
#include <linux/module.h>
#include <linux/sched/task_stack.h>
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

/*
 * Fire @s's probe with @regs, the registers at the site (a breakpoint's, or
 * those ftrace or a trampoline saved: core/fentry.c).  Interrupts are off.
 * A probe reached from inside a firing (one the firing's own calls hit,
 * e.g. copy_from_kernel_nofault) is not fired: xdt_probe_fire's busy flag.
 */
void __xdt_probe xdt_site_fire(struct xdt_site *s, struct pt_regs *regs)
{
	/*
	 * Not zeroed: the kernels build with CONFIG_INIT_STACK_ALL_ZERO, and
	 * clearing the 160-byte context was 20 `rep stos` iterations -- 20
	 * instructions of a ~450-instruction firing (bench/stepprof.py).
	 * Every field a firing reads is set below or by the args op.
	 */
	struct xdt_ctx ctx __xdt_noinit;

	if (xdt_probe_fast_irqsoff(s->probe))
		return;
	ctx.probe = s->probe;
	ctx.regs = regs;
	ctx.nargs = 0;
	ctx.stack = XDT_STACK_SITE;
	ctx.frame = s->frame;
	ctx.priv = s;
	ctx.err = 0;
	ctx.sampled = 0;
	ctx.fault = XDT_FAULT_NONE;
	ctx.only = NULL;
	ctx.regargs = s->ops->args;	/* fetched on first use: xdt_arg() */
	xdt_probe_fire_irqsoff(&ctx);
}

bool __xdt_probe xdt_trap(struct pt_regs *regs, unsigned long addr)
{
	struct xdt_site *s = xdt_site_lookup(addr);

	if (!s)
		return xdt_xol_trap(regs, addr);
	if (!READ_ONCE(s->enabled)) {
		/*
		 * Restored while this trap was in flight.  If a breakpoint is
		 * still there it is someone else's (kprobes, kgdb), so leave
		 * it to them; otherwise the site's kind says how to go on
		 * (fbt emulates from s->orig, kinst re-executes).
		 */
		if (text_is_patch(s))
			return false;
		s->ops->restored(s, regs);
		return true;
	}
	this_cpu_inc(xdt_cpu.traps);
	/*
	 * A breakpoint hit while this CPU is already handling one of ours
	 * (the argument fetch and the firing call kernel functions, which
	 * may themselves be probed) is only emulated.  Every ISA's hook runs
	 * with interrupts off, so the per-CPU depth is exact.
	 */
	if (this_cpu_inc_return(xdt_cpu.trapdepth) == 1 &&
	    (!s->ops->fires || s->ops->fires(s, regs)))
		xdt_site_fire(s, regs);
	this_cpu_dec(xdt_cpu.trapdepth);
	s->ops->emulate(s, regs);
	return true;
}

bool __xdt_probe xdt_own_text(unsigned long addr)
{
	return within_module_core(addr, THIS_MODULE);
}

/*
 * Frame-pointer unwinding, the same on every ISA once the first frame is
 * found.  Each frame record holds the caller's frame pointer and a return
 * address at offsets isa.h gives.  Every load is fault-safe; the walk
 * stops at a zero or misaligned frame pointer, at one that does not move
 * up the stack (stacks grow down on all of xdt's ISAs, so a loop or a
 * corrupt record ends here), at one the ISA says has left the kernel
 * stack (xdt_arch_frame_next_ok: where the entry code leaves no record
 * that ends the chain), or at an address outside the kernel half.
 * With @skip, return addresses in xdt.ko or in [lo, hi) are left out
 * until the first that is not (the firing's own frames).
 */
static unsigned int __xdt_probe walk(unsigned long fp, u64 *pcs,
				     unsigned int n, unsigned int max,
				     bool skip, unsigned long lo,
				     unsigned long hi)
{
	unsigned long next;
	u64 ret;

	while (n < max && fp && !(fp & (sizeof(long) - 1))) {
		if (copy_from_kernel_nofault(&next,
					     (void *)(fp + XDT_FRAME_NEXT),
					     sizeof(next)) ||
		    copy_from_kernel_nofault(&ret, (void *)(fp + XDT_FRAME_RET),
					     sizeof(ret)) ||
		    (long)ret >= 0)
			break;
		if (skip && (xdt_own_text(ret) || (ret >= lo && ret < hi)))
			; /* one of the firing's own frames */
		else {
			skip = false;
			pcs[n++] = ret;
		}
		if (next <= fp || !xdt_arch_frame_next_ok(fp, next))
			break;
		fp = next;
	}
	return n;
}

/*
 * stack(): up to @max return addresses of the firing, innermost first,
 * from where the firing context says the walk starts.
 */
unsigned int __xdt_probe xdt_stack(struct xdt_ctx *ctx, u64 *pcs,
				   unsigned int max)
{
	struct pt_regs *regs = ctx->regs;
	unsigned long fp;
	unsigned int n = 0;
	u64 ret;

	if (!max)
		return 0;
	switch (ctx->stack) {
	case XDT_STACK_SITE:
		if (ctx->frame == 1) {
			/*
			 * Mid-function (kinst): the probed function's own
			 * frame record is in place, and its return address
			 * is the first one the walk reads.
			 */
			fp = xdt_arch_frame_pointer(regs);
		} else {
			if (!xdt_arch_stack_start(regs, ctx->frame, &ret, &fp) ||
			    (long)ret >= 0)
				return 0;
			pcs[n++] = ret;
		}
		return walk(fp, pcs, n, max, false, 0, 0);
	case XDT_STACK_REGS:
		if (!regs || user_mode(regs))
			return 0;
		pcs[n++] = instruction_pointer(regs);
		return walk(xdt_arch_frame_pointer(regs), pcs, n, max, false,
			    0, 0);
	case XDT_STACK_HERE:
		return walk((unsigned long)__builtin_frame_address(0), pcs, 0,
			    max, true, ctx->skip_lo, ctx->skip_hi);
	}
	return 0;
}

/*
 * ustack(): the firing thread's user stack.  Its registers are the
 * firing's own when it fired in user mode (a pid probe, a profile tick in
 * user code), else the ones it entered the kernel with.  The PC first; at
 * a pid entry probe the return address, which no frame record holds yet;
 * then the frame-pointer chain with fault-safe user loads, stopping at a
 * zero or misaligned frame pointer or one that does not move up the
 * stack.  Code built without frame pointers loses its callers (DTrace's
 * ustack() has the same limit where no helper unwinds).
 */
unsigned int __xdt_probe xdt_ustack(struct xdt_ctx *ctx, u64 *pcs,
				    unsigned int max)
{
	struct pt_regs *regs = ctx->regs;
	unsigned long fp, next;
	unsigned int n = 0;
	u64 ret;

	if (!max)
		return 0;
	pcs[n++] = XDT_USTACK_TAG | (u32)current->tgid;
	if (!current->mm || (current->flags & PF_KTHREAD) || n >= max)
		return n;
	if (!regs || !user_mode(regs))
		regs = task_pt_regs(current);
	pcs[n++] = instruction_pointer(regs);
	if (ctx->uentry && n < max && xdt_uarch_entry_ret(regs, &ret) && ret)
		pcs[n++] = ret;
	fp = xdt_uarch_frame_pointer(regs);
	while (n < max && fp && !(fp & (sizeof(long) - 1))) {
		if (copy_from_user_nofault(&next,
					   (void __user *)(fp + XDT_FRAME_NEXT),
					   sizeof(next)) ||
		    copy_from_user_nofault(&ret,
					   (void __user *)(fp + XDT_FRAME_RET),
					   sizeof(ret)) || !ret)
			break;
		pcs[n++] = ret;
		if (next <= fp)
			break;
		fp = next;
	}
	return n;
}

/* The firing thread's user registers, or NULL in a kernel thread. */
static struct pt_regs *__xdt_probe uregs_of(struct xdt_ctx *ctx)
{
	if (!current->mm || (current->flags & PF_KTHREAD))
		return NULL;
	if (ctx->regs && user_mode(ctx->regs))
		return ctx->regs;
	return task_pt_regs(current);
}

int __xdt_probe xdt_ureg(struct xdt_ctx *ctx, u64 i, u64 *v)
{
	struct pt_regs *regs = uregs_of(ctx);
	u64 dummy;

	if (!regs) {
		*v = 0;
		/* the index must still be the ISA's */
		return xdt_uarch_reg(task_pt_regs(current), i, &dummy) ?
		       0 : -EINVAL;
	}
	return xdt_uarch_reg(regs, i, v) ? 0 : -EINVAL;
}
