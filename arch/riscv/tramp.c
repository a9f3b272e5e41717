// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 fbtmode=trampoline: the entry's two nops become `auipc t0, hi;
 * jalr t0, lo(t0)` to xdt_tramp_entry (tramp_entry.S), written by xdt in
 * the same stop_machine batch as its breakpoints (xdt_tramp_write, core/
 * fentry.c: both words while no CPU runs kernel text, so none sees half a
 * pair).
 *
 * 6.1's riscv64 has no ftrace direct calls, so as with the breakpoint the
 * site is taken from ftrace, not shared: while xdt's call is there ftrace
 * must not be enabled on the function, and a function ftrace has live is
 * not given the trampoline (xdt_arch_tramp_ok: fbt goes by ftrace then).
 * auipc+jalr reach +-2 GiB: all of the kernel and its modules.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern void xdt_tramp_entry(void);

unsigned int xdt_arch_tramp_call(unsigned long site, u32 *w)
{
	long d = (long)xdt_tramp_entry - (long)site;
	long hi = (d + 0x800) >> 12, lo = d - (hi << 12);

	w[0] = ((u32)hi << 12) | (5 << 7) | 0x17;		/* auipc t0 */
	w[1] = ((u32)lo << 20) | (5 << 15) | (5 << 7) | 0x67;	/* jalr t0 */
	return 2;
}

/* In reach, and the site holds ftrace's NOPs (or already our call). */
bool xdt_arch_tramp_ok(unsigned long site)
{
	long d = (long)xdt_tramp_entry - (long)site;
	u32 cur[2], call[2];

	xdt_arch_tramp_call(site, call);
	return d >= -(1L << 31) + 0x800 && d < (1L << 31) - 0x800 &&
	       !copy_from_kernel_nofault(cur, (void *)site, 8) &&
	       ((cur[0] == XDT_TRAMP_NOP && cur[1] == XDT_TRAMP_NOP) ||
		(cur[0] == call[0] && cur[1] == call[1]));
}
