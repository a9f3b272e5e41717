// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le fbt: entry and return sites, and emulating what they displace.
 *
 * Entry: the kernel is built with -mprofile-kernel, so every traceable
 * function begins (after the ELFv2 global entry's TOC setup, `addis r2,
 * r12, hi; addi r2, r2, lo`, when it has one) with `mflr r0; bl _mcount`,
 * and ftrace_init() turns the bl into a nop at boot.  xdt patches that
 * nop: it comes after the local entry point, so calls through either
 * entry meet it; nothing before it touches the arguments or the stack
 * (mflr r0 only copies LR); and emulating it is nip += 4, one trap per
 * firing.  As on the other ISAs, ftrace owns the site: a bl there means
 * ftrace has it live, and enabling is refused, writing nothing.  Older
 * compilers put `std r0, 16(r1)` between the two; it is stepped over.
 * A function without the call (notrace) gets no fbt probes, as on arm64:
 * powerpc builds whole files without -mprofile-kernel where tracing is
 * unsafe (real mode, the paca and soft-mask code of interrupt entry and
 * exit, time.c), and nothing marks them apart from an `inline` that
 * became notrace.  Trapping their opening `mflr r0` (emulated r0 = LR)
 * was tried: test_every_entry_probe_at_once died in a loop of NULL
 * dereferences (get_running_cputimer: `current` not valid there).
 *
 * Return: every unconditional `blr` (the words are walked one by one:
 * every instruction is 4 bytes), emulated as nip = LR; and tail calls, a
 * `b` whose target is outside the function, emulated as the branch.  At a
 * tail call the callee has not run yet, so arg1 (r3) is no return value
 * there, as with DTrace's fbt.  `bctr` is not taken for a tail call: jump
 * tables use it too.  A conditional return (`beqlr`...) and a conditional
 * branch out of the function are return sites that fire only when taken
 * (xdt_fbt_arch_fires, isa.h's XDT_FBT_FIRES): the condition is CR bit BI
 * against BO's; the CTR-decrementing forms (bdnzlr...) are refused.
 *
 * regs->nip is written with regs_set_return_ip(): 6.1's Book3S-64
 * interrupt exit reloads SRR0 from pt_regs only when told it changed.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	SITE_NOP = 1,		/* ftrace's nop: skip it */
	SITE_RET,		/* blr */
	SITE_TAIL,		/* b <outside the function> */
	SITE_CRET,		/* bclr on a CR bit: returns if it holds */
	SITE_CTAIL,		/* bc on a CR bit to outside the function */
};

/* BO: 1 in 0x10 = no CR test, else branch if CR[BI] == BO's 0x08 bit;
 * 0 in 0x04 = decrement CTR and test it (not taken on). */
#define BO_NO_CR		0x10
#define BO_CR_TRUE		0x08
#define BO_NO_CTR		0x04


#define PPC_NOP			0x60000000u	/* ori 0,0,0 */
#define PPC_MFLR_R0		0x7c0802a6u
#define PPC_STD_R0_16_R1	0xf8010010u
#define PPC_HI_MASK		0xffff0000u
#define PPC_ADDIS_R2_R12	0x3c4c0000u
#define PPC_ADDI_R2_R2		0x38420000u
#define PPC_BL_MASK		0xfc000003u
#define PPC_BL			0x48000001u

static bool read_insn(unsigned long addr, u32 *insn)
{
	return !copy_from_kernel_nofault(insn, (void *)addr, 4);
}

/* The offset of ftrace's call site, or why there is none. */
static const char *entry_site(unsigned long addr, unsigned long size,
			      unsigned long *site, u32 *w)
{
	unsigned long off = 0;
	u32 i0, i1;

	if (!read_insn(addr, &i0) || !read_insn(addr + 4, &i1))
		return "text not readable";
	if ((i0 & PPC_HI_MASK) == PPC_ADDIS_R2_R12 &&
	    (i1 & PPC_HI_MASK) == PPC_ADDI_R2_R2) {
		off = 8;
		if (!read_insn(addr + off, &i0))
			return "text not readable";
	}
	if (i0 != PPC_MFLR_R0)
		return "no ftrace NOP at entry (notrace)";
	off += 4;
	if (!read_insn(addr + off, w))
		return "text not readable";
	if (*w == PPC_STD_R0_16_R1) {
		off += 4;
		if (!read_insn(addr + off, w))
			return "text not readable";
	}
	if ((*w & PPC_BL_MASK) == PPC_BL)
		return "ftrace owns the entry site";
	if (*w != PPC_NOP || off + 4 > size)
		return "no ftrace NOP at entry (notrace)";
	*site = off;
	return NULL;
}

const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx)
{
	struct xdt_site_desc d;
	unsigned long off;
	const char *why;
	u32 w, chunk[64];

	if (size < 12 || (addr & 3))
		return "too small or misaligned";
	why = entry_site(addr, size, &off, &w);
	if (why)
		return why;
	d = (struct xdt_site_desc){ .addr = addr + off, .off = off,
				    .kind = SITE_NOP, .orig = w,
				    .ftrace = true };
	if (add(ctx, &d))
		return "too many sites";

	/* The text is read 256 bytes at a time, not a fault-safe read each. */
	for (off = 0; off + 4 <= size; off += 4) {
		struct xdt_ppc_insn in;
		unsigned long k = (off / 4) % ARRAY_SIZE(chunk);
		bool out;

		if (!k && copy_from_kernel_nofault(chunk, (void *)(addr + off),
				min_t(unsigned long, size - off,
				      sizeof(chunk)) & ~3UL))
			return "text not readable";
		w = chunk[k];
		xdt_ppc_decode(w, &in);
		out = (long)off + in.imm < 0 ||
		      (long)off + in.imm >= (long)size;
		d = (struct xdt_site_desc){ .is_return = true,
			.addr = addr + off, .off = off, .orig = w };
		if ((in.cls == XDT_INSN_RET ||
		     (in.cls == XDT_INSN_JCC_REL && out)) &&
		    in.cond && !(in.bo & BO_NO_CTR))
			return "CTR-decrementing return or tail call (bdnz)";
		if (in.cls == XDT_INSN_RET) {
			d.kind = in.cond ? SITE_CRET : SITE_RET;
		} else if (in.cls == XDT_INSN_JMP_REL && out) {
			d.kind = SITE_TAIL;
			d.aux = addr + off + in.imm;
		} else if (in.cls == XDT_INSN_JCC_REL && out) {
			/* the condition is read again from .orig */
			d.kind = SITE_CTAIL;
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

	if (s->kind != SITE_NOP) {
		args[0] = s->arg;
		args[1] = regs->gpr[3];
		for (i = 2; i < XDT_NARGS; i++)
			args[i] = 0;
		return XDT_NARGS;
	}
	for (i = 0; i < 8; i++)
		args[i] = regs->gpr[3 + i];
	return 8;
}

/*
 * ELFv2: past the eight register arguments, the caller's parameter save
 * area, 32 bytes above its r1 (back chain, CR and LR save words, TOC save
 * word), has a doubleword for every argument, the first eight included.
 */
unsigned long __xdt_probe xdt_fbt_arch_stack_arg(struct xdt_site *s,
						 struct pt_regs *regs,
						 unsigned int i)
{
	return regs->gpr[1] + 32 + 8 * i;
}

/* Whether the conditional branch @insn (BO, BI: CR only) is taken. */
static bool __xdt_probe cr_taken(u32 insn, struct pt_regs *regs)
{
	unsigned int bo = (insn >> 21) & 31, bi = (insn >> 16) & 31;

	if (bo & BO_NO_CR)
		return true;
	return ((regs->ccr >> (31 - bi)) & 1) == !!(bo & BO_CR_TRUE);
}

bool __xdt_probe xdt_fbt_arch_fires(struct xdt_site *s, struct pt_regs *regs)
{
	if (s->kind == SITE_CRET || s->kind == SITE_CTAIL)
		return cr_taken(s->orig, regs);
	return true;
}

void __xdt_probe xdt_fbt_arch_emulate(struct xdt_site *s, struct pt_regs *regs)
{
	switch (s->kind) {
	case SITE_NOP:
		regs_set_return_ip(regs, s->addr + 4);
		break;
	case SITE_RET:
		regs_set_return_ip(regs, regs->link);
		break;
	case SITE_TAIL:
		regs_set_return_ip(regs, s->aux);
		break;
	case SITE_CRET:
		regs_set_return_ip(regs, cr_taken(s->orig, regs) ?
				   regs->link : s->addr + 4);
		break;
	case SITE_CTAIL:
		regs_set_return_ip(regs, cr_taken(s->orig, regs) ?
				   s->aux : s->addr + 4);
		break;
	}
}
