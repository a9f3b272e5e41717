// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 user space: the SysV ABI's arguments at a function's first
 * instruction (%rdi, %rsi, %rdx, %rcx, %r8, %r9, then the stack above the
 * return address the call pushed).
 */
#include <linux/kernel.h>

#include "xdt_arch.h"

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
