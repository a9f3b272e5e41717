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
 * kinst_isa.c
 *            Classify every instruction of a function for kinst, build
 *            out-of-line trampolines, emulate what is not run out of line.
 * tramp.c, tramp_entry.S
 *            Optional (XDT_HAVE_TRAMP): fbtmode=trampoline, xdt's own
 *            call at an fbt entry site (docs/mechanisms.md).
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
 *   xdt_arch_kaddr_ok(a)     whether a D program's load from @a may go to
 *                            the page-table walk and the kernel's nofault
 *                            copy at all (probe context): false for an
 *                            address the CPU refuses outright rather
 *                            than faults on, which the walk -- blind to
 *                            the bits above the paging's range -- would
 *                            take for its alias
 *   xdt_arch_kernel_arg(regs, n)
 *                            a kernel function's argument @n (< 6) at its
 *                            entry, for providers/stable.c's kprobes:
 *                            regs_get_kernel_argument() where 6.1 has it
 *                            (not on powerpc)
 *   xdt_arch_pud_leaf_pfn(pud)
 *                            the first page frame of a leaf (huge) PUD
 *                            mapping, for core/kmem.c's walk: pud_pfn()
 *                            where the ISA has it (not Book3S-64's)
 *   XDT_XOL_SLOT             bytes of one kinst trampoline slot (a power
 *                            of two, at least the longest instruction
 *                            plus the way back)
 *   XDT_TRAP_NMI_ENTRY       1 when the kernel's entry code counts a
 *                            kernel-mode breakpoint as an NMI in
 *                            preempt_count (x86_64's exc_int3), which the
 *                            `ipl` variable then takes off for a firing
 *                            from xdt's own breakpoint; 0 otherwise
 *   XDT_XOL_FILL             the byte the slots' area is filled with
 *                            before any is written (a trap or an
 *                            undefined instruction, never run)
 *   XDT_FTRACE_OPS_FLAGS     ftrace_ops flags fbtmode=ftrace needs so that
 *                            its handler's ftrace_regs begin with a
 *                            pt_regs holding what xdt_fbt_arch_args and
 *                            xdt_arch_stack_start read (0 when the
 *                            ISA's plain ftrace_caller saves those;
 *                            FTRACE_OPS_FL_SAVE_REGS otherwise)
 *   XDT_FTRACE_SP_BIAS       what to add to those regs' sp for the
 *                            function's sp at its entry
 *   XDT_REGS_SP(regs)        pt_regs' stack pointer as an lvalue (->sp,
 *                            ppc64le's ->gpr[1])
 *   XDT_HAVE_TRAMP           1 when tramp.c gives fbtmode=trampoline
 *   XDT_FBT_FIRES            NULL when every fbt site fires whenever it
 *                            traps; else xdt_fbt_arch_fires, for an ISA
 *                            whose return sites may be conditional
 *                            (ppc64le's beqlr): a trap there fires only
 *                            if the branch is taken
 *   XDT_FTRACE_ARCH_CODE     the ISA's own ftrace assembly symbols
 *                            (beyond the generic ftrace_caller & co. in
 *                            providers/fbt.c) that ftrace copies or
 *                            rewrites: a string list, fbt and kinst
 *                            refuse them
 *   XDT_TRAMP_REGS_LATE(regs)
 *                            optional: fill what the trampoline left out
 *                            of its pt_regs (x86_64: ip, sp, bp), called
 *                            only when a firing takes the general path
 *   XDT_TRAMP_MAX            optional: at most this many trampoline sites
 *                            at once (a limit of what the ISA's
 *                            trampolines go through); fbt gives the
 *                            rest the breakpoint
 *   XDT_FRAME_NEXT, XDT_FRAME_RET
 *                            where a frame record keeps the caller's frame
 *                            pointer and the return address, as byte
 *                            offsets from the frame pointer
 *   xdt_arch_frame_next_ok(fp, next)
 *                            probe context: may stack() walk on from the
 *                            frame at @fp to its caller's at @next (already
 *                            known to be above @fp)?  false where @next
 *                            has left the kernel stack, e.g. the entry
 *                            code's s0 on riscv64; true where the entry
 *                            code's own record ends the chain
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
 * frame record of its own in place (fbt entry and return sites; kinst
 * sites whose @frame is not 1), store the function's return address at
 * @ret and the frame pointer of its caller at @fp.  @frame is 0 for fbt,
 * the kinst site's frame state otherwise (values above 1 are the ISA's,
 * e.g. x86's "%rbp pushed, not yet moved").  Returns false if they cannot
 * be read.  The core walks on from @fp with the frame layout isa.h gives
 * (XDT_FRAME_NEXT, XDT_FRAME_RET).
 */
bool xdt_arch_stack_start(struct pt_regs *regs, u8 frame, u64 *ret,
			  unsigned long *fp);

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
	bool ftrace;			/* entry: the site is ftrace's call
					   site (its record's ip), so
					   fbtmode=ftrace can take it */
};
typedef int (*xdt_fbt_add_t)(void *ctx, const struct xdt_site_desc *d);
const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx);

/*
 * Probe context.  Called for a site that trapped: fill @args with the probe
 * arguments that cost no memory access and return how many that is (entry:
 * the function's register arguments; return: all XDT_NARGS -- arg0 = offset
 * of the return site, arg1 = the return value register (at a tail-call site
 * the callee has not run yet, so it holds no return value), the rest 0).
 * Entry arguments past those are loaded from the address
 * xdt_fbt_arch_stack_arg() gives for argument @i (fault-safe, by the core),
 * only if a clause reads them.
 * Then xdt_fbt_arch_emulate() runs the displaced instruction so the
 * function resumes after it.  One trap per firing: the emulation must leave
 * @regs exactly as executing the instruction would.
 */
unsigned int xdt_fbt_arch_args(struct xdt_site *site, struct pt_regs *regs,
			       u64 *args);
unsigned long xdt_fbt_arch_stack_arg(struct xdt_site *site,
				     struct pt_regs *regs, unsigned int i);
void xdt_fbt_arch_emulate(struct xdt_site *site, struct pt_regs *regs);
/*
 * Probe context, where isa.h's XDT_FBT_FIRES names it: whether the site
 * that trapped fires (a conditional return: whether it returns); false
 * only emulates.  Without it a conditional return fires when not taken.
 */
bool xdt_fbt_arch_fires(struct xdt_site *site, struct pt_regs *regs);

/* ---- kinst_isa.c ---------------------------------------------------------- */
/*
 * kinst: a probe on any instruction.  The ISA decodes a function and says,
 * for every instruction boundary in order, either why it gets no probe
 * (@why: a string literal of at most 63 characters, e.g. "inside an
 * ldxr/stxr sequence"), or how the displaced instruction will be carried
 * out when the site traps:
 *   @xol false  emulated in the handler (branches, calls, returns,
 *               PC-relative loads...): one trap per firing;
 *   @xol true   executed out of line from a trampoline slot in xdt.ko's
 *               own text that the core allocates (XDT_XOL_SLOT bytes,
 *               isa.h) and the ISA fills (xdt_kinst_arch_xol).
 * @frame is 1 when the function's own frame record is in place at the
 * instruction (the frame pointer register points at it), so stack() starts
 * from that record; otherwise stack() starts from the return address
 * (xdt_arch_stack_start, which is handed @frame: 0 before the prologue and
 * after the epilogue, ISA-defined values above 1 for states in between).
 * @kind and @aux are the ISA's, copied into the site; @orig is what the
 * patch displaces (isa.h).  Not probe context.
 */
struct xdt_kinst_desc {
	u32 off;			/* from the function's start */
	u8 len;				/* instruction length in bytes */
	u8 kind;
	bool xol;
	u8 frame;			/* 0 none, 1 own record, 2+ ISA's */
	xdt_patchval_t orig;
	unsigned long aux;
	const char *why;		/* non-NULL: refused */
};
typedef int (*xdt_kinst_add_t)(void *ctx, const struct xdt_kinst_desc *d);

/*
 * Call @add for every instruction of [@addr, @addr + @size), in address
 * order, from its first byte.  Returns NULL, or why the function gets no
 * kinst probes at all (e.g. it does not decode to its end: offsets after
 * an undecodable byte would be guesses).
 */
const char *xdt_kinst_arch_sites(unsigned long addr, unsigned long size,
				 xdt_kinst_add_t add, void *ctx);

/*
 * Build the trampoline of out-of-line site @s, to run at address @slot,
 * into @buf (XDT_XOL_SLOT bytes): the instruction, relocated if it has to
 * be, then the way back to the function -- a jump to the next
 * instruction, or the ISA's breakpoint, in which case set s->resume to
 * where that second trap continues (the core handles it: a trap anywhere
 * in a slot resumes at its site's s->resume).  Return the length, or 0
 * with *@why set when the instruction cannot run at @slot (e.g. a
 * displacement that does not reach).  Not probe context.
 */
unsigned int xdt_kinst_arch_xol(struct xdt_site *s, unsigned long slot,
				u8 *buf, const char **why);

/*
 * Probe context.  Site @s trapped and its probe fired (or is only being
 * passed, nested): make @regs resume as if the displaced instruction had
 * executed -- emulate it, or set the PC to the trampoline, s->xol.
 */
void xdt_kinst_arch_emulate(struct xdt_site *s, struct pt_regs *regs);

/* trap.c, for kinst: */
/*
 * Write @len bytes at @dst, inside xdt.ko's own text (trampoline slots,
 * never executing while written), and make them visible to instruction
 * fetch on every CPU.  May sleep.
 */
int xdt_arch_text_copy(void *dst, const void *src, size_t len);
/* Probe context: the frame pointer register of @regs. */
unsigned long xdt_arch_frame_pointer(struct pt_regs *regs);

/* ---- tramp.c (fbtmode=trampoline), where XDT_HAVE_TRAMP ------------------ */
/*
 * xdt's own call at an fbt entry site (one whose desc had .ftrace): the
 * ISA's trampoline saves the argument registers, the return address and
 * the stack and frame pointers in a pt_regs as its breakpoint would see
 * them at the site (or leaves some to XDT_TRAMP_REGS_LATE, isa.h), and calls xdt_fentry_tramp_fire(site address, regs).
 * on: route every site of @sites there, all or none, in one batch.  off:
 * back to the original bytes (sites going have live == 3; the ISA may
 * rebuild what it batched for the others).  exit: nothing left routed.
 * May sleep; xdt_lock held.
 */
/*
 * Can the site take the trampoline now (in reach; where the ISA writes the
 * call itself, the site still holds its original bytes)?  fbt asks when
 * it builds its probes and again when it chooses a mechanism.
 */
bool xdt_arch_tramp_ok(unsigned long site);
int xdt_arch_tramp_on(struct xdt_site **sites, unsigned int n);
/*
 * An ISA that writes the call itself (no ftrace direct calls) defines
 * XDT_TRAMP_NOP (isa.h: the word its entry NOPs are) and gives the call's
 * words at @site (returns how many, at most 2); the core then provides
 * on, off and exit (xdt_tramp_write, core/fentry.c).
 */
unsigned int xdt_arch_tramp_call(unsigned long site, u32 *w);
int xdt_tramp_write(struct xdt_site **sites, unsigned int n, bool on);
void xdt_arch_tramp_off(struct xdt_site **sites, unsigned int n);
void xdt_arch_tramp_exit(void);

/* ---- user_isa.c: user space (the pid provider) ----------------------------- */
/*
 * Probe context (a uprobe's handler, in the traced thread).  @regs are a
 * user thread's registers at the first instruction of a function: fill
 * @args with the arguments the ISA's user ABI passes in registers and
 * return how many; the user address of entry argument @i past those (on
 * the user stack) comes from xdt_uarch_stack_arg().  The kernel's own
 * uprobes do the trapping, single-stepping and return hijacking on every
 * ISA 6.1 has them for: an ISA gives only the ABI here.
 */
unsigned int xdt_uarch_args(struct pt_regs *regs, u64 *args);
unsigned long xdt_uarch_stack_arg(struct pt_regs *regs, unsigned int i);
/*
 * Probe context, for ustack().  The user frame pointer register of @regs
 * (user registers); and at a function's first instruction, where its
 * frame record is not made yet, its return address (fault-safe, from the
 * user stack or the link register): false if it cannot be read.  The walk
 * goes on with isa.h's XDT_FRAME_NEXT and XDT_FRAME_RET, the same layout
 * the ISA's user code has with frame pointers.
 */
unsigned long xdt_uarch_frame_pointer(struct pt_regs *regs);
bool xdt_uarch_entry_ret(struct pt_regs *regs, u64 *ret);
/*
 * Not probe context: the pid provider's offset probes.  The user
 * instruction at @p (@avail bytes of a function's text, read from the
 * process): its length, or 0 when the lengths of it and what follows are
 * unknown.  A decodable instruction that must get no probe sets @why to a
 * string literal of at most 63 characters (as kinst's refusals): an
 * existing breakpoint, an instruction of an exclusive sequence (a trap
 * there clears the monitor), one the decoder cannot classify.
 */
unsigned int xdt_uarch_insn(const u8 *p, size_t avail, const char **why);
/*
 * Probe context: uregs[@i] of user registers @regs, the ISA's register
 * numbering (user_isa.c's table, which names them for D); false for an
 * index past it.
 */
bool xdt_uarch_reg(struct pt_regs *regs, u64 i, u64 *v);
/*
 * Not probe context.  The name of uregs[@i] ("R_PC"), NULL past the
 * table; and the uregs name of a register as the ISA's assembler spells
 * it in a USDT note's argument (x86's "edi" or "r8d" is R_RDI or R_R8,
 * arm64's "w1" R_X1, riscv's "a0" R_A0), written to @buf: false for a
 * register the table does not hold.  The value's width is the note's.
 */
const char *xdt_uarch_ureg_name(u64 i);
bool xdt_uarch_sdt_reg(const char *as, char *buf, size_t len);

/* ---- provided by the core for the ISA ------------------------------------ */
/* Probe context: see trap.c above. */
bool xdt_trap(struct pt_regs *regs, unsigned long addr);

#endif
