// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 user space: the SysV ABI's arguments at a function's first
 * instruction (%rdi, %rsi, %rdx, %rcx, %r8, %r9, then the stack above the
 * return address the call pushed).
 */
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

unsigned int __xdt_probe xdt_uarch_args(struct pt_regs *regs, u64 *args)
{
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->cx;
	args[4] = regs->r8;
	args[5] = regs->r9;
	return 6;
}

unsigned long __xdt_probe xdt_uarch_stack_arg(struct pt_regs *regs,
					      unsigned int i)
{
	return regs->sp + 8 + (i - 6) * 8UL;
}

unsigned long __xdt_probe xdt_uarch_frame_pointer(struct pt_regs *regs)
{
	return regs->bp;
}

/* At the first instruction the call's return address is at (%rsp). */
bool __xdt_probe xdt_uarch_entry_ret(struct pt_regs *regs, u64 *ret)
{
	return !copy_from_user_nofault(ret, (void __user *)regs->sp,
				       sizeof(*ret));
}

/* x86_64's decoder runs on user text as on the kernel's: one 64-bit ISA. */
unsigned int xdt_uarch_insn(const u8 *p, size_t avail, const char **why)
{
	struct xdt_insn in;

	*why = NULL;
	if (!xdt_x86_decode(p, avail, &in) || in.cls == XDT_INSN_BAD || !in.len)
		return 0;
	if (in.cls == XDT_INSN_BRK)
		*why = "an existing breakpoint";
	else if (in.cls == XDT_INSN_REFUSED)
		*why = "privileged, or traps";
	return in.len;
}

/*
 * uregs[]: DTrace's register names for the ISA, in the order that is
 * their index (the Makefile makes the guests' /usr/lib/xdt/regs.d from
 * these lines: R_NAME is the row's number).  illumos' amd64 names, then the generic R_PC, R_SP, R_FP, R_PS and R_R0/R_R1 (the return value pair).
 */
#define UREG(name, field) { name, offsetof(struct pt_regs, field) }
static const struct {
	const char *name;
	unsigned int off;
} uregs[] = {
	UREG("R_R15", r15),
	UREG("R_R14", r14),
	UREG("R_R13", r13),
	UREG("R_R12", r12),
	UREG("R_R11", r11),
	UREG("R_R10", r10),
	UREG("R_R9", r9),
	UREG("R_R8", r8),
	UREG("R_RDI", di),
	UREG("R_RSI", si),
	UREG("R_RBP", bp),
	UREG("R_RBX", bx),
	UREG("R_RDX", dx),
	UREG("R_RCX", cx),
	UREG("R_RAX", ax),
	UREG("R_RIP", ip),
	UREG("R_CS", cs),
	UREG("R_RFL", flags),
	UREG("R_RSP", sp),
	UREG("R_SS", ss),
	UREG("R_PC", ip),
	UREG("R_SP", sp),
	UREG("R_FP", bp),
	UREG("R_PS", flags),
	UREG("R_R0", ax),
	UREG("R_R1", dx),
};

bool xdt_uarch_reg(struct pt_regs *regs, u64 i, u64 *v)
{
	if (i >= ARRAY_SIZE(uregs))
		return false;
	*v = *(unsigned long *)((char *)regs + uregs[i].off);
	return true;
}
