/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The porting interface: everything an ISA provides, and nothing else.
 * The Makefile copies arch/$(ISA)/ into the module's build as arch/ and puts
 * it on the include path; core/ and providers/ include this header (and,
 * through xdt_impl.h, the ISA's isa.h) and know nothing else about the ISA.
 * docs/porting.md walks through it in the order a new port would.
 *
 * Per ISA, in arch/<isa>/:
 *
 * isa.h      Types and constants, included everywhere (see "isa.h" below).
 * trap.c     Route the ISA's breakpoint exception to xdt_trap(), write
 *            sites, unwind the stack.
 * fbt_isa.c  Choose a function's entry and return sites and emulate the
 *            instruction a site displaces.
 * decode.c   The ISA's instruction decoder (decode.h: its own API; the
 *            classes are shared, core/xdt_insn.h).  Builds in the kernel
 *            and on the host, where tools/xdt-decode-check compares it with
 *            a reference disassembler over a whole vmlinux.
 * kernel.config / kernel.patch
 *            The ISA's kernel configuration fragment and the kernel change
 *            that routes its breakpoint exception to a module (and exports
 *            the text-patching primitive).
 *
 * "Probe context" below means: reachable from the breakpoint trap, so
 * marked __xdt_probe, interrupts off, no locks that sleep, no allocation
 * (the rules are in xdt_impl.h).
 *
 * isa.h must define:
 *   XDT_ISA_NAME             "x86_64", "aarch64", "riscv64"
 *   xdt_patchval_t           an unsigned integer type wide enough for the
 *                            largest breakpoint instruction
 *   XDT_PATCH_LEN(v)         bytes a site whose original value is @v
 *                            occupies: the patch is written over that many
 *                            bytes.  A site's value is the first
 *                            XDT_PATCH_LEN bytes of the displaced
 *                            instruction read as a little-endian integer,
 *                            zero above them (x86: one byte of it; arm64:
 *                            the word; riscv: 2 or 4 bytes), because the
 *                            core compares whole xdt_patchval_t values.
 *                            XDT_PATCH_LEN(xdt_arch_patch_for(v)) must
 *                            equal XDT_PATCH_LEN(v).
 *   xdt_arch_patch_for(v)    the breakpoint to write over original @v
 *   xdt_arch_is_patch(v)     whether @v (XDT_PATCH_LEN(v) bytes read back
 *                            from the text) is one of xdt's breakpoints
 *   XDT_FRAME_NEXT, XDT_FRAME_RET
 *                            where a frame record keeps the caller's frame
 *                            pointer and the return address, as byte
 *                            offsets from the frame pointer
 */
#ifndef XDT_ARCH_H
#define XDT_ARCH_H

#include <linux/ptrace.h>
#include "xdt_impl.h"

/* ---- trap.c -------------------------------------------------------------- */
/*
 * Install / remove the breakpoint hook.  The hook decodes the exception to
 * the address of the breakpoint instruction and calls xdt_trap() (probe
 * context, core/trap.c), which returns true when the trap was xdt's and
 * @regs are ready to resume.  exit returns only when no CPU can still be
 * inside the hook.
 */
int xdt_arch_trap_init(void);
void xdt_arch_trap_exit(void);

/*
 * Write @vals[i] (XDT_PATCH_LEN(@vals[i]) bytes) at @addrs[i] for i < @n,
 * making every CPU see the new text (cross-CPU synchronisation and I-cache
 * maintenance are the ISA's) before returning.  The core has already
 * checked each site holds what it expects, and calls this in chunks small
 * enough to keep other CPUs responsive.  May sleep.
 */
int xdt_arch_poke(unsigned long *addrs, const xdt_patchval_t *vals,
		  unsigned int n);

/*
 * Probe context, for stack().  At a site where the trapped function has no
 * frame of its own (fbt entry and return sites), store the function's
 * return address at @ret and the frame pointer of its caller at @fp.
 * Returns false if they cannot be read.  The core walks on from @fp with
 * the frame layout isa.h gives (XDT_FRAME_NEXT, XDT_FRAME_RET).
 */
bool xdt_arch_stack_start(struct pt_regs *regs, u64 *ret, unsigned long *fp);

/* ---- fbt_isa.c ------------------------------------------------------------ */
/*
 * Find the entry site and the return sites of the function at [@addr,
 * @addr + @size) and call @add for each; @add copies the description and
 * fails when the function has too many.  Returns NULL, or why the function
 * gets no probes (a string literal, shown by `dtrace -l -v`).  Not probe
 * context.
 */
struct xdt_site_desc {
	bool is_return;
	unsigned long addr;
	u32 off;			/* from the function's start */
	u8 kind;			/* the ISA's: how to emulate */
	xdt_patchval_t orig;		/* what the patch displaces (isa.h) */
	unsigned long aux;		/* the ISA's: e.g. a branch target */
};
typedef int (*xdt_fbt_add_t)(void *ctx, const struct xdt_site_desc *d);
const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx);

/*
 * Probe context.  Called for a site that trapped: fill @args with the probe
 * arguments (entry: the function's arguments; return: arg0 = offset of the
 * return site, arg1 = the return value register -- at a tail-call site the
 * callee has not run yet, so it holds no return value), then emulate the
 * displaced
 * instruction so the function resumes after it.  One trap per firing: the
 * emulation must leave @regs exactly as executing the instruction would.
 */
void xdt_fbt_arch_args(struct xdt_site *site, struct pt_regs *regs,
		       u64 *args);
void xdt_fbt_arch_emulate(struct xdt_site *site, struct pt_regs *regs);

/* ---- provided by the core for the ISA ------------------------------------ */
/* Probe context: see trap.c above. */
bool xdt_trap(struct pt_regs *regs, unsigned long addr);
/* Probe context: stack() -- @max return addresses, innermost first. */
unsigned int xdt_stack(struct pt_regs *regs, u64 *pcs, unsigned int max);

#endif
