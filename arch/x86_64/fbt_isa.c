// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 fbt: entry and return sites, and emulating what they displace.
 *
 * Entry: the site is the ftrace patch site, the 5-byte NOP ftrace_init()
 * leaves where the compiler emitted `call __fentry__`.  It is the first
 * instruction of every traceable function, the arguments are untouched
 * there, and emulating a NOP is just skipping it -- so one trap per
 * firing, no stack games.  The trade-off: ftrace owns that site.  If
 * ftrace (function tracer, kprobes-on-ftrace, a BPF trampoline) has the
 * site live when xdt enables, the bytes are not the NOP and enabling is
 * refused, writing nothing; if ftrace wants the site while xdt holds it,
 * ftrace's own check finds our 0xcc and complains.  So xdt and
 * ftrace-based tracers must not instrument the same function at the same
 * time.  Functions built without the ftrace site (notrace) fall back to
 * their `push %rbp`, emulated with int3_emulate_push().  endbr64 (IBT)
 * is skipped if present; this kernel is built without IBT.
 *
 * Return: every `ret` (c3) found by decoding the function from its first
 * byte to its kallsyms size; the site's probe gets arg0 = offset of the
 * ret and arg1 = %rax, and `ret` is emulated with int3_emulate_ret().
 * The kernel has no return thunks (no RETHUNK in this config); a `jmp`
 * to __x86_return_thunk would need the same treatment as `ret`.  Tail
 * calls (jmp to another function) are not return sites: the callee's
 * return is.  A function that does not decode cleanly gets no return
 * probe.
 */
#include <linux/kernel.h>
#include <linux/uaccess.h>
#include <asm/text-patching.h>

#include "xdt_arch.h"
#include "decode.h"

enum {
	SITE_NOP5 = 1,		/* ftrace's 5-byte NOP: skip it */
	SITE_PUSH_RBP,		/* push %rbp */
	SITE_RET,		/* ret */
};

static const u8 nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

const char *xdt_fbt_arch_sites(unsigned long addr, unsigned long size,
			       xdt_fbt_add_t add, void *ctx)
{
	struct xdt_site_desc d = { .kind = 0 };
	u8 buf[16];
	unsigned long off = 0;
	struct xdt_insn in;
	bool decoded = true;

	if (copy_from_kernel_nofault(buf, (void *)addr, min(size, 16UL)))
		return "text not readable";
	if (size >= 4 && buf[0] == 0xf3 && buf[1] == 0x0f && buf[2] == 0x1e &&
	    buf[3] == 0xfa)
		off = 4;				/* endbr64 */
	d.addr = addr + off;
	d.off = off;
	d.orig = buf[off];
	if (size >= off + 5 && !memcmp(buf + off, nop5, 5)) {
		d.kind = SITE_NOP5;
		d.ftrace = true;
	} else if (size > off && buf[off] == 0x55)
		d.kind = SITE_PUSH_RBP;
	if (d.kind) {
		if (add(ctx, &d))
			return "too many sites";
	} else if (size >= off + 5 && buf[off] == 0xe8) {
		return "ftrace owns the entry site";
	} else {
		return "no ftrace NOP or push %rbp at entry";
	}

	/* Return sites: decode the whole function. */
	for (off = 0; off < size;) {
		u8 ib[16];
		size_t avail = min(size - off, sizeof(ib));

		if (copy_from_kernel_nofault(ib, (void *)(addr + off), avail) ||
		    !xdt_x86_decode(ib, avail, &in)) {
			decoded = false;
			break;
		}
		if (in.cls == XDT_INSN_RET && ib[0] == 0xc3 && in.len == 1) {
			d = (struct xdt_site_desc){ .is_return = true,
				.addr = addr + off, .off = off,
				.kind = SITE_RET, .orig = ib[0] };
			if (add(ctx, &d))
				return "too many sites";
		}
		off += in.len;
	}
	if (!decoded)
		pr_debug("xdt: fbt %ps: undecodable at +%#lx: no return probe\n",
			 (void *)addr, off);
	return NULL;
}

unsigned int __xdt_probe xdt_fbt_arch_args(struct xdt_site *s,
					   struct pt_regs *regs, u64 *args)
{
	unsigned int i;

	if (s->kind == SITE_RET) {
		args[0] = s->arg;
		args[1] = regs->ax;
		for (i = 2; i < XDT_NARGS; i++)
			args[i] = 0;
		return XDT_NARGS;
	}
	args[0] = regs->di;
	args[1] = regs->si;
	args[2] = regs->dx;
	args[3] = regs->cx;
	args[4] = regs->r8;
	args[5] = regs->r9;
	return 6;
}

/* At the entry site %rsp points at the return address; then 7th, 8th, ... */
unsigned long __xdt_probe xdt_fbt_arch_stack_arg(struct xdt_site *s,
						 struct pt_regs *regs,
						 unsigned int i)
{
	return regs->sp + 8 * (i - 5);
}

void __xdt_probe xdt_fbt_arch_emulate(struct xdt_site *s, struct pt_regs *regs)
{
	switch (s->kind) {
	case SITE_NOP5:
		regs->ip = s->addr + 5;
		break;
	case SITE_PUSH_RBP:
		int3_emulate_push(regs, regs->bp);
		regs->ip = s->addr + 1;
		break;
	case SITE_RET:
		int3_emulate_ret(regs);
		break;
	}
}
