/* SPDX-License-Identifier: GPL-2.0 */
/*
 * riscv64: `ebreak` over a 4-byte instruction, `c.ebreak` over a 2-byte
 * (compressed) one, so a site never covers more than the instruction it
 * displaces and no jump into the middle of a patch is possible.  The
 * kernel's BUG()/WARN() and kprobes use the same two instructions; the
 * trap hook tells xdt's apart by address (a site lookup), before kprobes
 * and the BUG table see the trap.
 */
#ifndef XDT_ISA_H
#define XDT_ISA_H

#include <linux/types.h>
#include <linux/thread_info.h>

#define XDT_ISA_NAME		"riscv64"
typedef u32 xdt_patchval_t;
#define XDT_EBREAK		0x00100073u
#define XDT_C_EBREAK		0x9002u
/* The low two bits are 11 for a 32-bit instruction, anything else for RVC. */
/*
 * An unaligned DIF load faults "invalid alignment", as DTrace's does on
 * every ISA but x86 (DTRACE_ALIGNCHECK), though this CPU could do it.
 */
#define XDT_UNALIGNED_LOADS	0

/* do_trap_break leaves preempt_count as it was (6.1). */
#define XDT_TRAP_NMI_ENTRY	0

/* ftrace's assembly beyond the generic names (mcount-dyn.S's labels and the mcount target) */
#define XDT_FTRACE_ARCH_CODE	"_mcount", "ftrace_graph_regs_call", "ftrace_stub_graph"
#define XDT_PATCH_LEN(v)	(((v) & 3) == 3 ? 4 : 2)

static inline xdt_patchval_t xdt_arch_patch_for(xdt_patchval_t orig)
{
	return XDT_PATCH_LEN(orig) == 4 ? XDT_EBREAK : XDT_C_EBREAK;
}

/* A kernel function's argument @n at its entry (providers/stable.c). */
#define xdt_arch_kernel_arg(regs, n)	regs_get_kernel_argument(regs, n)

/* The first frame of a leaf (huge) PUD mapping: core/kmem.c's walk. */
#define xdt_arch_pud_leaf_pfn(pud)	pud_pfn(pud)

/*
 * Any: a load from a non-canonical address is a page fault, which
 * copy_from_kernel_nofault() takes quietly.
 */
static inline bool xdt_arch_kaddr_ok(unsigned long a)
{
	return true;
}

static inline bool xdt_arch_is_patch(xdt_patchval_t v)
{
	return v == XDT_EBREAK || v == XDT_C_EBREAK;
}

/*
 * With frame pointers s0 is the frame's CFA (the caller's sp): the return
 * address is stored just below it and the caller's s0 below that.
 */
/* kinst trampoline slot: the instruction (2 or 4 bytes) + ebreak. */
#define XDT_XOL_SLOT		8
/*
 * The byte the out-of-line area is filled with (core/xol.c): c.unimp/unimp,
 * illegal, should a fill byte ever run.
 */
#define XDT_XOL_FILL		0x00

#define XDT_FRAME_NEXT		(-16)
#define XDT_FRAME_RET		(-8)

/*
 * Where the frame chain leaves the kernel stack.  riscv64 6.1 has no
 * frame record marking the kernel's entry: handle_exception loads s0 with
 * the user sp, and handle_syscall then jumps to the system call through
 * s0 (jalr s0), so the call's frame record holds, as its caller's s0, the
 * address of the system call's own function (sys_read...) -- kernel
 * text, above every stack, which the core's "moves up" test lets through, and
 * the walk read two words of instructions as a frame (a garbage return
 * address after ret_from_syscall).  The kernel's own walk_stackframe
 * (arch/riscv/kernel/stacktrace.c, fp_is_valid) takes the next frame
 * pointer only within the current stack: at least one record above the
 * current one and at most the top of its THREAD_SIZE-aligned stack
 * (6.1's riscv has no separate IRQ stacks: interrupts nest on the task
 * stack).  The same criterion here.
 */
static inline bool xdt_arch_frame_next_ok(unsigned long fp,
					  unsigned long next)
{
	return next >= fp + 16 && next <= ALIGN(fp, THREAD_SIZE);
}
/*
 * fbtmode=ftrace: riscv64's plain ftrace_caller saves an argument area
 * that is not a pt_regs; ftrace_regs_caller saves all of them.
 */
#define XDT_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
/*
 * ... and 6.1's SAVE_ALL stores sp after making room for the pt_regs, so
 * regs->sp is that much below the function's sp (stack arguments would be
 * read from the wrong place).  RESTORE_ALL reloads sp from regs->sp, so
 * the handler adds this for the firing only.
 */
#define XDT_HAVE_TRAMP		1	/* tramp.c: xdt writes the call */
/* Every fbt return site is unconditional: each trap fires. */
#define XDT_FBT_FIRES		NULL
#define XDT_TRAMP_NOP		0x00000013u	/* ftrace's nops (addi x0,x0,0) */
#define XDT_FTRACE_SP_BIAS	ALIGN(sizeof(struct pt_regs), 16)
/* pt_regs' stack pointer, as an lvalue (core/fentry.c applies the bias). */
#define XDT_REGS_SP(regs)	((regs)->sp)

#endif
