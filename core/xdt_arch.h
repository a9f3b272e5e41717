/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The porting interface: what every arch/<isa>/ provides, grouped by the
 * file that implements it.  The Makefile puts arch/$(ISA)/ on the include
 * path; core/ and providers/ know nothing else about the ISA.
 *
 * isa.h     xdt_patchval_t, the patch value(s), XDT_ISA_NAME.
 * trap.c    Route the ISA's breakpoint trap to xdt_arch_trap() (the hook the
 *           kernel patch adds), and write sites.
 * fbt_isa.c Choose a function's entry and return sites and emulate the
 *           displaced instruction when one traps.
 */
#ifndef XDT_ARCH_H
#define XDT_ARCH_H

#include <linux/ptrace.h>
#include "xdt_impl.h"

/* ---- trap.c -------------------------------------------------------------- */
/* Install / remove the breakpoint hook.  exit waits until no CPU is in it. */
int xdt_arch_trap_init(void);
void xdt_arch_trap_exit(void);
/*
 * Write @on ? site->patch : site->orig at every site, with the ISA's
 * cross-CPU synchronisation and cache maintenance, after checking that
 * each site holds what the other state expects (refuses with -EBUSY, and
 * writes nothing, if any does not).  May sleep.
 */
int xdt_arch_poke(struct xdt_site **sites, unsigned int n, bool on);

/* ---- fbt_isa.c ------------------------------------------------------------ */
/*
 * Find the entry site and the return sites of the function at [@addr,
 * @addr + @size).  Calls @add for each (is_return, site address, offset,
 * emulation kind, original bytes).  Returns NULL, or why the function gets
 * no probes (a string literal, shown by `dtrace -l -v`).  Not probe context.
 */
typedef int (*xdt_fbt_add_t)(void *ctx, bool is_return, unsigned long addr,
			     u32 off, u8 kind, xdt_patchval_t orig);
const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx);

/*
 * Probe context.  Called by the trap path for a site that trapped: fill
 * @args with the probe arguments (entry: the function's arguments; return:
 * arg0 = offset of the return site, arg1 = the return value), then emulate
 * the displaced instruction so the function resumes after it.
 */
void xdt_fbt_arch_args(struct xdt_site *site, struct pt_regs *regs,
		       u64 *args);
void xdt_fbt_arch_emulate(struct xdt_site *site, struct pt_regs *regs);

#endif
