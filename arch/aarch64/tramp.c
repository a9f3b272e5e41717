// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 fbtmode=trampoline: the entry NOP (the second of ftrace's two
 * words; the first is `mov x9, x30` from boot) becomes `bl
 * xdt_tramp_entry` (tramp_entry.S), written by xdt itself in the same
 * stop_machine batch as its breakpoints (xdt_tramp_write, core/fentry.c).
 *
 * 6.1's arm64 has no ftrace direct calls (DYNAMIC_FTRACE_WITH_DIRECT_CALLS
 * came in 6.4), so unlike x86_64 the site is taken from ftrace rather than
 * shared with it, exactly as the breakpoint takes it: while xdt's bl is
 * there, ftrace must not be enabled on the function (it would find a bl
 * it did not write and disable itself).  A function ftrace has live is
 * not given the trampoline (xdt_arch_tramp_ok: fbt goes by ftrace then).
 *
 * bl reaches +-128 MiB.  xdt.ko is in the module region, which without
 * KASLR (this config) sits within 128 MiB of the kernel's text; a function
 * out of reach is not offered the mechanism.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern void xdt_tramp_entry(void);

#define A64_BL		0x94000000u

unsigned int xdt_arch_tramp_call(unsigned long site, u32 *w)
{
	long d = (long)xdt_tramp_entry - (long)site;

	w[0] = A64_BL | (((u64)d >> 2) & 0x03ffffff);
	return 1;
}

/* In reach, and the site holds ftrace's NOP (or already our bl). */
bool xdt_arch_tramp_ok(unsigned long site)
{
	long d = (long)xdt_tramp_entry - (long)site;
	u32 cur, bl;

	xdt_arch_tramp_call(site, &bl);
	return d >= -(128L << 20) && d < (128L << 20) &&
	       !copy_from_kernel_nofault(&cur, (void *)site, 4) &&
	       (cur == XDT_TRAMP_NOP || cur == bl);
}
