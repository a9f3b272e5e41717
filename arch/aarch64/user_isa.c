// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 user space: AAPCS64's arguments at a function's first instruction
 * (x0-x7, then the stack: a call pushes no return address, it is in x30).
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

unsigned int __xdt_probe xdt_uarch_args(struct pt_regs *regs, u64 *args)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		args[i] = regs->regs[i];
	return 8;
}

unsigned long __xdt_probe xdt_uarch_stack_arg(struct pt_regs *regs,
					      unsigned int i)
{
	return regs->sp + (i - 8) * 8UL;
}

unsigned long __xdt_probe xdt_uarch_frame_pointer(struct pt_regs *regs)
{
	return regs->regs[29];
}

/* At the first instruction the return address is in the link register. */
bool __xdt_probe xdt_uarch_entry_ret(struct pt_regs *regs, u64 *ret)
{
	*ret = regs->regs[30];
	return true;
}

/*
 * Every A64 instruction is 4 bytes: the boundaries are known past any.
 * Refused besides what kinst refuses: what 6.1's arm64 uprobes reject
 * (arch/arm64/kernel/probes/decode-insn.c: not "steppable"), or
 * registering fails at GO: msr, pointer-authenticated branches, and the
 * hints other than nop, bti and the pac* that sign.
 */
static bool steppable_hint(u32 w)
{
	switch ((w >> 5) & 0x7f) {
	case 0: case 7: case 8: case 10: case 24: case 25: case 26: case 27:
	case 32: case 34: case 36: case 38:
		return true;
	}
	return false;
}

unsigned int xdt_uarch_insn(const u8 *p, size_t avail, const char **why)
{
	struct xdt_a64_insn in;
	u32 w;

	*why = NULL;
	if (avail < 4)
		return 0;
	memcpy(&w, p, 4);
	w = le32_to_cpu(w);
	if (!xdt_a64_decode(w, &in) || in.cls == XDT_INSN_BAD)
		*why = "could not decode";
	else if (in.cls == XDT_INSN_BRK)
		*why = "an existing breakpoint";
	else if (in.cls == XDT_INSN_EXCL)
		*why = "inside an ldxr/stxr sequence";
	else if (in.cls == XDT_INSN_REFUSED)
		*why = "privileged, or traps";
	else if (in.flags & XDT_A64_PAC)
		*why = "an authenticated branch (6.1's uprobes reject it)";
	else if ((w & 0xfffff01f) == 0xd503201f && !steppable_hint(w))
		*why = "a hint 6.1's uprobes reject";
	else if ((w & 0xfff00000) == 0xd5100000 ||
		 (w & 0xfff8f01f) == 0xd500401f)
		*why = "msr (6.1's uprobes reject it)";
	return 4;
}
