// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 user space: the LP64 ABI's arguments at a function's first
 * instruction (a0-a7, then the stack: the return address is in ra).
 */
#include <linux/kernel.h>

#include "xdt_arch.h"

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
