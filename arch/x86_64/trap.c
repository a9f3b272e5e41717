// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 trap glue: the int3 hook (added to do_int3 by kernel.patch),
 * text patching through the patch's xdt_text_poke_bytes(), and the first
 * frame for stack().
 *
 * int3 is a trap: regs->ip points after the 0xcc, so the site is ip - 1.
 * Kernel-mode int3 entry leaves a gap below the interrupted stack
 * (entry_64.S), which is what lets int3_emulate_push() work here.
 */
#include <linux/uaccess.h>
#include <asm/text-patching.h>

#include "xdt_arch.h"

extern bool (*xdt_int3_hook)(struct pt_regs *regs);
extern void xdt_text_poke_bytes(void *const *addrs, const u8 *vals,
				unsigned int n);

static bool __xdt_probe xdt_int3(struct pt_regs *regs)
{
	return xdt_trap(regs, regs->ip - 1);
}

int xdt_arch_trap_init(void)
{
	if (cmpxchg(&xdt_int3_hook, NULL, xdt_int3) != NULL)
		return -EBUSY;
	return 0;
}

void xdt_arch_trap_exit(void)
{
	WRITE_ONCE(xdt_int3_hook, NULL);
	/* int3 handlers are RCU readers (NMI-like entry): wait them out. */
	synchronize_rcu();
}

int xdt_arch_poke(unsigned long *addrs, const xdt_patchval_t *vals,
		  unsigned int n)
{
	/* One byte per site; the patch syncs every CPU (text_poke_sync). */
	xdt_text_poke_bytes((void *const *)addrs, vals, n);
	return 0;
}

bool __xdt_probe xdt_arch_stack_start(struct pt_regs *regs, u8 frame,
				      u64 *ret, unsigned long *fp)
{
	/*
	 * At an entry site (before push %rbp) and at a ret, %rsp points at
	 * the return address and %rbp is still the caller's.  Between push
	 * %rbp and mov %rsp,%rbp (XDT_X86_FRAME_PUSHED, a kinst site) the
	 * return address is one slot up.
	 */
	unsigned long sp = regs->sp + (frame == XDT_X86_FRAME_PUSHED ? 8 : 0);

	*fp = regs->bp;
	return !copy_from_kernel_nofault(ret, (void *)sp, sizeof(*ret));
}

int xdt_arch_text_copy(void *dst, const void *src, size_t len)
{
	/* Through a temporary writable alias; syncs every CPU's view. */
	text_poke_copy(dst, src, len);
	return 0;
}

unsigned long __xdt_probe xdt_arch_frame_pointer(struct pt_regs *regs)
{
	return regs->bp;
}
