// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 user space: the LP64 ABI's arguments at a function's first
 * instruction (a0-a7, then the stack: the return address is in ra).
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

unsigned int __xdt_probe xdt_uarch_args(struct pt_regs *regs, u64 *args)
{
	args[0] = regs->a0;
	args[1] = regs->a1;
	args[2] = regs->a2;
	args[3] = regs->a3;
	args[4] = regs->a4;
	args[5] = regs->a5;
	args[6] = regs->a6;
	args[7] = regs->a7;
	return 8;
}

unsigned long __xdt_probe xdt_uarch_stack_arg(struct pt_regs *regs,
					      unsigned int i)
{
	return regs->sp + (i - 8) * 8UL;
}

unsigned long __xdt_probe xdt_uarch_frame_pointer(struct pt_regs *regs)
{
	return regs->s0;
}

/* At the first instruction the return address is in ra. */
bool __xdt_probe xdt_uarch_entry_ret(struct pt_regs *regs, u64 *ret)
{
	*ret = regs->ra;
	return true;
}

/*
 * A parcel's low bits give its length (2 or 4) even when it is refused.
 * Refused besides what kinst refuses: what 6.1's riscv uprobes reject
 * (arch/riscv/kernel/probes/decode-insn.c), or registering fails at GO:
 * the compressed jumps and branches, fences and SYSTEM instructions.
 */
unsigned int xdt_uarch_insn(const u8 *p, size_t avail, const char **why)
{
	struct xdt_rv_insn in;
	unsigned int len;

	*why = NULL;
	if (avail < 2)
		return 0;
	len = (p[0] & 3) == 3 ? 4 : 2;
	if (len > avail || ((p[0] & 0x1f) == 0x1f))
		return 0;	/* truncated, or a 48/64-bit encoding */
	if (!xdt_rv_decode(p, avail, &in) || in.cls == XDT_INSN_BAD)
		*why = "could not decode";
	else if (in.cls == XDT_INSN_BRK)
		*why = "an existing breakpoint";
	else if (in.cls == XDT_INSN_EXCL)
		*why = "inside an lr/sc sequence";
	else if (in.compressed && in.op >= XDT_RV_OP_JAL &&
		 in.op <= XDT_RV_OP_BNE)
		*why = "a compressed jump or branch (6.1's uprobes reject it)";
	else if (len == 4 && ((p[0] & 0x7f) == 0x0f || (p[0] & 0x7f) == 0x73))
		*why = "a fence or SYSTEM instruction (6.1's uprobes reject it)";
	return len;
}
