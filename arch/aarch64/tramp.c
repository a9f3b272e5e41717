// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 fbtmode=trampoline: the entry NOP (the second of ftrace's two
 * words; the first is `mov x9, x30` from boot) becomes `bl
 * xdt_tramp_entry` (tramp_entry.S), written by xdt itself in the same
 * stop_machine batch as its breakpoints (xdt_arch_poke).
 *
 * 6.1's arm64 has no ftrace direct calls (DYNAMIC_FTRACE_WITH_DIRECT_CALLS
 * came in 6.4), so unlike x86_64 the site is taken from ftrace rather than
 * shared with it, exactly as the breakpoint takes it: while xdt's bl is
 * there, ftrace must not be enabled on the function (it would find a bl
 * it did not write and disable itself).  fbt refuses the opposite order:
 * a function ftrace has live is not offered (fbt_isa.c).
 *
 * bl reaches +-128 MiB.  xdt.ko is in the module region, which without
 * KASLR (this config) sits within 128 MiB of the kernel's text; a function
 * out of reach is not offered the mechanism (xdt_arch_tramp_ok).
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern void xdt_tramp_entry(void);

#define A64_NOP		0xd503201fu
#define A64_BL		0x94000000u

static bool reach(unsigned long site)
{
	long d = (long)xdt_tramp_entry - (long)site;

	return d >= -(128L << 20) && d < (128L << 20);
}

static u32 bl_to_tramp(unsigned long site)
{
	long d = (long)xdt_tramp_entry - (long)site;

	return A64_BL | (((u64)d >> 2) & 0x03ffffff);
}

bool xdt_arch_tramp_ok(unsigned long site)
{
	u32 cur;

	return reach(site) &&
	       !copy_from_kernel_nofault(&cur, (void *)site, 4) &&
	       (cur == A64_NOP || cur == bl_to_tramp(site));
}


/* Write @n sites in batches the size xdt_arch_poke's callers use. */
static int poke(struct xdt_site **sites, unsigned int n, bool on)
{
	unsigned long addrs[64];
	xdt_patchval_t vals[64];
	unsigned int i, k = 0;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		u32 cur;

		if (copy_from_kernel_nofault(&cur, (void *)sites[i]->addr, 4) ||
		    cur != (on ? A64_NOP : bl_to_tramp(sites[i]->addr)))
			return -EBUSY;	/* not what this mechanism left */
		addrs[k] = sites[i]->addr;
		vals[k++] = on ? bl_to_tramp(sites[i]->addr) : A64_NOP;
		if (k == ARRAY_SIZE(addrs) || i == n - 1) {
			ret = xdt_arch_poke(addrs, vals, k);
			k = 0;
		}
	}
	return ret;
}

int xdt_arch_tramp_on(struct xdt_site **sites, unsigned int n)
{
	unsigned int i;
	u32 cur;

	/* all or none: check every site before writing any */
	for (i = 0; i < n; i++)
		if (!reach(sites[i]->addr) ||
		    copy_from_kernel_nofault(&cur, (void *)sites[i]->addr, 4) ||
		    cur != A64_NOP)
			return -EBUSY;
	return poke(sites, n, true);
}

void xdt_arch_tramp_off(struct xdt_site **sites, unsigned int n)
{
	if (poke(sites, n, false))
		pr_err("xdt: could not restore trampoline sites\n");
}

void xdt_arch_tramp_exit(void)
{
	/* every site went out with its STOP */
}
