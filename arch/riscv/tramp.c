// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 fbtmode=trampoline: the entry's two nops become `auipc t0, hi;
 * jalr t0, lo(t0)` to xdt_tramp_entry (tramp_entry.S), written by xdt in
 * the same stop_machine batch as its breakpoints (xdt_patch_text_batch:
 * both words while no CPU runs kernel text, so none sees half a pair).
 *
 * 6.1's riscv64 has no ftrace direct calls, so as with the breakpoint the
 * site is taken from ftrace, not shared: while xdt's call is there ftrace
 * must not be enabled on the function, and a function ftrace has live is
 * not offered (fbt_isa.c).  auipc+jalr reach +-2 GiB: all of the kernel
 * and its modules.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern void xdt_tramp_entry(void);

#define RV_NOP		0x00000013u

static void call_to_tramp(unsigned long site, u32 *w)
{
	long d = (long)xdt_tramp_entry - (long)site;
	long hi = (d + 0x800) >> 12, lo = d - (hi << 12);

	w[0] = ((u32)hi << 12) | (5 << 7) | 0x17;		/* auipc t0 */
	w[1] = ((u32)lo << 20) | (5 << 15) | (5 << 7) | 0x67;	/* jalr t0 */
}

static bool reach(unsigned long site)
{
	long d = (long)xdt_tramp_entry - (long)site;

	return d >= -(1L << 31) + 0x800 && d < (1L << 31) - 0x800;
}

/* In reach, and the site holds ftrace's NOPs (or already our call). */
bool xdt_arch_tramp_ok(unsigned long site)
{
	u32 cur[2], call[2];

	call_to_tramp(site, call);
	return reach(site) &&
	       !copy_from_kernel_nofault(cur, (void *)site, 8) &&
	       ((cur[0] == RV_NOP && cur[1] == RV_NOP) ||
		(cur[0] == call[0] && cur[1] == call[1]));
}

static int poke(struct xdt_site **sites, unsigned int n, bool on)
{
	unsigned long addrs[64];
	xdt_patchval_t vals[64];
	unsigned int i, k = 0;
	int ret = 0;

	for (i = 0; i < n && !ret; i++) {
		u32 cur[2], call[2];

		call_to_tramp(sites[i]->addr, call);
		if (copy_from_kernel_nofault(cur, (void *)sites[i]->addr, 8) ||
		    cur[0] != (on ? RV_NOP : call[0]) ||
		    cur[1] != (on ? RV_NOP : call[1]))
			return -EBUSY;	/* not what this mechanism left */
		addrs[k] = sites[i]->addr;
		vals[k++] = on ? call[0] : RV_NOP;
		addrs[k] = sites[i]->addr + 4;
		vals[k++] = on ? call[1] : RV_NOP;
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
	u32 cur[2];

	for (i = 0; i < n; i++)
		if (!reach(sites[i]->addr) ||
		    copy_from_kernel_nofault(cur, (void *)sites[i]->addr, 8) ||
		    cur[0] != RV_NOP || cur[1] != RV_NOP)
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
