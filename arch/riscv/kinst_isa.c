// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 kinst: classify every instruction of a function, emulate the ones
 * that depend on their own address, run the rest out of line.
 *
 * The patch is fbt's: `ebreak` over a 4-byte instruction, `c.ebreak` over a
 * 2-byte one, so a site never covers more than its own instruction.
 * Boundaries come from decoding the function from its first byte (RVC mixes
 * 2- and 4-byte instructions and nothing else marks them); if it does not
 * decode to its end, the function gets no kinst probes at all, since any
 * offset after the undecodable parcel would be a guess -- unless all that
 * is left is zeros, the linker's padding after an assembly function.
 *
 * Emulate or run out of line?  Only auipc and the control transfers read
 * the PC, and they are cheap to emulate exactly from pt_regs (riscv's trap
 * return reloads every GPR and the PC from it, sp included):
 *   auipc                  rd = pc + imm
 *   jal, c.j               rd = pc + len; pc += imm
 *   jalr, c.jr, c.jalr, ret
 *                          target = (rs1 + imm) & ~1 before rd is written
 *                          (rd may be rs1); rd = pc + len; pc = target
 *   beq ... bgeu, c.beqz, c.bnez
 *                          pc += taken ? imm : len
 *   nop (ftrace's two 4-byte nops at entry, c.nop)
 *                          pc += len
 * That is one trap per firing, and calls never run from a trampoline (so a
 * task can never sleep inside one: core/xol.c relies on that).
 *
 * Everything else -- loads, stores, ALU, the prologue's `addi sp` and
 * `sd ra`, AMOs, fences, FP -- is run out of line, unmodified: none of it
 * reads the PC, so it behaves the same at any address.  Emulating it would
 * mean re-implementing RV64GC (and its faults) in the handler; a trampoline
 * gets the exact semantics from the hardware.  The cost is a second trap:
 * the way back from the slot in xdt.ko's text to the function cannot be a
 * jump -- `j` reaches +-1 MiB and modules sit up to 2 GiB away from the
 * kernel -- and the long form `auipc rX; jalr x0, lo(rX)` needs a scratch
 * register that the displaced instruction may be using.  So a slot is the
 * instruction followed by `ebreak` (`c.ebreak` after a 2-byte instruction,
 * keeping the slot's bytes well-formed RVC), and the core resumes that
 * second trap at s->resume, the instruction after the site: two traps per
 * firing of an out-of-line site.  (Emulating the few hottest forms --
 * `addi`, `sd`/`ld` off sp -- in the handler would save that trap; not
 * done, so there is one way to execute everything that is not PC-relative.)
 *
 * Refused, per instruction:
 *  - an existing ebreak / c.ebreak: the kernel's BUG()/WARN() are keyed by
 *    the ebreak's address, and kprobes and kgdb use the same instruction;
 *    xdt's own breakpoints (an fbt site patched in) are seen through, by
 *    decoding the site's original instruction instead;
 *  - everything from an lr.w/lr.d through the following sc.w/sc.d: a trap
 *    between them clears the reservation, the sc fails and the retry loop
 *    traps again, forever (the ISA only guarantees forward progress for a
 *    constrained lr/sc loop, which a trap is not part of);
 *  - what the decoder calls REFUSED: every Zicsr instruction (a write to
 *    sstatus/sie changes the interrupt state under the handler; the rest
 *    would need a CSR-by-CSR audit of what a trap in between changes),
 *    ecall, sret/mret/dret, wfi, sfence.vma;
 *  - the two entry instructions when ftrace has made them its
 *    `auipc t0; jalr t0` call: ftrace rewrites them at will and checks
 *    what it finds there.
 * Exception-table and static-key sites are refused by providers/kinst.c.
 *
 * desc.frame (for stack()): riscv's frame record is [s0 - 8] = ra,
 * [s0 - 16] = the caller's s0.  It is in place from the instruction after
 * `addi s0, sp, N` (or `c.addi4spn s0, sp, N`) -- gcc stores ra and s0
 * before it -- until the `ld s0, N(sp)` (`c.ldsp s0`) of an epilogue.  A
 * linear scan gets that right except after a block that does not fall
 * through (ret, jump, or an ebreak that may be BUG()): the next block's
 * state is then taken from the forward branches to it (a pre-prologue
 * early exit placed at the end of the function is reached only from before
 * the prologue), or, if none reaches it, is "frame in place" once the
 * prologue has been seen.  A site's flag is the state before its
 * instruction executes.  On this kernel functions start with ftrace's two
 * 4-byte nops, then the prologue.
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/stddef.h>
#include <linux/uaccess.h>
#include <asm/unaligned.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	KI_XOL = 1,		/* run out of line */
	KI_NOP,			/* pc += len */
	KI_AUIPC,		/* rd = pc + imm */
	KI_JAL,			/* rd = pc + len; pc += imm */
	KI_JALR,		/* pc = (rs1 + imm) & ~1; rd = pc + len */
	KI_BEQ,			/* the branches, in XDT_RV_OP_BEQ.. order */
	KI_BNE,
	KI_BLT,
	KI_BGE,
	KI_BLTU,
	KI_BGEU,
};

/*
 * The operands an emulated instruction needs, packed into the site's aux:
 * bits 0-31 the immediate (an offset from the site, or jalr's offset from
 * rs1), then rd, rs1 and rs2 a byte each.
 */
static unsigned long aux_pack(const struct xdt_rv_insn *in)
{
	return (unsigned long)(u32)in->imm | (unsigned long)in->rd << 32 |
	       (unsigned long)in->rs1 << 40 | (unsigned long)in->rs2 << 48;
}

static __always_inline long aux_imm(unsigned long a)
{
	return (s32)(u32)a;
}

static __always_inline unsigned int aux_reg(unsigned long a, unsigned int n)
{
	return (a >> (32 + 8 * n)) & 31;
}

/*
 * x1..x31 are the 31 unsigned longs after epc in struct pt_regs (checked
 * at build time below); x0 reads as zero and ignores writes.
 */
static __always_inline unsigned long xreg_get(struct pt_regs *regs,
					      unsigned int n)
{
	return n ? ((unsigned long *)regs)[n] : 0;
}

static __always_inline void xreg_set(struct pt_regs *regs, unsigned int n,
				     unsigned long v)
{
	if (n)
		((unsigned long *)regs)[n] = v;
}

#define RV_NOP			0x00000013u

/* The frame-pointer set-up: addi s0, sp, N (N > 0) / c.addi4spn s0, sp, N. */
static bool sets_fp(u32 w, unsigned int len)
{
	if (len == 4)
		return (w & 0xfffff) == 0x10413 && (s32)w >> 20 > 0;
	return (w & 0xe01f) == 0x0000 && ((w >> 5) & 0xff);
}

/* The epilogue's reload of the caller's s0: ld s0, N(sp) / c.ldsp s0. */
static bool restores_fp(u32 w, unsigned int len)
{
	if (len == 4)
		return (w & 0xfffff) == 0x13403;
	return (w & 0xef83) == 0x6402;
}

/* Why a REFUSED instruction (all are 32-bit SYSTEM) gets no probe. */
static const char *refused_why(u32 w)
{
	unsigned int f3 = (w >> 12) & 7, csr = w >> 20;

	if (f3) {
		/* csrrw[i] always write; csrrs[i]/csrrc[i] unless rs1/uimm 0 */
		bool writes = (f3 & 3) == 1 || ((w >> 15) & 31);

		if (!writes)
			return "reads a control and status register";
		/* sstatus (SIE), sie, sip */
		if (csr == 0x100 || csr == 0x104 || csr == 0x144)
			return "changes the interrupt state";
		return "writes a control and status register";
	}
	switch (w) {
	case 0x00000073:
		return "environment call (ecall)";
	case 0x10200073:
	case 0x30200073:
	case 0x7b200073:
		return "returns from a trap";
	case 0x10500073:
		return "waits for an interrupt (wfi)";
	}
	if ((w >> 25) == 0x09)
		return "TLB maintenance (sfence.vma)";
	return "privileged instruction";
}

/*
 * @ib holds an ebreak or c.ebreak at @addr.  If it is one of xdt's own
 * patches (an fbt site patched in -- the caller holds xdt_lock, so sites
 * do not change under it), put back the instruction it displaced so the
 * function decodes as it will run; kinst's site there can then only be
 * enabled once fbt's is off (the core checks the text before patching).
 */
static void see_through(unsigned long addr, u8 *ib, unsigned int len)
{
	struct xdt_site *s = xdt_site_lookup(addr);
	xdt_patchval_t cur = len == 4 ? get_unaligned_le32(ib) :
					get_unaligned_le16(ib);

	if (!s || !READ_ONCE(s->enabled) || s->patch != cur ||
	    XDT_PATCH_LEN(s->orig) != len)
		return;
	if (len == 4)
		put_unaligned_le32(s->orig, ib);
	else
		put_unaligned_le16(s->orig, ib);
}

/*
 * Whether [@addr, @addr + @len) is all zero bytes: the linker pads between
 * assembly files' functions with zeros, which kallsyms counts in the size
 * of the function before (the all-zero parcel is defined to be illegal).
 */
static bool zeros(unsigned long addr, unsigned long len)
{
	u8 b[64];
	unsigned long i, n;

	for (; len; addr += n, len -= n) {
		n = min(len, sizeof(b));
		if (copy_from_kernel_nofault(b, (void *)addr, n))
			return false;
		for (i = 0; i < n; i++)
			if (b[i])
				return false;
	}
	return true;
}

/* Frame state at forward-branch targets, one bit per halfword each. */
struct fwd {
	unsigned long *with, *without;
};

static void fwd_mark(struct fwd *f, unsigned long size, unsigned long off,
		     long imm, bool framed)
{
	if (!f->with || imm <= 0 || off + imm >= size)
		return;
	__set_bit((off + imm) / 2, framed ? f->with : f->without);
}

const char *xdt_kinst_arch_sites(unsigned long addr, unsigned long size,
				 xdt_kinst_add_t add, void *ctx)
{
	struct xdt_rv_insn in;
	struct xdt_kinst_desc d;
	struct fwd fwd = { NULL, NULL };
	bool framed = false, prologue = false, falls = true, excl = false;
	bool ftrace = false;
	const char *ret = NULL;
	unsigned long off;

	/* x1..x31 follow epc in pt_regs: xreg_get/xreg_set index them. */
	BUILD_BUG_ON(offsetof(struct pt_regs, epc) != 0);
	BUILD_BUG_ON(offsetof(struct pt_regs, ra) != 1 * sizeof(long));
	BUILD_BUG_ON(offsetof(struct pt_regs, s0) != 8 * sizeof(long));
	BUILD_BUG_ON(offsetof(struct pt_regs, a0) != 10 * sizeof(long));
	BUILD_BUG_ON(offsetof(struct pt_regs, s2) != 18 * sizeof(long));
	BUILD_BUG_ON(offsetof(struct pt_regs, t6) != 31 * sizeof(long));

	if (size < 2 || (addr & 1))
		return "too small or misaligned";
	if (size >= 8) {
		u32 w[2];

		if (copy_from_kernel_nofault(w, (void *)addr, 8))
			return "text not readable";
		/* auipc t0, hi; jalr t0, lo(t0): ftrace's call is live */
		ftrace = (w[0] & 0xfff) == 0x297 &&
			 (w[1] & 0xfffff) == 0x282e7;
	}
	/* Best effort: without the bitmaps the frame state is linear only. */
	fwd.with = bitmap_zalloc(size / 2 + 1, GFP_KERNEL);
	fwd.without = bitmap_zalloc(size / 2 + 1, GFP_KERNEL);
	if (!fwd.with || !fwd.without) {
		bitmap_free(fwd.with);
		bitmap_free(fwd.without);
		fwd.with = fwd.without = NULL;
	}

	for (off = 0; off < size; off += in.len) {
		unsigned int n = min(size - off, 4UL);
		u8 ib[4] = { 0 };

		if (copy_from_kernel_nofault(ib, (void *)(addr + off), n)) {
			ret = "text not readable";
			break;
		}
		if (xdt_rv_decode(ib, n, &in) && in.cls == XDT_INSN_BRK) {
			see_through(addr + off, ib, in.len);
			xdt_rv_decode(ib, n, &in);
		}
		if (!in.len) {
			/* Alignment padding at the end is zeros, not code. */
			if (!zeros(addr + off, size - off))
				ret = "does not decode to its end";
			break;
		}

		/* A block nothing falls into: its state comes from branches. */
		if (!falls && fwd.with) {
			bool w = test_bit(off / 2, fwd.with);
			bool wo = test_bit(off / 2, fwd.without);

			framed = w != wo ? w : prologue;
		} else if (!falls) {
			framed = prologue;
		}

		d = (struct xdt_kinst_desc){
			.off = off, .len = in.len, .frame = framed,
			.orig = in.len == 4 ? get_unaligned_le32(ib) :
					      get_unaligned_le16(ib),
		};
		switch (in.cls) {
		case XDT_INSN_OTHER:
			d.kind = KI_XOL;
			d.xol = true;
			break;
		case XDT_INSN_NOP:
			d.kind = KI_NOP;
			break;
		case XDT_INSN_PCREL:		/* auipc */
			d.kind = KI_AUIPC;
			d.aux = aux_pack(&in);
			break;
		case XDT_INSN_JMP_REL:		/* jal x0, c.j */
		case XDT_INSN_CALL_REL:		/* jal rd */
			d.kind = KI_JAL;
			d.aux = aux_pack(&in);
			if (in.cls == XDT_INSN_JMP_REL)
				fwd_mark(&fwd, size, off, in.imm, framed);
			break;
		case XDT_INSN_JCC_REL:
			d.kind = KI_BEQ + (in.op - XDT_RV_OP_BEQ);
			d.aux = aux_pack(&in);
			fwd_mark(&fwd, size, off, in.imm, framed);
			break;
		case XDT_INSN_RET:
		case XDT_INSN_JMP_IND:
		case XDT_INSN_CALL_IND:		/* jalr, c.jr, c.jalr */
			d.kind = KI_JALR;
			d.aux = aux_pack(&in);
			break;
		case XDT_INSN_BRK:
			d.why = "existing breakpoint (BUG, WARN, kprobes, kgdb)";
			break;
		case XDT_INSN_EXCL:
			d.why = "inside an lr/sc sequence";
			break;
		case XDT_INSN_REFUSED:
			d.why = refused_why(d.orig);
			break;
		default:
			d.why = "unexpected instruction class";
			break;
		}
		/* From each lr through the next sc. */
		if (in.op == XDT_RV_OP_LR)
			excl = true;
		if (excl)
			d.why = "inside an lr/sc sequence";
		if (in.op == XDT_RV_OP_SC)
			excl = false;
		if (ftrace && off < 8)
			d.why = "ftrace owns the entry site";
		if (add(ctx, &d)) {
			ret = "too many instructions";
			break;
		}

		/* The state after it, for the next instruction. */
		if (sets_fp(d.orig, in.len)) {
			framed = true;
			prologue = true;
		} else if (restores_fp(d.orig, in.len)) {
			framed = false;
		}
		falls = in.cls != XDT_INSN_RET && in.cls != XDT_INSN_BRK &&
			in.cls != XDT_INSN_JMP_REL && in.cls != XDT_INSN_JMP_IND;
	}
	bitmap_free(fwd.with);
	bitmap_free(fwd.without);
	return ret;
}

unsigned int xdt_kinst_arch_xol(struct xdt_site *s, unsigned long slot,
				u8 *buf, const char **why)
{
	unsigned int len = s->len;

	BUILD_BUG_ON(XDT_XOL_SLOT < 8);
	if (s->kind != KI_XOL || (len != 2 && len != 4) ||
	    XDT_PATCH_LEN(s->orig) != len || (slot & 3)) {
		*why = "cannot run out of line";
		return 0;
	}
	/* The instruction, then a breakpoint of the same size. */
	if (len == 4) {
		put_unaligned_le32(s->orig, buf);
		put_unaligned_le32(XDT_EBREAK, buf + 4);
	} else {
		put_unaligned_le16(s->orig, buf);
		put_unaligned_le16(XDT_C_EBREAK, buf + 2);
	}
	s->resume = s->addr + len;
	return 2 * len;
}

void __xdt_probe xdt_kinst_arch_emulate(struct xdt_site *s,
					struct pt_regs *regs)
{
	unsigned long a = s->aux, pc = s->addr, next = s->addr + s->len;
	unsigned long v1, v2, target;
	bool taken;

	switch (s->kind) {
	case KI_XOL:
		regs->epc = s->xol;
		return;
	case KI_NOP:
		regs->epc = next;
		return;
	case KI_AUIPC:
		xreg_set(regs, aux_reg(a, 0), pc + aux_imm(a));
		regs->epc = next;
		return;
	case KI_JAL:
		xreg_set(regs, aux_reg(a, 0), next);
		regs->epc = pc + aux_imm(a);
		return;
	case KI_JALR:
		/* Read rs1 before writing rd: `jalr ra, 0(ra)` is common. */
		target = (xreg_get(regs, aux_reg(a, 1)) + aux_imm(a)) & ~1UL;
		xreg_set(regs, aux_reg(a, 0), next);
		regs->epc = target;
		return;
	}
	v1 = xreg_get(regs, aux_reg(a, 1));
	v2 = xreg_get(regs, aux_reg(a, 2));
	switch (s->kind) {
	case KI_BEQ:
		taken = v1 == v2;
		break;
	case KI_BNE:
		taken = v1 != v2;
		break;
	case KI_BLT:
		taken = (long)v1 < (long)v2;
		break;
	case KI_BGE:
		taken = (long)v1 >= (long)v2;
		break;
	case KI_BLTU:
		taken = v1 < v2;
		break;
	case KI_BGEU:
		taken = v1 >= v2;
		break;
	default:
		/* Not a kind xdt_kinst_arch_sites() makes. */
		taken = false;
		break;
	}
	regs->epc = taken ? pc + aux_imm(a) : next;
}
