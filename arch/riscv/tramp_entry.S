/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riscv64 fbtmode=trampoline: what a traced function's entry calls.  The
 * entry's two nops (ftrace's slot) become `auipc t0, hi; jalr t0, lo(t0)`
 * (tramp.c), the same call ftrace makes there: ra is untouched (the
 * function's own return address), t0 is the address after the pair
 * (f+8), a0-a7 the arguments.  The pt_regs built here holds what fbt
 * reads (a0-a7, ra, s0, sp, epc) in the kernel's layout, with sp the
 * function's own (6.1's ftrace_regs_caller stores it after moving sp:
 * XDT_FTRACE_SP_BIAS; here it is right).  t0-t6 are temporaries no
 * function expects to survive its entry.
 */
#include <linux/linkage.h>
#include <asm/asm.h>
#include <asm/asm-offsets.h>

SYM_CODE_START(xdt_tramp_entry)
	addi	sp, sp, -(PT_SIZE_ON_STACK + 16)
	REG_S	a0, PT_A0(sp)
	REG_S	a1, (PT_A0 + 8)(sp)
	REG_S	a2, (PT_A0 + 16)(sp)
	REG_S	a3, (PT_A0 + 24)(sp)
	REG_S	a4, (PT_A0 + 32)(sp)
	REG_S	a5, (PT_A0 + 40)(sp)
	REG_S	a6, (PT_A0 + 48)(sp)
	REG_S	a7, (PT_A0 + 56)(sp)
	REG_S	ra, PT_RA(sp)
	REG_S	s0, PT_S0(sp)
	REG_S	t0, PT_EPC(sp)
	addi	t1, sp, (PT_SIZE_ON_STACK + 16)	/* the function's sp */
	REG_S	t1, PT_SP(sp)
	/* a frame record for unwinders: s0 -> {caller's s0, ra} */
	REG_S	ra, (PT_SIZE_ON_STACK + 8)(sp)
	REG_S	s0, PT_SIZE_ON_STACK(sp)
	addi	s0, sp, (PT_SIZE_ON_STACK + 16)
	addi	a0, t0, -8			/* the site: the auipc */
	mv	a1, sp
	call	xdt_fentry_tramp_fire
	REG_L	a0, PT_A0(sp)
	REG_L	a1, (PT_A0 + 8)(sp)
	REG_L	a2, (PT_A0 + 16)(sp)
	REG_L	a3, (PT_A0 + 24)(sp)
	REG_L	a4, (PT_A0 + 32)(sp)
	REG_L	a5, (PT_A0 + 40)(sp)
	REG_L	a6, (PT_A0 + 48)(sp)
	REG_L	a7, (PT_A0 + 56)(sp)
	REG_L	ra, PT_RA(sp)
	REG_L	s0, PT_S0(sp)
	REG_L	t0, PT_EPC(sp)
	addi	sp, sp, (PT_SIZE_ON_STACK + 16)
	jr	t0
SYM_CODE_END(xdt_tramp_entry)
