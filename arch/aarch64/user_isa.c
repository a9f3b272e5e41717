// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 user space: AAPCS64's arguments at a function's first instruction
 * (x0-x7, then the stack: a call pushes no return address, it is in x30).
 */
#include <linux/kernel.h>

#include "xdt_arch.h"

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
