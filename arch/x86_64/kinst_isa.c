// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 kinst: an int3 over the first byte of any instruction.
 *
 * What runs where, and why:
 *  - Control flow is emulated in the int3 handler: jmp/jcc rel8/rel32,
 *    call rel32, call and jmp through a register or memory, ret, loop,
 *    loope, loopne, jrcxz.  They are the instructions whose effect depends
 *    on where they execute, and emulating them is a few lines each
 *    (int3_emulate_call/jmp/ret do the stack side).  Calls in particular
 *    must not run out of line: the callee would return into the
 *    trampoline, so a task sleeping in it would pin the trampoline, and a
 *    stack trace would show it.  One trap per firing.
 *  - Everything else runs out of line from a per-probe trampoline slot in
 *    xdt.ko's text (core/xol.c): the instruction, then jmp rel32 back to
 *    the next one.  A RIP-relative operand has its 32-bit displacement
 *    rewritten for the slot's address (modules sit within +-2 GiB of the
 *    kernel, -mcmodel=kernel; the probe is refused if it does not reach).
 *    Still one trap per firing: the handler only points %rip at the slot.
 *    Emulating every ALU and memory instruction instead would mean a
 *    second x86 interpreter in probe context, with the fault semantics of
 *    each memory access to reproduce.
 *
 * Refused: what the decoder refuses (privileged and I/O instructions,
 * cli/sti/popf, ud0/ud1/ud2 -- BUG()/WARN() sites are found by address --,
 * int/int1/iret, xbegin/xabort, far returns, 16-bit ret), an existing
 * int3, far calls and jumps, indirect branches through a segment
 * override, and 0x67-prefixed loop/jrcxz (ecx forms the compiler never
 * emits in the kernel).
 */
#include <linux/kernel.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	K_XOL = 1,	/* run from the trampoline */
	K_JMP,		/* jmp rel: aux = target */
	K_CALL,		/* call rel32: aux = target */
	K_RET,		/* ret */
	K_RET_IMM,	/* ret imm16 */
	K_LOOP,		/* loop/loope/loopne/jrcxz: aux = target */
	K_JMP_IND,	/* jmp *r/m: aux = pack_ind() */
	K_CALL_IND,	/* call *r/m: aux = pack_ind() */
	K_JCC = 16,	/* jcc rel: K_JCC + condition code; aux = target */
};

/*
 * An indirect branch's operand as one word: modrm, sib, rex and the
 * displacement.  Segment overrides (fs:/gs:) would need the segment base,
 * so they are refused.
 */
static const char *pack_ind(const u8 *ib, const struct xdt_insn *in,
			    unsigned long *aux)
{
	u8 m = in->modrm_off, rex = 0;
	unsigned int i;
	s32 disp = 0;
	u64 v;

	for (i = 0; i + 1 < m; i++) {
		if (ib[i] == 0x64 || ib[i] == 0x65)
			return "indirect branch through fs:/gs:";
		if (ib[i] >= 0x40 && ib[i] <= 0x4f)
			rex = ib[i];
	}
	if (in->disp_off) {
		unsigned int dl = in->len - in->disp_off -
				  (in->imm_off ? in->len - in->imm_off : 0);

		if (dl == 1)
			disp = (s8)ib[in->disp_off];
		else
			memcpy(&disp, ib + in->disp_off, 4);
	}
	v = ib[m] | (u64)(((ib[m] >> 6) != 3 && (ib[m] & 7) == 4) ?
			  ib[m + 1] : 0) << 8 |
	    (u64)rex << 16 | (u64)(u32)disp << 32;
	*aux = v;
	return NULL;
}

/*
 * stack() needs to know, per site, where the return address is: at *%rsp
 * (before push %rbp, after pop %rbp / leave), one slot up (between push
 * %rbp and mov %rsp,%rbp), or in the frame record %rbp points at.  GCC
 * shrink-wraps: a function may test its arguments and return before its
 * prologue, and those early exits are often laid out after the body, so a
 * straight scan would call them framed.  The state is therefore carried
 * along the function's direct control flow (fall-through, jmp/jcc/loop
 * targets inside the function).  Instructions reached only indirectly (a
 * jump table) take the straight-scan state; where two paths disagree the
 * site says "no frame", the safe choice (the walk then starts at the
 * caller's frame and at worst misses the immediate caller).
 */
#define FS_UNSEEN	0xff
#define FS_CONFLICT	0xfe

struct x86i {
	u32 off;
	u8 len, cls, b0, b1, st;
	s32 to;			/* index of a direct branch target, or -1 */
};

static u8 fs_after(const struct x86i *i, u8 st)
{
	if (i->cls == XDT_INSN_PUSH_RBP && st == 0)
		return XDT_X86_FRAME_PUSHED;
	if (i->cls == XDT_INSN_MOV_RSP_RBP)
		return 1;
	if (i->len == 1 && (i->b0 == 0x5d || i->b0 == 0xc9))
		return 0;		/* pop %rbp, leave */
	return st;
}

static bool ends_block(const struct x86i *i)
{
	return i->cls == XDT_INSN_RET || i->cls == XDT_INSN_JMP_REL ||
	       i->cls == XDT_INSN_JMP_IND || i->cls == XDT_INSN_BRK ||
	       (i->b0 == 0x0f && i->b1 == 0x0b);  /* ud2: BUG() stays */
}

static void fs_flow(struct x86i *v, u32 n, u32 *work)
{
	u32 top = 0, i;
	u8 lin = 0;
	bool had = false;

	for (i = 0; i < n; i++)
		v[i].st = FS_UNSEEN;
	v[0].st = 0;
	work[top++] = 0;
	while (top) {
		u32 k = work[--top];
		u8 out = v[k].st == FS_CONFLICT ? FS_CONFLICT :
					  fs_after(&v[k], v[k].st);
		s32 succ[2] = { -1, v[k].to };
		unsigned int j;

		if (out == FS_CONFLICT && v[k].cls == XDT_INSN_MOV_RSP_RBP)
			out = 1;
		if (!ends_block(&v[k]) && k + 1 < n)
			succ[0] = k + 1;
		for (j = 0; j < 2; j++) {
			s32 t = succ[j];

			if (t < 0 || v[t].st == out || v[t].st == FS_CONFLICT)
				continue;
			v[t].st = v[t].st == FS_UNSEEN ? out : FS_CONFLICT;
			work[top++] = t;	/* each index at most 3 times */
		}
	}
	/* Unreached directly: the straight scan's state. */
	for (i = 0; i < n; i++) {
		if (v[i].st == FS_UNSEEN)
			v[i].st = lin;
		else if (v[i].st == FS_CONFLICT)
			v[i].st = 0;
		lin = fs_after(&v[i], lin);
		if (lin == 1)
			had = true;
		if (ends_block(&v[i]))
			lin = had;
	}
}

const char *xdt_kinst_arch_sites(unsigned long addr, unsigned long size,
				 xdt_kinst_add_t add, void *ctx)
{
	u8 ib[XDT_X86_MAX_INSN_LEN];
	struct xdt_insn in;
	const char *why = NULL;
	struct x86i *v;
	unsigned long off;
	u32 *work, n = 0, i;

	v = kvmalloc_array(size, sizeof(*v), GFP_KERNEL);
	work = kvmalloc_array(3 * size + 1, sizeof(*work), GFP_KERNEL);
	if (!v || !work) {
		why = "out of memory";
		goto out;
	}
	for (off = 0; off < size; off += in.len, n++) {
		size_t avail = min(size - off,
				   (unsigned long)XDT_X86_MAX_INSN_LEN);

		if (copy_from_kernel_nofault(ib, (void *)(addr + off), avail)) {
			why = "text not readable";
			goto out;
		}
		if (!xdt_x86_decode(ib, avail, &in)) {
			why = "does not decode to its end";
			goto out;
		}
		v[n] = (struct x86i){ .off = off, .len = in.len, .cls = in.cls,
				      .b0 = ib[0], .b1 = ib[1], .to = -1 };
		if (in.cls == XDT_INSN_JMP_REL || in.cls == XDT_INSN_JCC_REL ||
		    in.cls == XDT_INSN_LOOP) {
			long t = (long)off + in.len + in.rel;

			/* An index once the offsets are known: off for now. */
			if (t >= 0 && t < (long)size)
				v[n].to = (s32)t;
		}
	}
	/* Branch target offsets to indices (offsets ascend). */
	for (i = 0; i < n; i++) {
		u32 lo = 0, hi = n;

		if (v[i].to < 0)
			continue;
		while (lo < hi) {
			u32 mid = (lo + hi) / 2;

			if (v[mid].off < (u32)v[i].to)
				lo = mid + 1;
			else
				hi = mid;
		}
		v[i].to = lo < n && v[lo].off == (u32)v[i].to ? (s32)lo : -1;
	}
	fs_flow(v, n, work);

	for (i = 0; i < n; i++) {
		struct xdt_kinst_desc d = { .off = v[i].off, .len = v[i].len,
					    .orig = v[i].b0,
					    .frame = v[i].st };

		off = v[i].off;
		if (copy_from_kernel_nofault(ib, (void *)(addr + off),
					     v[i].len) ||
		    xdt_x86_decode(ib, v[i].len, &in) != v[i].len) {
			why = "text changed while decoding";
			goto out;
		}
		switch (in.cls) {
		case XDT_INSN_JMP_REL:
			d.kind = K_JMP;
			d.aux = addr + off + in.len + in.rel;
			break;
		case XDT_INSN_JCC_REL:
			/* 7x rel8 or 0f 8x rel32: cc is the opcode's nibble. */
			d.kind = K_JCC + (ib[in.imm_off - 1] & 0xf);
			d.aux = addr + off + in.len + in.rel;
			break;
		case XDT_INSN_CALL_REL:
			d.kind = K_CALL;
			d.aux = addr + off + in.len + in.rel;
			break;
		case XDT_INSN_LOOP:
			if (in.len != 2)
				d.why = "loop/jrcxz with an address-size prefix";
			d.kind = K_LOOP;
			d.aux = addr + off + in.len + in.rel;
			break;
		case XDT_INSN_RET:
			d.kind = ib[in.len - 1] == 0xc3 ? K_RET :
			       ib[in.len - 3] == 0xc2 ? K_RET_IMM : 0;
			if (!d.kind)
				d.why = "unsupported return form";
			break;
		case XDT_INSN_CALL_IND:
		case XDT_INSN_JMP_IND: {
			u8 reg = (ib[in.modrm_off] >> 3) & 7;

			if (reg == 3 || reg == 5)
				d.why = "far call or jump";
			else
				d.why = pack_ind(ib, &in, &d.aux);
			d.kind = in.cls == XDT_INSN_CALL_IND ? K_CALL_IND :
							       K_JMP_IND;
			break;
		}
		case XDT_INSN_BRK:
			d.why = "existing breakpoint (int3)";
			break;
		case XDT_INSN_REFUSED:
			d.why = "privileged, interrupt-state or trapping insn";
			break;
		case XDT_INSN_BAD:
			d.why = "undecodable";
			break;
		default:
			d.kind = K_XOL;
			d.xol = true;
			break;
		}
		if (add(ctx, &d)) {
			why = "too many instructions";
			goto out;
		}
	}
out:
	kvfree(v);
	kvfree(work);
	return why;
}

unsigned int xdt_kinst_arch_xol(struct xdt_site *s, unsigned long slot,
				u8 *buf, const char **why)
{
	u8 ib[XDT_X86_MAX_INSN_LEN];
	struct xdt_insn in;
	s64 rel;

	if (copy_from_kernel_nofault(ib, (void *)s->addr, s->len) ||
	    xdt_x86_decode(ib, s->len, &in) != s->len) {
		*why = "text changed under kinst";
		return 0;
	}
	memcpy(buf, ib, s->len);
	if (in.rip_rel) {
		s32 disp;
		s64 nd;

		memcpy(&disp, ib + in.disp_off, 4);
		/* Same target: s->addr + len + disp == slot + len + nd. */
		nd = (s64)disp + (s64)(s->addr - slot);
		if (nd != (s32)nd) {
			*why = "RIP-relative operand out of trampoline reach";
			return 0;
		}
		disp = (s32)nd;
		memcpy(buf + in.disp_off, &disp, 4);
	}
	rel = (s64)(s->addr + s->len) - (s64)(slot + s->len + 5);
	if (rel != (s32)rel) {
		*why = "trampoline out of jmp rel32 reach";
		return 0;
	}
	buf[s->len] = 0xe9;
	memcpy(buf + s->len + 1, &(s32){ (s32)rel }, 4);
	return s->len + 5;
}

/* ---- probe context ---------------------------------------------------------- */
static bool __xdt_probe cond(unsigned long f, u8 cc)
{
	bool r;

	switch (cc >> 1) {
	case 0: r = f & X86_EFLAGS_OF; break;
	case 1: r = f & X86_EFLAGS_CF; break;
	case 2: r = f & X86_EFLAGS_ZF; break;
	case 3: r = f & (X86_EFLAGS_CF | X86_EFLAGS_ZF); break;
	case 4: r = f & X86_EFLAGS_SF; break;
	case 5: r = f & X86_EFLAGS_PF; break;
	case 6: r = !(f & X86_EFLAGS_SF) != !(f & X86_EFLAGS_OF); break;
	default:
		r = (f & X86_EFLAGS_ZF) ||
		    !(f & X86_EFLAGS_SF) != !(f & X86_EFLAGS_OF);
		break;
	}
	return r ^ (cc & 1);
}

static unsigned long __xdt_probe gpr(struct pt_regs *regs, unsigned int n)
{
	switch (n) {
	case 0: return regs->ax;
	case 1: return regs->cx;
	case 2: return regs->dx;
	case 3: return regs->bx;
	case 4: return regs->sp;
	case 5: return regs->bp;
	case 6: return regs->si;
	case 7: return regs->di;
	case 8: return regs->r8;
	case 9: return regs->r9;
	case 10: return regs->r10;
	case 11: return regs->r11;
	case 12: return regs->r12;
	case 13: return regs->r13;
	case 14: return regs->r14;
	default: return regs->r15;
	}
}

/*
 * The target of jmp/call *r/m.  A memory operand that cannot be read
 * leaves the target 0: the jump then faults at 0 as the real instruction
 * would have faulted on its operand (the kernel oopses either way; xdt
 * does not make it worse).
 */
static unsigned long __xdt_probe ind_target(struct xdt_site *s,
					    struct pt_regs *regs)
{
	u8 modrm = s->aux, sib = s->aux >> 8, rex = s->aux >> 16;
	s32 disp = (s32)(s->aux >> 32);
	unsigned int mod = modrm >> 6, rm = (modrm & 7) | (rex & 1) << 3;
	unsigned long ea, v = 0;

	if (mod == 3)
		return gpr(regs, rm);
	if ((modrm & 7) == 5 && mod == 0) {
		ea = s->addr + s->len + disp;		/* RIP-relative */
	} else if ((modrm & 7) == 4) {
		unsigned int base = (sib & 7) | (rex & 1) << 3;
		unsigned int idx = ((sib >> 3) & 7) | (rex & 2) << 2;

		ea = ((sib & 7) == 5 && mod == 0) ? 0 : gpr(regs, base);
		if (idx != 4)
			ea += gpr(regs, idx) << (sib >> 6);
		ea += disp;
	} else {
		ea = gpr(regs, rm) + disp;
	}
	copy_from_kernel_nofault(&v, (void *)ea, sizeof(v));
	return v;
}

void __xdt_probe xdt_kinst_arch_emulate(struct xdt_site *s,
					struct pt_regs *regs)
{
	unsigned long next = s->addr + s->len, t;
	u8 op;

	if (s->kind >= K_JCC) {
		regs->ip = cond(regs->flags, s->kind - K_JCC) ? s->aux : next;
		return;
	}
	switch (s->kind) {
	case K_XOL:
		regs->ip = s->xol;
		break;
	case K_JMP:
		regs->ip = s->aux;
		break;
	case K_CALL:
		int3_emulate_push(regs, next);
		regs->ip = s->aux;
		break;
	case K_RET:
		int3_emulate_ret(regs);
		break;
	case K_RET_IMM: {
		u16 imm = 0;

		copy_from_kernel_nofault(&imm, (void *)(s->addr + 1), 2);
		int3_emulate_ret(regs);
		regs->sp += imm;
		break;
	}
	case K_LOOP:
		op = s->orig;
		if (op == 0xe3) {			/* jrcxz */
			regs->ip = regs->cx ? next : s->aux;
			break;
		}
		regs->cx--;
		if (regs->cx && (op == 0xe2 ||
				 (op == 0xe1 && (regs->flags & X86_EFLAGS_ZF)) ||
				 (op == 0xe0 && !(regs->flags & X86_EFLAGS_ZF))))
			regs->ip = s->aux;
		else
			regs->ip = next;
		break;
	case K_JMP_IND:
		regs->ip = ind_target(s, regs);
		break;
	case K_CALL_IND:
		t = ind_target(s, regs);
		int3_emulate_push(regs, next);
		regs->ip = t;
		break;
	}
}
