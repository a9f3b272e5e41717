// SPDX-License-Identifier: GPL-2.0
/*
 * aarch64 fbt: entry and return sites, and emulating what they displace.
 *
 * Entry: the kernel is built with -fpatchable-function-entry=2, and at boot
 * ftrace turns the two NOPs into `mov x9, x30; nop`; enabling ftrace on
 * the function later turns the NOP into `bl <ftrace trampoline>`.  xdt
 * patches that second NOP: nothing before it touches the arguments or the
 * stack, emulating it is pc += 4 (one trap per firing), and a NOP->BRK
 * swap is the cheapest kind of text change.  As on x86, the trade-off is
 * that ftrace owns the site: if ftrace has it live, enabling is refused,
 * writing nothing.  A `bti c` or `paciasp` landing pad in front (BTI/PAC
 * kernels; not this config) is stepped over, never patched.
 *
 * Functions without the ftrace NOPs (notrace) get no fbt probes, and the
 * reason is arm64's EL1 exception frame.  The entry code pushes pt_regs
 * immediately below the interrupted sp and the return pops it with
 * `add sp, sp, #PT_REGS_SIZE`: sp is never reloaded from pt_regs.  So
 * neither of the usual first instructions can be emulated in the handler:
 * `sub sp, sp, #N` would need sp changed (writing regs->sp does nothing --
 * found the hard way: the function then runs on an unadjusted stack), and
 * `stp x29, x30, [sp, #-N]!` would also store into the frame being
 * returned through.  Executing the instruction out of line, as kinst
 * will, is the way round that; refusing costs few functions (the count is
 * in `dtrace -l -v` and the issue note).
 *
 * Return: every `ret` in the function (the decoder walks it word by word;
 * A64 is fixed-width, so there are no boundaries to get wrong), emulated
 * as pc = Xn; and tail calls, a `b` whose target is outside the function,
 * emulated as the branch.  At a tail call the callee has not run yet, so
 * the return probe's arg1 (x0) is not a return value there; DTrace's fbt
 * has the same caveat.  `br` is not treated as a tail call: jump tables
 * use it inside the function.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	SITE_NOP = 1,		/* ftrace's NOP: skip it */
	SITE_RET,		/* ret Xn */
	SITE_TAIL,		/* b <outside the function> */
};

#define A64_NOP			0xd503201fu
#define A64_MOV_X9_X30		0xaa1e03e9u
#define A64_BTI_C		0xd503245fu
#define A64_PACIASP		0xd503233fu
#define A64_BL_MASK		0xfc000000u
#define A64_BL			0x94000000u

static bool read_insn(unsigned long addr, u32 *insn)
{
	return !copy_from_kernel_nofault(insn, (void *)addr, 4);
}

const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx)
{
	struct xdt_site_desc d = { .kind = 0 };
	unsigned long off = 0;
	u32 i0, i1, chunk[64];

	if (size < 8 || (addr & 3))
		return "too small or misaligned";
	if (!read_insn(addr, &i0))
		return "text not readable";
	if (i0 == A64_BTI_C || i0 == A64_PACIASP) {
		off = 4;
		if (!read_insn(addr + off, &i0))
			return "text not readable";
	}
	if (!read_insn(addr + off + 4, &i1))
		return "text not readable";
	if (i0 == A64_MOV_X9_X30 && (i1 & A64_BL_MASK) == A64_BL)
		return "ftrace owns the entry site";
	if ((i0 != A64_MOV_X9_X30 && i0 != A64_NOP) || i1 != A64_NOP)
		return "no ftrace NOP at entry (notrace; see fbt_isa.c)";
	d = (struct xdt_site_desc){ .addr = addr + off + 4, .off = off + 4,
				    .kind = SITE_NOP, .orig = i1,
				    .ftrace = true };
	if (add(ctx, &d))
		return "too many sites";

	/* The text is read 256 bytes at a time, not a fault-safe read each. */
	for (off = 0; off + 4 <= size; off += 4) {
		struct xdt_a64_insn in;
		unsigned long k = (off / 4) % ARRAY_SIZE(chunk);
		u32 w;

		if (!k && copy_from_kernel_nofault(chunk, (void *)(addr + off),
				min_t(unsigned long, size - off,
				      sizeof(chunk)) & ~3UL))
			return "text not readable";
		w = chunk[k];
		if (!xdt_a64_decode(w, &in))
			continue;
		d = (struct xdt_site_desc){ .is_return = true,
			.addr = addr + off, .off = off, .orig = w };
		if (in.cls == XDT_INSN_RET && ((w >> 5) & 31) != 31)
			d.kind = SITE_RET;
		else if (in.cls == XDT_INSN_JMP_REL &&
			 ((long)off + in.imm < 0 ||
			  (long)off + in.imm >= (long)size)) {
			d.kind = SITE_TAIL;
			d.aux = addr + off + in.imm;
		} else {
			continue;
		}
		if (add(ctx, &d))
			return "too many sites";
	}
	return NULL;
}

unsigned int __xdt_probe xdt_fbt_arch_args(struct xdt_site *s,
					   struct pt_regs *regs, u64 *args)
{
	unsigned int i;

	if (s->kind == SITE_RET || s->kind == SITE_TAIL) {
		args[0] = s->arg;
		args[1] = regs->regs[0];
		for (i = 2; i < XDT_NARGS; i++)
			args[i] = 0;
		return XDT_NARGS;
	}
	for (i = 0; i < 8; i++)
		args[i] = regs->regs[i];
	return 8;
}

/* Arguments past the eighth are on the stack, 8 bytes each. */
unsigned long __xdt_probe xdt_fbt_arch_stack_arg(struct xdt_site *s,
						 struct pt_regs *regs,
						 unsigned int i)
{
	return regs->sp + 8 * (i - 8);
}

void __xdt_probe xdt_fbt_arch_emulate(struct xdt_site *s, struct pt_regs *regs)
{
	u32 w = s->orig;

	switch (s->kind) {
	case SITE_NOP:
		regs->pc = s->addr + 4;
		break;
	case SITE_RET:
		regs->pc = regs->regs[(w >> 5) & 31];
		break;
	case SITE_TAIL:
		regs->pc = s->aux;
		break;
	}
}
