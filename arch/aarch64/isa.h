/* SPDX-License-Identifier: GPL-2.0 */
/*
 * aarch64: BRK #0x0d7 over the displaced instruction (all A64 instructions
 * are 4 bytes, so one patch value fits every site).
 *
 * The immediate is xdt's own so the kernel's break-hook list routes the
 * exception to xdt and nobody else.  Immediates in use in 6.1
 * (asm/brk-imm.h): kprobes 0x004 and its single-step 0x006, uprobes 0x005,
 * the fault/BPF-JIT trap 0x100, kgdb 0x400/0x401, BUG/WARN 0x800, KASAN
 * 0x900-0x9ff, kCFI 0x8000-0x83ff; user-space debuggers use #0 (gdb) and
 * #0xf000 (lldb), but only EL1 breaks reach the kernel hooks.  0x0d7 is in
 * no range and reads as "DT" in the disassembly.
 */
#ifndef XDT_ISA_H
#define XDT_ISA_H

#include <linux/types.h>

#define XDT_ISA_NAME		"aarch64"
typedef u32 xdt_patchval_t;
#define XDT_BRK_IMM		0x0d7
#define XDT_PATCHVAL		(0xd4200000u | (XDT_BRK_IMM << 5))	/* brk */
/*
 * An unaligned DIF load faults "invalid alignment", as DTrace's does on
 * every ISA but x86 (DTRACE_ALIGNCHECK), though this CPU could do it.
 */
#define XDT_UNALIGNED_LOADS	0

/* A brk from EL1 leaves preempt_count as it was (arm64_enter_el1_dbg). */
#define XDT_TRAP_NMI_ENTRY	0

/* ftrace's assembly beyond the generic names (entry-ftrace.S's shared body and graph stub) */
#define XDT_FTRACE_ARCH_CODE	"ftrace_common", "ftrace_stub_graph"
#define XDT_PATCH_LEN(v)	4

static inline xdt_patchval_t xdt_arch_patch_for(xdt_patchval_t orig)
{
	return XDT_PATCHVAL;
}

/* A kernel function's argument @n at its entry (providers/stable.c). */
#define xdt_arch_kernel_arg(regs, n)	regs_get_kernel_argument(regs, n)

/* The first frame of a leaf (huge) PUD mapping: core/kmem.c's walk. */
#define xdt_arch_pud_leaf_pfn(pud)	pud_pfn(pud)

/*
 * Any: a load outside the kernel's translation range is a translation
 * fault, which copy_from_kernel_nofault() takes quietly.
 */
static inline bool xdt_arch_kaddr_ok(unsigned long a)
{
	return true;
}

static inline bool xdt_arch_is_patch(xdt_patchval_t v)
{
	return v == XDT_PATCHVAL;
}

/* AAPCS64 frame record: [x29] = caller's x29, [x29 + 8] = x30. */
/* kinst trampoline slot: the instruction + a b back (or a brk when out of range). */
#define XDT_XOL_SLOT		8
/*
 * The byte the out-of-line area is filled with (core/xol.c): udf #0,
 * permanently undefined, should a fill byte ever run.
 */
#define XDT_XOL_FILL		0x00

#define XDT_FRAME_NEXT		0
#define XDT_FRAME_RET		8

/*
 * The walk needs no bound past the core's: the entry code leaves a final
 * frame record (fp 0) in pt_regs, which ends the chain, and the irq stack
 * chains into the task stack.
 */
static inline bool xdt_arch_frame_next_ok(unsigned long fp,
					  unsigned long next)
{
	return true;
}
/*
 * fbtmode=ftrace: arm64's ftrace_caller saves x0-x8, x29, sp and the
 * caller's x30 (as regs[30]): all fbt reads, so no SAVE_REGS.
 */
#define XDT_FTRACE_OPS_FLAGS	0
#define XDT_HAVE_TRAMP		1	/* tramp.c: xdt writes the call */
/* Every fbt return site is unconditional: each trap fires. */
#define XDT_FBT_FIRES		NULL
#define XDT_TRAMP_NOP		0xd503201fu	/* ftrace's second word */
#define XDT_FTRACE_SP_BIAS	0	/* regs->sp is the function's */
/* pt_regs' stack pointer, as an lvalue (core/fentry.c applies the bias). */
#define XDT_REGS_SP(regs)	((regs)->sp)

#endif
