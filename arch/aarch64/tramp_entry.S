/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 fbtmode=trampoline: what a traced function's entry branches to.
 * The entry is ftrace's two words, `mov x9, x30` (written at boot) and a
 * NOP that tramp.c turns into `bl xdt_tramp_entry`; so on entry x9 is the
 * function's own return address, x30 the address after the bl (f+8), and
 * x0-x8 its arguments (x8: the indirect result).  The pt_regs built here
 * has what fbt reads, laid out as the kernel's (x0-x8, x29, the caller's
 * x30 as regs[30], sp, pc), and a frame record above it for unwinders, as
 * ftrace's own entry does.  x9-x17 are temporaries no function expects to
 * survive its entry.
 */
#include <linux/linkage.h>
#include <asm/asm-offsets.h>
#include <asm/assembler.h>

SYM_CODE_START(xdt_tramp_entry)
	sub	sp, sp, #(PT_REGS_SIZE + 16)
	stp	x0, x1, [sp, #S_X0]
	stp	x2, x3, [sp, #S_X2]
	stp	x4, x5, [sp, #S_X4]
	stp	x6, x7, [sp, #S_X6]
	str	x8, [sp, #S_X8]
	str	x29, [sp, #S_FP]
	add	x10, sp, #(PT_REGS_SIZE + 16)	/* the function's sp */
	stp	x9, x10, [sp, #S_LR]		/* regs[30], sp */
	str	x30, [sp, #S_PC]
	stp	x29, x9, [sp, #PT_REGS_SIZE]	/* the caller's frame record */
	add	x29, sp, #PT_REGS_SIZE
	sub	x0, x30, #4			/* the site: the bl */
	mov	x1, sp
	bl	xdt_fentry_tramp_fire
	ldp	x0, x1, [sp, #S_X0]
	ldp	x2, x3, [sp, #S_X2]
	ldp	x4, x5, [sp, #S_X4]
	ldp	x6, x7, [sp, #S_X6]
	ldr	x8, [sp, #S_X8]
	ldr	x29, [sp, #S_FP]
	ldr	x30, [sp, #S_LR]
	ldr	x9, [sp, #S_PC]
	add	sp, sp, #(PT_REGS_SIZE + 16)
	ret	x9
SYM_CODE_END(xdt_tramp_entry)
