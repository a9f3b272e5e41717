/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ppc64le (Book3S-64, ELFv2, pseries): every instruction is one 32-bit
 * word, and xdt's breakpoint is `tw 31, r6, r23`.  TO = 31 traps whatever
 * the registers hold, so RA and RB are free to carry xdt's number, 0xd7
 * as in arm64's `brk #0xd7` (RA:RB = 00110:10111), and the word is xdt's
 * alone.  The kernel's own traps (6.1): kprobes, uprobes, xmon and the BPF
 * JIT's padding use `trap` (tw 31,0,0: 0x7fe00008); kgdb `twge r2,r2`
 * (0x7d821008); BUG()/WARN() `twi 31,0,0` and the conditional tdnei/twnei
 * of BUG_ON()/WARN_ON().  None is tw 31,r6,r23, so xdt_arch_is_patch() matches
 * only xdt's -- unlike x86 and riscv, whose hook tells theirs apart from
 * kprobes' by the site lookup alone.
 */
#ifndef XDT_ISA_H
#define XDT_ISA_H

#include <linux/types.h>
#include <linux/thread_info.h>

#define XDT_ISA_NAME		"ppc64le"
typedef u32 xdt_patchval_t;
/* tw 31, r6, r23: opcode 31, TO 31, RA 6, RB 23, XO 4 */
#define XDT_PATCHVAL		0x7fe6b808u
#define XDT_PATCH_LEN(v)	4

/*
 * An unaligned DIF load faults "invalid alignment", as DTrace's does on
 * every ISA but x86 (DTRACE_ALIGNCHECK).
 */
#define XDT_UNALIGNED_LOADS	0

/* program_check_exception is a plain interrupt handler: no NMI count. */
#define XDT_TRAP_NMI_ENTRY	0

/*
 * ftrace's assembly beyond the generic names providers/fbt.c refuses
 * (arch/powerpc/kernel/trace/ftrace_mprofile.S, 6.1): the profiling call's
 * target and the labels of the code ftrace rewrites.
 */
#define XDT_FTRACE_ARCH_CODE	"_mcount", "ftrace_regs_call", \
				"ftrace_call", "ftrace_graph_call", \
				"ftrace_tramp_text", "ftrace_tramp_init"

static inline xdt_patchval_t xdt_arch_patch_for(xdt_patchval_t orig)
{
	return XDT_PATCHVAL;
}

static inline bool xdt_arch_is_patch(xdt_patchval_t v)
{
	return v == XDT_PATCHVAL;
}

/*
 * A kernel function's argument @n (< 8) at its entry (a kprobe's regs), for
 * providers/stable.c: 6.1's powerpc has no regs_get_kernel_argument();
 * ELFv2 passes the first eight in r3-r10.
 */
#define xdt_arch_kernel_arg(regs, n)	((regs)->gpr[3 + (n)])

/*
 * The first frame of a leaf (huge) PUD mapping, for core/kmem.c's walk:
 * Book3S-64's pud_pfn() is a BUILD_BUG() (6.1: "all calls are gated
 * around pud_devmap()"), and pud_page() is not exported; a leaf PUD has
 * the PTE format.
 */
#define xdt_arch_pud_leaf_pfn(pud)	pte_pfn(pud_pte(pud))

/*
 * Any: copy_from_kernel_nofault() refuses what is not a kernel address
 * (is_kernel_addr, arch/powerpc/mm/maccess.c) and takes a storage
 * interrupt on the rest quietly.
 */
static inline bool xdt_arch_kaddr_ok(unsigned long a)
{
	return true;
}

/*
 * kinst trampoline slot: the instruction + xdt's trap (kinst is not yet
 * ported: kinst_isa.c refuses every function).
 */
#define XDT_XOL_SLOT		8
/* The out-of-line area's fill: 0x00000000 is illegal (primary opcode 0). */
#define XDT_XOL_FILL		0x00

/*
 * ELFv2 frames: r1 points at the back chain (the caller's r1), and a
 * function saves its return address in its caller's frame, 16 bytes
 * above the caller's r1.  So the "frame pointer" the core walks from is
 * the caller's r1 (*r1, see trap.c): there the back chain leads on and
 * the word at +16 is the return address into that caller.
 */
#define XDT_FRAME_NEXT		0
#define XDT_FRAME_RET		16

/*
 * The kernel's own walk (arch/powerpc/kernel/stacktrace.c, validate_sp)
 * keeps to the current stack: a back chain at least one minimal frame
 * (32 bytes in ELFv2) up, and below the top of its THREAD_SIZE-aligned
 * stack.
 */
static inline bool xdt_arch_frame_next_ok(unsigned long fp,
					  unsigned long next)
{
	return next >= fp + 32 && next <= ALIGN(fp, THREAD_SIZE);
}

/*
 * fbtmode=ftrace: ftrace_regs_caller saves a whole pt_regs with gpr[1]
 * the function's r1 at the call (6.1's ftrace_mprofile.S), so the ops
 * ask for SAVE_REGS and no bias.  (Not yet exercised on ppc64le.)
 */
#define XDT_FTRACE_OPS_FLAGS	FTRACE_OPS_FL_SAVE_REGS
#define XDT_FTRACE_SP_BIAS	0
/* pt_regs' stack pointer (r1), an lvalue (core/fentry.c: the bias). */
#define XDT_REGS_SP(regs)	((regs)->gpr[1])
/* No fbtmode=trampoline yet. */
#define XDT_HAVE_TRAMP		0
/* Conditional returns (beqlr...) fire only when taken: fbt_isa.c. */
#define XDT_FBT_FIRES		xdt_fbt_arch_fires

#endif
