// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 user space: AAPCS64's arguments at a function's first instruction
 * (x0-x7, then the stack: a call pushes no return address, it is in x30).
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
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

/*
 * uregs[]: DTrace's register names for the ISA, in the order that is
 * their index (the Makefile makes the guests' /usr/lib/xdt/regs.d from
 * these lines: R_NAME is the row's number).  x0-x30, sp, pc, pstate, then the generic R_PS, R_FP (x29), R_LR (x30), R_R0/R_R1.
 */
#define UREG(name, field) { name, offsetof(struct pt_regs, field) }
static const struct {
	const char *name;
	unsigned int off;
} uregs[] = {
	UREG("R_X0", regs[0]),
	UREG("R_X1", regs[1]),
	UREG("R_X2", regs[2]),
	UREG("R_X3", regs[3]),
	UREG("R_X4", regs[4]),
	UREG("R_X5", regs[5]),
	UREG("R_X6", regs[6]),
	UREG("R_X7", regs[7]),
	UREG("R_X8", regs[8]),
	UREG("R_X9", regs[9]),
	UREG("R_X10", regs[10]),
	UREG("R_X11", regs[11]),
	UREG("R_X12", regs[12]),
	UREG("R_X13", regs[13]),
	UREG("R_X14", regs[14]),
	UREG("R_X15", regs[15]),
	UREG("R_X16", regs[16]),
	UREG("R_X17", regs[17]),
	UREG("R_X18", regs[18]),
	UREG("R_X19", regs[19]),
	UREG("R_X20", regs[20]),
	UREG("R_X21", regs[21]),
	UREG("R_X22", regs[22]),
	UREG("R_X23", regs[23]),
	UREG("R_X24", regs[24]),
	UREG("R_X25", regs[25]),
	UREG("R_X26", regs[26]),
	UREG("R_X27", regs[27]),
	UREG("R_X28", regs[28]),
	UREG("R_X29", regs[29]),
	UREG("R_X30", regs[30]),
	UREG("R_SP", sp),
	UREG("R_PC", pc),
	UREG("R_PSTATE", pstate),
	UREG("R_PS", pstate),
	UREG("R_FP", regs[29]),
	UREG("R_LR", regs[30]),
	UREG("R_R0", regs[0]),
	UREG("R_R1", regs[1]),
};

bool xdt_uarch_reg(struct pt_regs *regs, u64 i, u64 *v)
{
	if (i >= ARRAY_SIZE(uregs))
		return false;
	*v = *(unsigned long *)((char *)regs + uregs[i].off);
	return true;
}

const char *xdt_uarch_ureg_name(u64 i)
{
	return i < ARRAY_SIZE(uregs) ? uregs[i].name : NULL;
}

/* USDT operands: xN or wN (the low half: the note's width says so), sp. */
bool xdt_uarch_sdt_reg(const char *as, char *buf, size_t len)
{
	unsigned int n;
	char tail;

	if (!strcmp(as, "sp") || !strcmp(as, "wsp")) {
		snprintf(buf, len, "R_SP");
		return true;
	}
	if ((as[0] != 'x' && as[0] != 'w') || !isdigit(as[1]) ||
	    sscanf(as + 1, "%u%c", &n, &tail) != 1 || n > 30)
		return false;
	snprintf(buf, len, "R_X%u", n);
	return true;
}
