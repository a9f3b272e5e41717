// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 user space: the SysV ABI's arguments at a function's first
 * instruction (%rdi, %rsi, %rdx, %rcx, %r8, %r9, then the stack above the
 * return address the call pushed).
 */
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/stddef.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "xdt_arch.h"
#include "decode.h"

unsigned int __xdt_probe xdt_uarch_args(struct pt_regs *regs, u64 *args)
{
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->cx;
	args[4] = regs->r8;
	args[5] = regs->r9;
	return 6;
}

unsigned long __xdt_probe xdt_uarch_stack_arg(struct pt_regs *regs,
					      unsigned int i)
{
	return regs->sp + 8 + (i - 6) * 8UL;
}

unsigned long __xdt_probe xdt_uarch_frame_pointer(struct pt_regs *regs)
{
	return regs->bp;
}

/* At the first instruction the call's return address is at (%rsp). */
bool __xdt_probe xdt_uarch_entry_ret(struct pt_regs *regs, u64 *ret)
{
	return !copy_from_user_nofault(ret, (void __user *)regs->sp,
				       sizeof(*ret));
}

/*
 * What 6.1's x86 uprobes will not single-step (arch/x86/kernel/uprobes.c,
 * uprobe_init_insn): registering one fails at GO with a bare EINVAL, so
 * the offset is refused here with the reason.  The first opcode byte's
 * verdict (after legacy prefixes, REX and VEX/EVEX; 0x0f passes, as
 * there), lock and ES/CS/DS/SS prefixes, and mov to %ss.  Bit n of the
 * table: one-byte opcode n may be probed.
 */
static const u32 uprobe_ok_op1[8] = {
	0x3f3fbf3f, 0x7f7f7f7f, 0xffffffff, 0xffff0ff8,
	0xfbfffffb, 0xffffffff, 0xff8f0fff, 0xf3ed0b0f
};

static const char *uprobe_refuses(const u8 *p, size_t avail)
{
	size_t i = 0;
	u8 op;

	for (; i < avail; i++) {
		u8 b = p[i];

		if (b == 0xf0 || b == 0x26 || b == 0x2e || b == 0x36 || b == 0x3e)
			return "a lock or segment prefix (6.1's uprobes reject it)";
		if (b != 0x66 && b != 0x67 && b != 0xf2 && b != 0xf3 &&
		    b != 0x64 && b != 0x65)
			break;
	}
	if (i < avail && (p[i] & 0xf0) == 0x40)
		i++;			/* REX */
	if (i >= avail)
		return NULL;
	if (p[i] == 0xc5)
		i += 2;			/* 2-byte VEX, then the opcode */
	else if (p[i] == 0xc4)
		i += 3;
	else if (p[i] == 0x62)
		i += 4;			/* EVEX */
	if (i >= avail)
		return NULL;
	op = p[i];
	if (op == 0x8e && i + 1 < avail && ((p[i + 1] >> 3) & 7) == 2)
		return "mov to %ss (6.1's uprobes reject it)";
	if (!(uprobe_ok_op1[op >> 5] & (1u << (op & 31))))
		return "an opcode 6.1's uprobes reject";
	return NULL;
}

/* x86_64's decoder runs on user text as on the kernel's: one 64-bit ISA. */
unsigned int xdt_uarch_insn(const u8 *p, size_t avail, const char **why)
{
	struct xdt_insn in;

	*why = NULL;
	if (!xdt_x86_decode(p, avail, &in) || in.cls == XDT_INSN_BAD || !in.len)
		return 0;
	if (in.cls == XDT_INSN_BRK)
		*why = "an existing breakpoint";
	else if (in.cls == XDT_INSN_REFUSED)
		*why = "privileged, or traps";
	else
		*why = uprobe_refuses(p, in.len);
	return in.len;
}

/*
 * uregs[]: DTrace's register names for the ISA, in the order that is
 * their index (the Makefile makes the guests' /usr/lib/xdt/regs.d from
 * these lines: R_NAME is the row's number).  illumos' amd64 names, then the generic R_PC, R_SP, R_FP, R_PS and R_R0/R_R1 (the return value pair).
 */
#define UREG(name, field) { name, offsetof(struct pt_regs, field) }
static const struct {
	const char *name;
	unsigned int off;
} uregs[] = {
	UREG("R_R15", r15),
	UREG("R_R14", r14),
	UREG("R_R13", r13),
	UREG("R_R12", r12),
	UREG("R_R11", r11),
	UREG("R_R10", r10),
	UREG("R_R9", r9),
	UREG("R_R8", r8),
	UREG("R_RDI", di),
	UREG("R_RSI", si),
	UREG("R_RBP", bp),
	UREG("R_RBX", bx),
	UREG("R_RDX", dx),
	UREG("R_RCX", cx),
	UREG("R_RAX", ax),
	UREG("R_RIP", ip),
	UREG("R_CS", cs),
	UREG("R_RFL", flags),
	UREG("R_RSP", sp),
	UREG("R_SS", ss),
	UREG("R_PC", ip),
	UREG("R_SP", sp),
	UREG("R_FP", bp),
	UREG("R_PS", flags),
	UREG("R_R0", ax),
	UREG("R_R1", dx),
};

bool xdt_uarch_reg(struct pt_regs *regs, u64 i, u64 *v)
{
	if (i >= ARRAY_SIZE(uregs))
		return false;
	*v = *(unsigned long *)((char *)regs + uregs[i].off);
	return true;
}

const char *xdt_uarch_ureg_name(u64 i)
{
	return i < ARRAY_SIZE(uregs) ? uregs[i].name : NULL;
}

/*
 * USDT operands name a register by any of its widths (GCC picks the one
 * of the argument's type): rdi edi di dil, r8 r8d r8w r8b.  The high
 * bytes (ah) have no uregs row of their own and are refused.
 */
bool xdt_uarch_sdt_reg(const char *as, char *buf, size_t len)
{
	static const char *const legacy[] = { "ax", "bx", "cx", "dx", "si",
					       "di", "bp", "sp" };
	size_t n = strlen(as), i;

	if (n >= 2 && as[0] == 'r' && isdigit(as[1])) {	/* r8..r15[dwb] */
		size_t d = 1 + strspn(as + 1, "0123456789");

		if (d < n - 1 || (d == n - 1 && !strchr("dwb", as[d])))
			return false;
		snprintf(buf, len, "R_R%.*s", (int)(d - 1), as + 1);
		return true;
	}
	if (!strcmp(as, "rip")) {
		snprintf(buf, len, "R_RIP");
		return true;
	}
	for (i = 0; i < ARRAY_SIZE(legacy); i++) {
		const char *l = legacy[i];

		if ((n == 3 && (as[0] == 'r' || as[0] == 'e') &&
		     !strcmp(as + 1, l)) || !strcmp(as, l) ||
		    /* al bl cl dl; sil dil bpl spl */
		    (l[1] == 'x' && n == 2 && as[0] == l[0] && as[1] == 'l') ||
		    (l[1] != 'x' && n == 3 && !strncmp(as, l, 2) && as[2] == 'l')) {
			snprintf(buf, len, "R_R%c%c", toupper(l[0]),
				 toupper(l[1]));
			return true;
		}
	}
	return false;
}
