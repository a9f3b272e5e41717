// SPDX-License-Identifier: GPL-2.0
/*
 * riscv64 trap glue.  In 6.1 a kernel-mode ebreak reaches do_trap_break(),
 * which tries kprobes, uprobes and then (only under CONFIG_KGDB)
 * notify_die() before treating it as a BUG; kernel.patch puts
 * xdt_ebreak_hook in front of all of them and calls it with interrupts
 * off (handle_exception re-enables them for exceptions when the
 * interrupted code had them on), which makes the call an RCU read-side
 * section.  sepc points at the ebreak itself.
 *
 * Writing sites: kernel.patch's xdt_patch_text_batch() stops every hart,
 * writes each site (2 or 4 bytes, from the value's low bits) through the
 * fixmap alias, and has every hart execute fence.i before it resumes --
 * Zifencei is the only instruction-fetch barrier RISC-V has, and it is
 * hart-local.
 *
 * kinst's trampolines (xdt_arch_text_copy) go through the same batch.
 * patch_text_nosync() would be the lighter primitive, but its fixmap
 * window (FIX_TEXT_POKE0) is one global mapping that every riscv text
 * writer -- ftrace, jump labels, kprobes, this batch -- serialises with
 * text_mutex, which is not exported: a module calling it unlocked could
 * have its window remapped by a static-key flip on another hart halfway
 * through the write.  The batch takes text_mutex and stops the machine, at
 * the price of one stop_machine() per trampoline written.
 */
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern bool (*xdt_ebreak_hook)(struct pt_regs *regs);
extern int xdt_patch_text_batch(void *const *addrs, const u32 *insns,
				unsigned int n);

static bool __xdt_probe xdt_ebreak(struct pt_regs *regs)
{
	return xdt_trap(regs, regs->epc);
}

int xdt_arch_trap_init(void)
{
	if (cmpxchg(&xdt_ebreak_hook, NULL, xdt_ebreak) != NULL)
		return -EBUSY;
	return 0;
}

void xdt_arch_trap_exit(void)
{
	WRITE_ONCE(xdt_ebreak_hook, NULL);
	synchronize_rcu();
}

int xdt_arch_poke(unsigned long *addrs, const xdt_patchval_t *vals,
		  unsigned int n)
{
	return xdt_patch_text_batch((void *const *)addrs, vals, n);
}

bool __xdt_probe xdt_arch_stack_start(struct pt_regs *regs, u8 frame,
				      u64 *ret, unsigned long *fp)
{
	/* Entry sites precede the prologue and returns follow the epilogue. */
	*ret = regs->ra;
	*fp = regs->s0;
	return true;
}

/*
 * The bytes are instructions (a trampoline): split them into 2- and 4-byte
 * parcels by their low bits, which is how the batch sizes each write.
 */
int xdt_arch_text_copy(void *dst, const void *src, size_t len)
{
	void *addrs[8];
	u32 insns[8];
	const u8 *p = src;
	unsigned int n = 0;
	size_t off = 0;
	int ret;

	if (((unsigned long)dst | len) & 1)
		return -EINVAL;
	while (off < len) {
		u32 v = p[off] | p[off + 1] << 8;
		size_t l = 2;

		if ((v & 3) == 3) {
			if (len - off < 4)
				return -EINVAL;
			v |= p[off + 2] << 16 | (u32)p[off + 3] << 24;
			l = 4;
		}
		addrs[n] = dst + off;
		insns[n++] = v;
		off += l;
		if (n == ARRAY_SIZE(addrs) || off == len) {
			ret = xdt_patch_text_batch(addrs, insns, n);
			if (ret)
				return ret;
			n = 0;
		}
	}
	return 0;
}

unsigned long __xdt_probe xdt_arch_frame_pointer(struct pt_regs *regs)
{
	return regs->s0;
}
