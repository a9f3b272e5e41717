/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86_64: a one-byte int3 over the first byte of the displaced instruction.
 * One byte is the only patch x86 can write atomically over any instruction
 * boundary while other CPUs may be executing it (text_poke_bp() starts the
 * same way), and int3 is the only one-byte trap.
 */
#ifndef XDT_ISA_H
#define XDT_ISA_H

#include <linux/types.h>
#include <asm/page.h>

#define XDT_ISA_NAME		"x86_64"
typedef u8 xdt_patchval_t;
#define XDT_PATCHVAL		0xcc	/* int3 */
#define XDT_PATCH_LEN(v)	1
/*
 * DIF loads at any alignment: DTrace checks alignment everywhere but x86
 * (its DTRACE_ALIGNCHECK; the suite's pointers/err.InvalidAddress5.d).
 */
#define XDT_UNALIGNED_LOADS	1

/*
 * exc_int3 enters a kernel-mode breakpoint as an NMI (irqentry_nmi_enter:
 * NMI_OFFSET + HARDIRQ_OFFSET in preempt_count), which `ipl` takes off
 * again for a firing from xdt's own breakpoint (core/kmem.c xdt_ipl).
 */
#define XDT_TRAP_NMI_ENTRY	1

/* ftrace's assembly beyond the generic names (the fentry call target and the labels of ftrace_64.S) */
#define XDT_FTRACE_ARCH_CODE	"__fentry__", "ftrace_epilogue", "ftrace_stub_graph"

/* A kernel function's argument @n at its entry (providers/stable.c). */
#define xdt_arch_kernel_arg(regs, n)	regs_get_kernel_argument(regs, n)

/* The first frame of a leaf (huge) PUD mapping: core/kmem.c's walk. */
#define xdt_arch_pud_leaf_pfn(pud)	pud_pfn(pud)

/*
 * Canonical for the paging in use (4- or 5-level).  A non-canonical load
 * is a #GP, not a page fault: copy_from_kernel_nofault() survives it but
 * warns ("General protection fault in user access"), and 6.1 lets one
 * through when the CPU has LA57 and the kernel runs 4-level paging (its
 * check uses the CPU's 57 bits; the debug kernel boots no5lvl).
 */
static inline bool xdt_arch_kaddr_ok(unsigned long a)
{
	return __is_canonical_address(a, __VIRTUAL_MASK_SHIFT + 1);
}

static inline xdt_patchval_t xdt_arch_patch_for(xdt_patchval_t orig)
{
	return XDT_PATCHVAL;
}

static inline bool xdt_arch_is_patch(xdt_patchval_t v)
{
	return v == XDT_PATCHVAL;
}

/* push %rbp; mov %rsp,%rbp: [rbp] = caller's rbp, [rbp + 8] = return. */
/* kinst trampoline slot: the longest instruction (15) + jmp rel32 back (5). */
#define XDT_XOL_SLOT		32
/*
 * The byte the out-of-line area is filled with (core/xol.c): int3, which
 * objtool takes for traps and so does not report as unreachable code.
 */
#define XDT_XOL_FILL		0xcc

/* kinst frame state between push %rbp and mov %rsp,%rbp (kinst_isa.c). */
#define XDT_X86_FRAME_PUSHED	2

#define XDT_FRAME_NEXT		0
#define XDT_FRAME_RET		8

/*
 * The walk needs no bound past the core's: the entry code's frame ends the
 * chain (x86's irq and exception stacks chain into the task stack, so
 * a frame pointer may leave the current stack and still be right).
 */
static inline bool xdt_arch_frame_next_ok(unsigned long fp,
					  unsigned long next)
{
	return true;
}
/*
 * fbtmode=ftrace: with DYNAMIC_FTRACE_WITH_ARGS, ftrace_caller saves the
 * argument registers, %rbp, and %rsp pointing at the return address --
 * all fbt reads -- so the cheaper caller will do (no SAVE_REGS).
 */
#define XDT_FTRACE_OPS_FLAGS	0
#define XDT_FTRACE_SP_BIAS	0	/* regs->sp is the function's */
/* pt_regs' stack pointer, as an lvalue (core/fentry.c applies the bias). */
#define XDT_REGS_SP(regs)	((regs)->sp)
#define XDT_HAVE_TRAMP		1	/* tramp.c: ftrace direct calls */
/* Every fbt return site is unconditional: each trap fires. */
#define XDT_FBT_FIRES		NULL
/*
 * At most this many trampoline sites at once; fbt's others take the
 * breakpoint.  6.1's direct-call hash (direct_functions) stops growing at 4096
 * buckets, and above 8192 functions every one added copies the whole hash
 * and leaks the copy it replaces, but the last of each
 * register_ftrace_direct_multi() (its single free_hash): fbt:::entry's
 * 18.7k functions took 260 MB of slab for good per GO.  The margin leaves
 * room for other direct-call users (BPF trampolines).
 */
#define XDT_TRAMP_MAX		7680
/*
 * tramp_entry.S leaves the pt_regs' ip, sp and bp unwritten: only the
 * general firing reads them, and writing them on every firing was 5 of a
 * count()'s ~130 instructions.  Its frame gives them: @regs sit right
 * below the trampoline's saved %rbp (the function's, at its entry), above
 * which are f+5 (the call's return) and the function's own return address,
 * where its %rsp pointed at entry.
 */
#define XDT_TRAMP_REGS_LATE(regs)					\
	do {								\
		unsigned long *fr_ = (unsigned long *)((regs) + 1);	\
									\
		(regs)->bp = fr_[0];					\
		(regs)->ip = fr_[1];					\
		(regs)->sp = (unsigned long)&fr_[2];			\
	} while (0)

#endif
