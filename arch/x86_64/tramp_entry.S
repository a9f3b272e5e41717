/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64 fbtmode=trampoline: the one trampoline every traced function's
 * entry calls (ftrace writes `call xdt_tramp_entry` over the function's
 * 5-byte NOP as a direct call: tramp.c).  On entry (%rsp) is the address
 * after that call, f+5, and 8(%rsp) the traced function's own return
 * address.  It saves what a call may clobber that the function still
 * needs -- the six argument registers and %rax (the vector-register count
 * of a varargs call) -- in a pt_regs laid out as the kernel's, calls
 * xdt_fentry_tramp_fire(site, regs) and returns into the function with
 * every argument register as it was; the fields fbt also reads (ip, sp at
 * the function's entry, its %rbp) come from this frame only when a firing
 * needs them (isa.h, XDT_TRAMP_REGS_LATE).  ~25 instructions: no flags
 * saved (the function's entry has no live flags), no segment registers,
 * no list of ftrace_ops.
 */
#include <linux/linkage.h>
#include <asm/ptrace-abi.h>

#define XDT_REGS_SIZE	(SS + 8)	/* struct pt_regs */

SYM_FUNC_START(xdt_tramp_entry)
	pushq	%rbp
	movq	%rsp, %rbp
	subq	$XDT_REGS_SIZE, %rsp
	movq	%rdi, RDI(%rsp)
	movq	%rsi, RSI(%rsp)
	movq	%rdx, RDX(%rsp)
	movq	%rcx, RCX(%rsp)
	movq	%r8, R8(%rsp)
	movq	%r9, R9(%rsp)
	movq	%rax, RAX(%rsp)
	/* ip, sp, bp: XDT_TRAMP_REGS_LATE (isa.h), when a firing needs them */
	movq	8(%rbp), %rdi		/* f+5 */
	subq	$5, %rdi		/* the site: f's call */
	movq	%rsp, %rsi
	call	xdt_fentry_tramp_fire
	movq	RDI(%rsp), %rdi
	movq	RSI(%rsp), %rsi
	movq	RDX(%rsp), %rdx
	movq	RCX(%rsp), %rcx
	movq	R8(%rsp), %r8
	movq	R9(%rsp), %r9
	movq	RAX(%rsp), %rax
	leave
	RET
SYM_FUNC_END(xdt_tramp_entry)
