// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 trap glue.  In 6.1 a kernel-mode ebreak reaches do_trap_break(),
 * which tries kprobes, uprobes and then (only under CONFIG_KGDB)
 * notify_die() before treating it as a BUG; kernel.patch puts
 * xdt_ebreak_hook in front of all of them and calls it with interrupts
 * off (handle_exception re-enables them for exceptions when the
 * interrupted code had them on), which makes the call an RCU read-side
 * section.  sepc points at the ebreak itself.
 *
 * Writing sites: kernel.patch's xdt_patch_text_batch() stops every hart,
 * writes each site (2 or 4 bytes, from the value's low bits) through the
 * fixmap alias, and has every hart execute fence.i before it resumes --
 * Zifencei is the only instruction-fetch barrier RISC-V has, and it is
 * hart-local.
 */
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern bool (*xdt_ebreak_hook)(struct pt_regs *regs);
extern int xdt_patch_text_batch(void *const *addrs, const u32 *insns,
				unsigned int n);

static bool __xdt_probe xdt_ebreak(struct pt_regs *regs)
{
	return xdt_trap(regs, regs->epc);
}

int xdt_arch_trap_init(void)
{
	if (cmpxchg(&xdt_ebreak_hook, NULL, xdt_ebreak) != NULL)
		return -EBUSY;
	return 0;
}

void xdt_arch_trap_exit(void)
{
	WRITE_ONCE(xdt_ebreak_hook, NULL);
	synchronize_rcu();
}

int xdt_arch_poke(unsigned long *addrs, const xdt_patchval_t *vals,
		  unsigned int n)
{
	return xdt_patch_text_batch((void *const *)addrs, vals, n);
}

bool __xdt_probe xdt_arch_stack_start(struct pt_regs *regs, u64 *ret,
				      unsigned long *fp)
{
	/* Entry sites precede the prologue and returns follow the epilogue. */
	*ret = regs->ra;
	*fp = regs->s0;
	return true;
}
