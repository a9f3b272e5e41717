// SPDX-License-Identifier: GPL-2.0
/*
 * aarch64 kinst: classify every instruction of a function, build the
 * out-of-line trampolines, emulate the rest.
 *
 * Every site is the same BRK #0x0d7 as fbt's, over one 4-byte word.  When
 * it traps, the displaced instruction is carried out in one of two ways:
 *
 * Emulated in the handler (one trap per firing): everything that reads the
 * PC -- b, bl, b.cond, cbz/cbnz, tbz/tbnz, br, blr, ret, adr, adrp, the
 * ldr/ldrsw/prfm literal loads -- plus nop and bti, which are skipped.
 * These must be emulated anyway: run from a trampoline they would compute
 * their targets from the trampoline's address.  The emulation only changes
 * general registers and the PC, which pt_regs carries faithfully.  A
 * literal load whose copy_from_kernel_nofault fails leaves Rt unchanged
 * and still continues: the instruction would have faulted in place, but
 * literal pools are in kernel text, which is always mapped, so this does
 * not happen in practice, and a silently wrong register is better than an
 * oops raised from inside the breakpoint handler.
 *
 * Out of line (XOL) for everything else: loads and stores, arithmetic,
 * barriers, LSE atomics, and above all the prologue and epilogue
 * instructions that move sp (stp x29, x30, [sp, #-N]!; sub sp; ldp ...,
 * [sp], #N).  Those cannot be emulated here: arm64's EL1 exception return
 * pops pt_regs with `add sp, sp, #PT_REGS_SIZE` and never reloads sp from
 * pt_regs, so a new regs->sp is ignored (fbt_isa.c).  Executing the
 * instruction itself, at a trampoline slot in xdt.ko's text, is exact for
 * any instruction that does not read the PC, with no per-instruction
 * emulation code to get wrong.  The slot is the instruction followed by
 * `b <site + 4>`: one trap per firing.  A `b` reaches +-128 MiB; without
 * KASLR and without module PLTs (this config) the module area is the
 * 128 MiB ending at _etext, so every kernel and module address is in
 * reach.  Should a slot ever be out of range, it ends in a second BRK
 * instead and the core resumes at site + 4 from there: two traps per
 * firing, still correct.
 *
 * Refused: existing breakpoints (BUG/WARN's brk #0x800 is looked up in the
 * bug table by its address), udf and unallocated encodings, the whole of
 * every ldxr..stxr sequence (a trap in between clears the exclusive
 * monitor, the store fails and the loop retries into the breakpoint for
 * ever), what the decoder calls REFUSED (msr of any kind -- DAIF and the
 * interrupt mask included --, mrs DAIF, svc/hvc/smc, eret, wfi/wfe),
 * mrs of the exception registers our own BRK overwrites (ELR, SPSR, ESR,
 * FAR), ldr literal into a SIMD/FP register (not in pt_regs), the
 * pointer-authenticated branches (no in-kernel PAC in this kernel, and
 * their checks would have to be emulated), and words that an ldr literal
 * of the same function reads (data in the text, not an instruction).
 *
 * The frame flag (stack() at a site): whether x29 points at this
 * function's own AAPCS64 frame record.  It is set by `mov x29, sp` /
 * `add x29, sp, #imm` and dropped by `ldp x29, x30, [...]`.  Compilers
 * shrink-wrap: vfs_read tests its arguments and returns before its
 * prologue, so a straight scan gets the early-return blocks after the
 * body wrong.  The state is therefore propagated along the function's
 * direct control flow (fall-through and the targets of b, b.cond, cbz,
 * tbz), in three rounds: from the entry; then into code reached only
 * past a brk (a WARN's continuation; BUG's brk does not return, so brk
 * does not fall through in the first round); then into code reached only
 * through a jump table, with the state of the function's table-dispatching
 * br.  What is still unreached falls back to a straight scan: set after
 * the x29 setup, clear after the ldp, set again after a ret or an
 * unconditional branch.  A site where paths disagree gets no frame
 * (stack() then starts from x30, which costs at worst one bogus first
 * entry, where a wrong "frame" would lose the caller).  Checked on the
 * whole vmlinux against its DWARF CFI: the only differences are epilogues
 * where the CFI restores x29 a few instructions late.
 */
#include <linux/kernel.h>
#include <linux/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/ptrace.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	KINST_XOL = 1,		/* run out of line */
	KINST_SKIP,		/* nop, bti, prfm literal */
	KINST_B,		/* aux: target */
	KINST_BL,		/* aux: target */
	KINST_BCOND,		/* aux: target */
	KINST_CBZ,		/* aux: target */
	KINST_CBNZ,		/* aux: target */
	KINST_TBZ,		/* aux: target */
	KINST_TBNZ,		/* aux: target */
	KINST_ADR,		/* adr, adrp; aux: the value of Rd */
	KINST_LDR_W,		/* aux: the literal's address */
	KINST_LDR_X,		/* aux: the literal's address */
	KINST_LDRSW,		/* aux: the literal's address */
	KINST_BR,
	KINST_BLR,
	KINST_RET,
};

#define A64_B			0x14000000u
#define A64_WFE			0xd503205fu
#define A64_B_RANGE		(1L << 27)	/* imm26 * 4: +-128 MiB */

/* Per-word scan state. */
#define ST_NOFRAME	0x01	/* reached without our frame record */
#define ST_FRAME	0x02	/* reached with it */
#define F_LIT		0x04	/* read by an ldr literal: data */
#define F_EXCL		0x08	/* inside an exclusive sequence */
#define F_QUEUED	0x10	/* on the work list */
#define F_KNOWN		0x20	/* state settled in an earlier round */

/* add x29, sp, #imm (mov x29, sp is #0): sets up the frame record. */
static bool sets_fp(u32 w)
{
	return (w & 0xff8003ff) == 0x910003fd;
}

/*
 * ldp x29, x30 in any addressing form (ldnp, post-, pre-index, offset):
 * the caller's x29 is back.
 */
static bool restores_fp(u32 w)
{
	return (w & 0xfe407c1f) == 0xa840781d;
}

/* A system register's op0:op1:CRn:CRm:op2, as in mrs/msr bits 20:5. */
#define SYSREG(op0, op1, crn, crm, op2) \
	((op0) << 14 | (op1) << 11 | (crn) << 7 | (crm) << 3 | (op2))

/* mrs of a register that the breakpoint exception itself overwrites. */
static bool reads_exception_regs(u32 w)
{
	static const u16 sysregs[] = {
		SYSREG(3, 0, 4, 0, 0),		/* SPSR_EL1 */
		SYSREG(3, 0, 4, 0, 1),		/* ELR_EL1 */
		SYSREG(3, 0, 5, 2, 0),		/* ESR_EL1 */
		SYSREG(3, 0, 6, 0, 0),		/* FAR_EL1 */
		SYSREG(3, 4, 4, 0, 0),		/* SPSR_EL2 (VHE) */
		SYSREG(3, 4, 4, 0, 1),		/* ELR_EL2 */
		SYSREG(3, 4, 5, 2, 0),		/* ESR_EL2 */
		SYSREG(3, 4, 6, 0, 0),		/* FAR_EL2 */
	};
	unsigned int i;

	if ((w & 0xffe00000) != 0xd5200000)	/* mrs */
		return false;
	for (i = 0; i < ARRAY_SIZE(sysregs); i++)
		if (((w >> 5) & 0xffff) == sysregs[i])
			return true;
	return false;
}

/* Why the decoder's REFUSED class applies to @w, in a few words. */
static const char *refused_why(u32 w)
{
	if ((w & 0xfffff0df) == 0xd50340df ||	/* msr daifset/daifclr */
	    (w & 0xffffffe0) == 0xd51b4220)	/* msr daif, xN */
		return "changes the interrupt mask";
	if ((w & 0xffffffe0) == 0xd53b4220)
		return "reads the interrupt mask (mrs daif)";
	if ((w & 0xffc00000) == 0xd5000000) {
		if ((w & 0xffffffdf) == 0xd503205f ||	/* wfe, wfi */
		    (w & 0xffffffc0) == 0xd5031000)	/* wfet, wfit */
			return "waits for an event or interrupt";
		return "writes a system register or PSTATE (msr)";
	}
	if ((w & 0xff000000) == 0xd4000000)
		return "exception-generating instruction (svc/hvc/smc/hlt)";
	if ((w & 0xfe000000) == 0xd6000000)
		return "exception return (eret/drps)";
	return "privileged or system instruction";
}

/*
 * Why the instruction @in (at @pc, in function word state @st) gets no
 * probe, or NULL with @d's kind, aux and xol filled.
 */
static const char *classify(const struct xdt_a64_insn *in, unsigned long pc,
			    u8 st, struct xdt_kinst_desc *d)
{
	u32 w = in->insn;

	if (st & F_LIT)
		return "literal data in the text, not an instruction";
	if (st & F_EXCL)
		return "inside an ldxr/stxr exclusive sequence";
	switch (in->cls) {
	case XDT_INSN_BAD:
		return "undefined or unallocated encoding";
	case XDT_INSN_BRK:
		return "an existing breakpoint (BUG/WARN, kgdb)";
	case XDT_INSN_REFUSED:
		return refused_why(w);
	case XDT_INSN_NOP:
		d->kind = KINST_SKIP;
		return NULL;
	case XDT_INSN_OTHER:
		if (reads_exception_regs(w))
			return "reads ELR/SPSR/ESR/FAR, which the breakpoint overwrites";
		d->kind = KINST_XOL;
		d->xol = true;
		return NULL;
	default:
		break;
	}
	if (in->flags & XDT_A64_PAC)
		return "pointer-authenticated branch (no in-kernel PAC)";
	if (in->flags & XDT_A64_FP)
		return "ldr literal into a SIMD/FP register";

	d->aux = pc + in->imm;
	switch (in->op) {
	case XDT_A64_OP_B:
		d->kind = KINST_B;
		return NULL;
	case XDT_A64_OP_BL:
		d->kind = KINST_BL;
		return NULL;
	case XDT_A64_OP_BCOND:
		d->kind = KINST_BCOND;
		return NULL;
	case XDT_A64_OP_CBZ:
		d->kind = KINST_CBZ;
		return NULL;
	case XDT_A64_OP_CBNZ:
		d->kind = KINST_CBNZ;
		return NULL;
	case XDT_A64_OP_TBZ:
		d->kind = KINST_TBZ;
		return NULL;
	case XDT_A64_OP_TBNZ:
		d->kind = KINST_TBNZ;
		return NULL;
	case XDT_A64_OP_ADR:
		d->kind = KINST_ADR;
		return NULL;
	case XDT_A64_OP_ADRP:
		d->kind = KINST_ADR;
		d->aux = (pc & ~0xfffUL) + in->imm;
		return NULL;
	case XDT_A64_OP_LDR_LIT:
		d->kind = in->size == 8 ? KINST_LDR_X : KINST_LDR_W;
		return NULL;
	case XDT_A64_OP_LDRSW_LIT:
		d->kind = KINST_LDRSW;
		return NULL;
	case XDT_A64_OP_PRFM_LIT:
		d->kind = KINST_SKIP;
		return NULL;
	case XDT_A64_OP_BR:
	case XDT_A64_OP_BLR:
	case XDT_A64_OP_RET:
		d->aux = 0;
		if (in->rn == 31)
			return "branch through xzr";
		d->kind = in->op == XDT_A64_OP_BR ? KINST_BR :
			  in->op == XDT_A64_OP_BLR ? KINST_BLR : KINST_RET;
		return NULL;
	}
	/* Every A64 instruction that reads the PC is in the list above. */
	return "reads the PC and cannot be emulated";
}

/*
 * The control flow out of word @i of @n: whether it falls through, and
 * its direct branch target (word index) or -1.  BUG()'s brk does not come
 * back and WARN()'s does; the code after either is usually reached by a
 * branch as well, so a brk falls through only when @brk says so.
 */
static bool successors(const struct xdt_a64_insn *in, long i, long n,
		       bool brk, long *target)
{
	long t = i + in->imm / 4;

	*target = -1;
	switch (in->op) {
	case XDT_A64_OP_B:
		if (t >= 0 && t < n)
			*target = t;
		return false;
	case XDT_A64_OP_BCOND:
	case XDT_A64_OP_CBZ:
	case XDT_A64_OP_CBNZ:
	case XDT_A64_OP_TBZ:
	case XDT_A64_OP_TBNZ:
		if (t >= 0 && t < n)
			*target = t;
		/* b.al and b.nv are unconditional */
		return !(in->op == XDT_A64_OP_BCOND && in->cond >= 14);
	case XDT_A64_OP_BR:
	case XDT_A64_OP_RET:
		return false;
	}
	if (in->cls == XDT_INSN_BRK)
		return brk;
	return in->cls != XDT_INSN_BAD;
}

/*
 * The end of the exclusive sequence opened by the load at word @i: the
 * matching store, or the wfe of a wait loop (__cmpwait: ldxr; eor; cbnz;
 * wfe -- a trap in between clears the monitor, and the wfe then misses
 * the store that should wake it).  The architecture only promises forward
 * progress for sequences of at most 128 bytes, which the kernel's are, so
 * a load with neither within 32 words is just the load.
 */
static long excl_end(const u32 *words, long i, long n)
{
	long j;

	for (j = i + 1; j < n && j <= i + 32; j++) {
		struct xdt_a64_insn in;

		xdt_a64_decode(words[j], &in);
		if (in.op == XDT_A64_OP_EXCL_STORE || words[j] == A64_WFE)
			return j;
	}
	return i;
}

/* The frame state propagation over one function (see the top comment). */
struct flow {
	const u32 *words;
	u8 *st;
	u32 *work;
	long n, nwork;
	bool brk;		/* brk falls through */
};

/* Add state @s to word @i; in the later rounds, to unknown words only. */
static void join(struct flow *f, long i, u8 s)
{
	u8 *st = &f->st[i];

	if ((*st & s) == s || (*st & (F_LIT | F_KNOWN)))
		return;
	*st |= s;
	if (!(*st & F_QUEUED)) {
		*st |= F_QUEUED;
		f->work[f->nwork++] = i;
	}
}

/* The state after word @i. */
static u8 frame_after(const struct flow *f, long i)
{
	if (sets_fp(f->words[i]))
		return ST_FRAME;
	if (restores_fp(f->words[i]))
		return ST_NOFRAME;
	return f->st[i] & (ST_FRAME | ST_NOFRAME);
}

/* Propagate from what join() queued. */
static void propagate(struct flow *f)
{
	long i, t;

	while (f->nwork) {
		struct xdt_a64_insn in;
		u8 out;

		i = f->work[--f->nwork];
		f->st[i] &= ~F_QUEUED;
		xdt_a64_decode(f->words[i], &in);
		out = frame_after(f, i);
		if (successors(&in, i, f->n, f->brk, &t) && i + 1 < f->n)
			join(f, i + 1, out);
		if (t >= 0)
			join(f, t, out);
	}
}

/* End of a round: what it found is not to be changed by the next. */
static void freeze(struct flow *f)
{
	long i;

	for (i = 0; i < f->n; i++)
		if (f->st[i] & (ST_FRAME | ST_NOFRAME))
			f->st[i] |= F_KNOWN;
}

/*
 * A jump-table dispatch: a br a few words after the adr of its table
 * base (GCC: adr; add; br.  Clang: adr; ldrsw; add; br).
 */
static bool is_table_jump(const u32 *words, long i)
{
	long j;

	if ((words[i] & 0xfffffc1f) != 0xd61f0000)	/* br */
		return false;
	for (j = i - 1; j >= 0 && j >= i - 4; j--)
		if ((words[j] & 0x9f000000) == 0x10000000)	/* adr */
			return true;
	return false;
}

static void frame_flow(const u32 *words, u8 *st, u32 *work, long n)
{
	struct flow f = { .words = words, .st = st, .work = work, .n = n };
	u8 tab = 0;
	long i;

	/* 1: from the entry, along direct branches and fall-through. */
	join(&f, 0, ST_NOFRAME);
	propagate(&f);
	freeze(&f);

	/* 2: code only reached past a brk: a WARN()'s continuation. */
	f.brk = true;
	for (i = 0; i + 1 < n; i++)
		if ((words[i] & 0xffe0001f) == 0xd4200000 &&	/* brk */
		    (st[i] & F_KNOWN))
			join(&f, i + 1, frame_after(&f, i));
	propagate(&f);
	freeze(&f);

	/*
	 * 3: code only reached through a jump table: what the dispatching
	 * br had, if the function's dispatches agree.
	 */
	for (i = 0; i < n; i++)
		if ((st[i] & F_KNOWN) && is_table_jump(words, i))
			tab |= st[i] & (ST_FRAME | ST_NOFRAME);
	if (tab != ST_FRAME && tab != ST_NOFRAME)
		return;
	for (i = 0; i < n; i++) {
		if (st[i] & (ST_FRAME | ST_NOFRAME))
			continue;
		join(&f, i, tab);
		propagate(&f);
	}
}

const char *xdt_kinst_arch_sites(unsigned long addr, unsigned long size,
				 xdt_kinst_add_t add, void *ctx)
{
	long n = size / 4, i;
	const char *why = NULL;
	bool lin = false, lin_seen = false;
	u32 *words, *work;
	u8 *st;

	if (addr & 3)
		return "misaligned function";
	if (!n)
		return "too small";
	words = kvmalloc_array(n, sizeof(*words), GFP_KERNEL);
	work = kvmalloc_array(n, sizeof(*work), GFP_KERNEL);
	st = kvzalloc(n, GFP_KERNEL);
	if (!words || !work || !st) {
		why = "out of memory";
		goto out;
	}
	if (copy_from_kernel_nofault(words, (void *)addr, n * 4)) {
		why = "text not readable";
		goto out;
	}

	/* Literal data, and exclusive sequences. */
	for (i = 0; i < n; i++) {
		struct xdt_a64_insn in;
		long t, k;

		xdt_a64_decode(words[i], &in);
		if (in.op == XDT_A64_OP_LDR_LIT ||
		    in.op == XDT_A64_OP_LDRSW_LIT) {
			t = i + in.imm / 4;
			for (k = 0; k < in.size / 4; k++)
				if (t + k >= 0 && t + k < n)
					st[t + k] |= F_LIT;
		}
		if (in.cls == XDT_INSN_EXCL)
			st[i] |= F_EXCL;
		if (in.op == XDT_A64_OP_EXCL_LOAD) {
			t = excl_end(words, i, n);
			for (k = i; k <= t; k++)
				st[k] |= F_EXCL;
		}
	}

	frame_flow(words, st, work, n);

	for (i = 0; i < n; i++) {
		struct xdt_kinst_desc d = {
			.off = i * 4, .len = 4, .orig = words[i],
		};
		struct xdt_a64_insn in;
		bool jumps;

		xdt_a64_decode(words[i], &in);
		if (st[i] & (ST_FRAME | ST_NOFRAME))
			d.frame = (st[i] & (ST_FRAME | ST_NOFRAME)) == ST_FRAME;
		else
			d.frame = lin;	/* only reached indirectly */
		d.why = classify(&in, addr + i * 4, st[i], &d);
		if (d.why) {
			d.kind = 0;
			d.aux = 0;
			d.xol = false;
		}
		if (add(ctx, &d)) {
			why = "too many instructions";
			goto out;
		}

		/* The straight-scan fallback, for the next word. */
		jumps = in.op == XDT_A64_OP_B || in.op == XDT_A64_OP_BR ||
			in.op == XDT_A64_OP_RET;
		if (st[i] & F_LIT)
			continue;
		if (sets_fp(words[i]))
			lin = lin_seen = true;
		else if (restores_fp(words[i]))
			lin = false;
		else if (jumps)
			lin = lin_seen;
	}
out:
	kvfree(words);
	kvfree(work);
	kvfree(st);
	return why;
}

unsigned int xdt_kinst_arch_xol(struct xdt_site *s, unsigned long slot,
				u8 *buf, const char **why)
{
	long off = (long)(s->addr + 4) - (long)(slot + 4);
	__le32 back;

	if (s->kind != KINST_XOL || (slot & 3)) {
		*why = "not an out-of-line instruction";
		return 0;
	}
	/* orig is the word as it sits in the text, so copy it as is. */
	memcpy(buf, &s->orig, 4);
	if (off >= -A64_B_RANGE && off < A64_B_RANGE) {
		back = cpu_to_le32(A64_B | ((u32)(off >> 2) & 0x03ffffff));
	} else {
		back = cpu_to_le32(XDT_PATCHVAL);
		s->resume = s->addr + 4;
	}
	memcpy(buf + 4, &back, 4);
	return 8;
}

/* ---- probe context -------------------------------------------------------- */
static __always_inline u64 get_reg(struct pt_regs *regs, unsigned int r)
{
	return r == 31 ? 0 : regs->regs[r];	/* xzr */
}

static __always_inline void set_reg(struct pt_regs *regs, unsigned int r,
				    u64 v)
{
	if (r != 31)				/* xzr: discarded */
		regs->regs[r] = v;
}

/* The A64 condition @cond on the NZCV flags of @pstate. */
static bool __xdt_probe cond_holds(unsigned int cond, u64 pstate)
{
	bool n = pstate & PSR_N_BIT, z = pstate & PSR_Z_BIT;
	bool c = pstate & PSR_C_BIT, v = pstate & PSR_V_BIT;
	bool r;

	switch (cond >> 1) {
	case 0:				/* eq */
		r = z;
		break;
	case 1:				/* cs */
		r = c;
		break;
	case 2:				/* mi */
		r = n;
		break;
	case 3:				/* vs */
		r = v;
		break;
	case 4:				/* hi */
		r = c && !z;
		break;
	case 5:				/* ge */
		r = n == v;
		break;
	case 6:				/* gt */
		r = !z && n == v;
		break;
	default:			/* al, nv */
		return true;
	}
	return (cond & 1) ? !r : r;
}

void __xdt_probe xdt_kinst_arch_emulate(struct xdt_site *s,
					struct pt_regs *regs)
{
	unsigned long next = s->addr + 4, target = next;
	u32 w = s->orig;
	unsigned int rt = w & 31, rn = (w >> 5) & 31;
	u64 v;
	u32 v32;

	switch (s->kind) {
	case KINST_XOL:
		target = s->xol;
		break;
	case KINST_SKIP:
		break;
	case KINST_B:
		target = s->aux;
		break;
	case KINST_BL:
		regs->regs[30] = next;
		target = s->aux;
		break;
	case KINST_BCOND:
		if (cond_holds(w & 15, regs->pstate))
			target = s->aux;
		break;
	case KINST_CBZ:
	case KINST_CBNZ:
		v = get_reg(regs, rt);
		if (!(w >> 31))			/* sf: W or X */
			v = (u32)v;
		if (!v == (s->kind == KINST_CBZ))
			target = s->aux;
		break;
	case KINST_TBZ:
	case KINST_TBNZ:
		v = get_reg(regs, rt) >> ((w >> 31) << 5 | ((w >> 19) & 31));
		if (!(v & 1) == (s->kind == KINST_TBZ))
			target = s->aux;
		break;
	case KINST_ADR:
		set_reg(regs, rt, s->aux);
		break;
	case KINST_LDR_X:
		if (!copy_from_kernel_nofault(&v, (void *)s->aux, 8))
			set_reg(regs, rt, v);
		break;
	case KINST_LDR_W:
		if (!copy_from_kernel_nofault(&v32, (void *)s->aux, 4))
			set_reg(regs, rt, v32);
		break;
	case KINST_LDRSW:
		if (!copy_from_kernel_nofault(&v32, (void *)s->aux, 4))
			set_reg(regs, rt, (u64)(s64)(s32)v32);
		break;
	case KINST_BR:
		target = regs->regs[rn];
		break;
	case KINST_BLR:
		target = regs->regs[rn];	/* before x30: blr x30 */
		regs->regs[30] = next;
		break;
	case KINST_RET:
		target = regs->regs[rn];
		break;
	}
	instruction_pointer_set(regs, target);
}
