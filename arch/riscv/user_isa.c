// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 user space: the LP64 ABI's arguments at a function's first
 * instruction (a0-a7, then the stack: the return address is in ra).
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

/*
 * uregs[]: DTrace's register names for the ISA, in the order that is
 * their index (the Makefile makes the guests' /usr/lib/xdt/regs.d from
 * these lines: R_NAME is the row's number).  The ABI names, then the generic R_PC, R_FP (s0), R_R0/R_R1 (a0/a1).
 */
#define UREG(name, field) { name, offsetof(struct pt_regs, field) }
static const struct {
	const char *name;
	unsigned int off;
} uregs[] = {
	UREG("R_RA", ra),
	UREG("R_SP", sp),
	UREG("R_GP", gp),
	UREG("R_TP", tp),
	UREG("R_T0", t0),
	UREG("R_T1", t1),
	UREG("R_T2", t2),
	UREG("R_S0", s0),
	UREG("R_S1", s1),
	UREG("R_A0", a0),
	UREG("R_A1", a1),
	UREG("R_A2", a2),
	UREG("R_A3", a3),
	UREG("R_A4", a4),
	UREG("R_A5", a5),
	UREG("R_A6", a6),
	UREG("R_A7", a7),
	UREG("R_S2", s2),
	UREG("R_S3", s3),
	UREG("R_S4", s4),
	UREG("R_S5", s5),
	UREG("R_S6", s6),
	UREG("R_S7", s7),
	UREG("R_S8", s8),
	UREG("R_S9", s9),
	UREG("R_S10", s10),
	UREG("R_S11", s11),
	UREG("R_T3", t3),
	UREG("R_T4", t4),
	UREG("R_T5", t5),
	UREG("R_T6", t6),
	UREG("R_PC", epc),
	UREG("R_FP", s0),
	UREG("R_R0", a0),
	UREG("R_R1", a1),
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

/*
 * USDT operands: GCC writes the ABI names (a0, s1, sp, ra), which are the
 * table's after R_; fp is s0.  zero has no row (and no use as an operand).
 */
bool xdt_uarch_sdt_reg(const char *as, char *buf, size_t len)
{
	char d[8];
	size_t i;

	if (strlen(as) > 3)
		return false;
	snprintf(d, sizeof(d), "R_%s", as);
	for (i = 2; d[i]; i++)
		d[i] = toupper(d[i]);
	for (i = 0; i < ARRAY_SIZE(uregs); i++)
		if (!strcmp(uregs[i].name, d))
			break;
	if (i == ARRAY_SIZE(uregs))
		return false;
	strscpy(buf, d, len);
	return true;
}
