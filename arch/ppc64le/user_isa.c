// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le user space: the ELFv2 ABI's arguments at a function's first
 * instruction (r3-r10, then the caller's parameter save area, 32 bytes
 * above r1; the return address is in LR).
 *
 * NOT YET DONE (docs/porting.md step 7b): ustack() (the frame the walk
 * starts from is the caller's r1, a user load this hook cannot make: it
 * returns 0, so ustack() shows the PC alone), offset probes (no decoder
 * yet: xdt_uarch_insn says lengths are unknown) and USDT operands (GCC
 * writes ppc registers as bare numbers: the consumer's operand parser
 * needs that form first).
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>

#include "xdt_arch.h"

unsigned int __xdt_probe xdt_uarch_args(struct pt_regs *regs, u64 *args)
{
	unsigned int i;

	for (i = 0; i < 8; i++)
		args[i] = regs->gpr[3 + i];
	return 8;
}

unsigned long __xdt_probe xdt_uarch_stack_arg(struct pt_regs *regs,
					      unsigned int i)
{
	return regs->gpr[1] + 32 + 8UL * i;
}

unsigned long __xdt_probe xdt_uarch_frame_pointer(struct pt_regs *regs)
{
	return 0;
}

/* At the first instruction the return address is in LR. */
bool __xdt_probe xdt_uarch_entry_ret(struct pt_regs *regs, u64 *ret)
{
	*ret = regs->link;
	return true;
}

unsigned int xdt_uarch_insn(const u8 *p, size_t avail, const char **why)
{
	*why = NULL;
	return 0;
}

/*
 * uregs[]: DTrace's register names for the ISA, in the order that is
 * their index (the Makefile makes the guests' /usr/lib/xdt/regs.d from
 * these lines: R_NAME is the row's number).  The GPRs (R_GPR0...), the
 * special registers pt_regs keeps, then the generic R_PC, R_SP (r1), R_FP
 * (r1: ELFv2 has no separate frame pointer), R_R0/R_R1 (r3/r4, the
 * return value registers).
 */
#define UREG(name, field) { name, offsetof(struct pt_regs, field) }
static const struct {
	const char *name;
	unsigned int off;
} uregs[] = {
	UREG("R_GPR0", gpr[0]),
	UREG("R_GPR1", gpr[1]),
	UREG("R_GPR2", gpr[2]),
	UREG("R_GPR3", gpr[3]),
	UREG("R_GPR4", gpr[4]),
	UREG("R_GPR5", gpr[5]),
	UREG("R_GPR6", gpr[6]),
	UREG("R_GPR7", gpr[7]),
	UREG("R_GPR8", gpr[8]),
	UREG("R_GPR9", gpr[9]),
	UREG("R_GPR10", gpr[10]),
	UREG("R_GPR11", gpr[11]),
	UREG("R_GPR12", gpr[12]),
	UREG("R_GPR13", gpr[13]),
	UREG("R_GPR14", gpr[14]),
	UREG("R_GPR15", gpr[15]),
	UREG("R_GPR16", gpr[16]),
	UREG("R_GPR17", gpr[17]),
	UREG("R_GPR18", gpr[18]),
	UREG("R_GPR19", gpr[19]),
	UREG("R_GPR20", gpr[20]),
	UREG("R_GPR21", gpr[21]),
	UREG("R_GPR22", gpr[22]),
	UREG("R_GPR23", gpr[23]),
	UREG("R_GPR24", gpr[24]),
	UREG("R_GPR25", gpr[25]),
	UREG("R_GPR26", gpr[26]),
	UREG("R_GPR27", gpr[27]),
	UREG("R_GPR28", gpr[28]),
	UREG("R_GPR29", gpr[29]),
	UREG("R_GPR30", gpr[30]),
	UREG("R_GPR31", gpr[31]),
	UREG("R_NIP", nip),
	UREG("R_MSR", msr),
	UREG("R_CTR", ctr),
	UREG("R_LR", link),
	UREG("R_XER", xer),
	UREG("R_CCR", ccr),
	UREG("R_PC", nip),
	UREG("R_SP", gpr[1]),
	UREG("R_FP", gpr[1]),
	UREG("R_R0", gpr[3]),
	UREG("R_R1", gpr[4]),
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

bool xdt_uarch_sdt_reg(const char *as, char *buf, size_t len)
{
	return false;
}
