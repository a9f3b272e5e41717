// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le kinst: NOT YET PORTED (docs/porting.md step 6b).  Every function
 * is refused with the reason below until decode.c classifies every word
 * (step 5: privileged and interrupt-state instructions, lwarx/stwcx.
 * sequences, addpcis, prefixed POWER10 words) and the branches are
 * emulated here; `dtrace -l -v` shows the reason.
 */
#include "xdt_arch.h"

const char *xdt_kinst_arch_sites(unsigned long addr, unsigned long size,
				 xdt_kinst_add_t add, void *ctx)
{
	return "kinst is not yet ported to ppc64le";
}

unsigned int xdt_kinst_arch_xol(struct xdt_site *s, unsigned long slot,
				u8 *buf, const char **why)
{
	*why = "kinst is not yet ported to ppc64le";
	return 0;
}

/* Never reached: no kinst site exists on ppc64le yet. */
void __xdt_probe xdt_kinst_arch_emulate(struct xdt_site *s,
					struct pt_regs *regs)
{
}
