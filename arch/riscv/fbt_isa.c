// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 fbt: entry and return sites, and emulating what they displace.
 *
 * Entry: with RVC the kernel is built with -fpatchable-function-entry=4
 * (four c.nop), which ftrace rewrites at boot into two 4-byte nops -- the
 * slot for its `auipc t0; jalr t0` call.  xdt puts an ebreak on the first
 * nop and emulates the pair as pc += 8: one trap per firing, the arguments
 * untouched.  Same trade-off as the other ISAs: if ftrace has the site
 * live, enabling is refused, writing nothing.
 *
 * Functions without the ftrace slot (notrace) fall back to a first
 * instruction that opens the frame: `addi sp, sp, -N`, `c.addi16sp` or
 * `c.addi sp, -N` (registers only; riscv's trap return reloads sp from
 * pt_regs), or `sd ra, N(sp)` / `c.sdsp ra, N(sp)`.  The store is safe to
 * emulate here, unlike arm64's pre-indexed stp: it writes at or above sp,
 * and a kernel-mode trap frame is pushed below sp.
 *
 * Return: decoding the function from its start (RVC mixes 2- and 4-byte
 * instructions, so boundaries come from the decoder, which is checked
 * against objdump over the whole vmlinux): every `ret` (`jalr x0, 0(ra)`
 * or `c.jr ra`), and tail calls -- `j`/`c.j` out of the function, and the
 * `tail` pair `auipc rX, hi; jalr x0, lo(rX)` whose target is outside it
 * -- emulated as jumps to the (static) target.  At a tail call a0 is not a
 * return value yet.  A bare `jr rX` is not a tail call (jump tables).
 * If the function does not decode to its end, it gets no return probe.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	SITE_NOP8 = 1,		/* ftrace's two nops: skip both */
	SITE_SP_ADJ,		/* addi sp, sp, -N / c.addi16sp: aux = -N */
	SITE_SD_RA,		/* sd ra, N(sp) / c.sdsp: aux = N */
	SITE_RET,		/* ret / c.jr ra */
	SITE_TAIL,		/* jump out of the function: aux = target */
};

#define RV_NOP			0x00000013u
#define RV_AUIPC_T0_MASK	0x00000fffu
#define RV_AUIPC_T0		0x00000297u

/* Sign-extend the low @bits of @v. */
static long sext(unsigned long v, unsigned int bits)
{
	return (long)(v << (64 - bits)) >> (64 - bits);
}

/* The frame-opening forms a notrace function may start with. */
static bool prologue(u32 w, unsigned int len, struct xdt_site_desc *d)
{
	u32 h = w & 0xffff;

	if (len == 4 && (w & 0xfffff) == 0x10113) {		/* addi sp,sp,imm */
		d->kind = SITE_SP_ADJ;
		d->aux = sext(w >> 20, 12);
	} else if (len == 2 && (h & 0xef83) == 0x6101) {	/* c.addi16sp */
		d->kind = SITE_SP_ADJ;
		d->aux = sext(((h >> 12) & 1) << 9 | ((h >> 6) & 1) << 4 |
			      ((h >> 5) & 1) << 6 | ((h >> 3) & 3) << 7 |
			      ((h >> 2) & 1) << 5, 10);
	} else if (len == 2 && (h & 0xef83) == 0x0101) {	/* c.addi sp */
		/* gas's choice for small frames: addi sp,sp,-32 -> 0x1101 */
		d->kind = SITE_SP_ADJ;
		d->aux = sext(((h >> 12) & 1) << 5 | ((h >> 2) & 0x1f), 6);
	} else if (len == 4 && (w & 0x01fff07f) == 0x00113023) { /* sd ra */
		d->kind = SITE_SD_RA;
		d->aux = sext((w >> 25) << 5 | ((w >> 7) & 0x1f), 12);
	} else if (len == 2 && (h & 0xe07f) == 0xe006) {	/* c.sdsp ra */
		d->kind = SITE_SD_RA;
		d->aux = ((h >> 10) & 7) << 3 | ((h >> 7) & 7) << 6;
	}
	/* Only frames that open downwards, stores at or above sp. */
	if (d->kind == SITE_SP_ADJ && (long)d->aux >= 0)
		d->kind = 0;
	if (d->kind == SITE_SD_RA && (long)d->aux < 0)
		d->kind = 0;
	return d->kind;
}

static bool outside(long off, unsigned long size)
{
	return off < 0 || off >= (long)size;
}

const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx)
{
	struct xdt_site_desc d = { .addr = addr };
	struct xdt_rv_insn in, prev = { .cls = XDT_INSN_BAD };
	unsigned long off, prev_off = 0;
	u32 w[2] = { 0, 0 };

	if (size < 2 || (addr & 1))
		return "too small or misaligned";
	if (copy_from_kernel_nofault(w, (void *)addr, min(size, 8UL)))
		return "text not readable";
	if (size >= 8 && w[0] == RV_NOP && w[1] == RV_NOP) {
		d.kind = SITE_NOP8;
		d.orig = w[0];
		d.ftrace = true;
	} else if ((w[0] & RV_AUIPC_T0_MASK) == RV_AUIPC_T0) {
		return "ftrace owns the entry site";
	} else {
		if (!xdt_rv_decode((const u8 *)w, min(size, 8UL), &in))
			return "first instruction does not decode";
		d.orig = in.len == 4 ? w[0] : (w[0] & 0xffff);
		if (!prologue(d.orig, in.len, &d))
			return "no ftrace nops or frame-opening instruction "
			       "at entry";
	}
	if (add(ctx, &d))
		return "too many sites";

	for (off = 0; off < size; off += in.len) {
		u8 ib[4] = { 0 };

		if (copy_from_kernel_nofault(ib, (void *)(addr + off),
					     min(size - off, 4UL)) ||
		    !xdt_rv_decode(ib, min(size - off, 4UL), &in)) {
			pr_debug("xdt: fbt %ps: undecodable at +%#lx: no "
				 "return probe\n", (void *)addr, off);
			return NULL;
		}
		d = (struct xdt_site_desc){ .is_return = true,
			.addr = addr + off, .off = off,
			.orig = ib[0] | ib[1] << 8 |
				(in.len == 4 ? ib[2] << 16 | (u32)ib[3] << 24 : 0) };
		if (in.cls == XDT_INSN_RET) {
			d.kind = SITE_RET;
		} else if (in.cls == XDT_INSN_JMP_REL && in.rd == 0 &&
			   outside(off + in.imm, size)) {
			d.kind = SITE_TAIL;
			d.aux = addr + off + in.imm;
		} else if (in.cls == XDT_INSN_JMP_IND && in.rd == 0 &&
			   prev.cls == XDT_INSN_PCREL && prev.rd == in.rs1 &&
			   prev_off + prev.len == off &&
			   outside(prev_off + prev.imm + in.imm, size)) {
			d.kind = SITE_TAIL;
			d.aux = addr + prev_off + prev.imm + in.imm;
		}
		if (d.kind && add(ctx, &d))
			return "too many sites";
		prev = in;
		prev_off = off;
	}
	return NULL;
}

unsigned int __xdt_probe xdt_fbt_arch_args(struct xdt_site *s,
					   struct pt_regs *regs, u64 *args)
{
	unsigned long *a = &regs->a0;	/* a0..a7 are consecutive */
	unsigned int i;

	if (s->kind == SITE_RET || s->kind == SITE_TAIL) {
		args[0] = s->arg;
		args[1] = regs->a0;
		for (i = 2; i < XDT_NARGS; i++)
			args[i] = 0;
		return XDT_NARGS;
	}
	for (i = 0; i < 8; i++)
		args[i] = a[i];
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
	unsigned long len = XDT_PATCH_LEN(s->orig);

	switch (s->kind) {
	case SITE_NOP8:
		regs->epc = s->addr + 8;
		break;
	case SITE_SP_ADJ:
		regs->sp += (long)s->aux;
		regs->epc = s->addr + len;
		break;
	case SITE_SD_RA:
		/* At or above sp: the live stack, never the trap frame. */
		*(unsigned long *)(regs->sp + s->aux) = regs->ra;
		regs->epc = s->addr + len;
		break;
	case SITE_RET:
		regs->epc = regs->ra & ~1UL;
		break;
	case SITE_TAIL:
		regs->epc = s->aux;
		break;
	}
}
