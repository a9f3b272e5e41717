// SPDX-License-Identifier: GPL-2.0
/*
 * ppc64le trap glue.  A trap instruction in the kernel raises a program
 * check (0x700, entered at program_check_common), and 6.1's
 * do_program_check() hands a REASON_TRAP to the debugger (kgdb, while
 * kgdboc is registered), kprobes, the die notifiers and the BUG table, in
 * that order; kernel.patch puts xdt_trap_hook in front of all of them,
 * called with interrupts (soft-)masked, which makes the call an RCU
 * read-side section.  SRR0, saved as regs->nip, points at the trap
 * itself.
 *
 * Writing sites: kernel.patch's xdt_patch_text_batch() stops every CPU,
 * writes each word with patch_instruction() (the per-CPU poke mapping,
 * then dcbst/sync/icbi/sync/isync) and has every CPU execute isync before
 * it resumes.
 */
#include <linux/uaccess.h>

#include "xdt_arch.h"

extern bool (*xdt_trap_hook)(struct pt_regs *regs);
extern int xdt_patch_text_batch(void *const *addrs, const u32 *insns,
				unsigned int n);

static bool __xdt_probe xdt_program_check(struct pt_regs *regs)
{
	return xdt_trap(regs, regs->nip);
}

int xdt_arch_trap_init(void)
{
	if (cmpxchg(&xdt_trap_hook, NULL, xdt_program_check) != NULL)
		return -EBUSY;
	return 0;
}

void xdt_arch_trap_exit(void)
{
	WRITE_ONCE(xdt_trap_hook, NULL);
	synchronize_rcu();
}

int xdt_arch_poke(unsigned long *addrs, const xdt_patchval_t *vals,
		  unsigned int n)
{
	return xdt_patch_text_batch((void *const *)addrs, vals, n);
}

/*
 * The frame the core walks from is the caller's r1 (isa.h): at an fbt
 * site the function has no frame of its own (entry: before its prologue;
 * return: after its epilogue), r1 is its caller's, and the back chain
 * there leads to the caller's caller, whose LR save word holds the
 * caller's return address.  The function's own return address is in LR.
 */
bool __xdt_probe xdt_arch_stack_start(struct pt_regs *regs, u8 frame,
				      u64 *ret, unsigned long *fp)
{
	*ret = regs->link;
	return !copy_from_kernel_nofault(fp, (void *)regs->gpr[1],
					 sizeof(*fp));
}

/*
 * xdt.ko's own text (kinst trampolines, once kinst is ported): word by
 * word through the same batch.
 */
int xdt_arch_text_copy(void *dst, const void *src, size_t len)
{
	void *addrs[8];
	u32 insns[8];
	unsigned int n = 0;
	size_t off;
	int ret;

	if (((unsigned long)dst | len) & 3)
		return -EINVAL;
	for (off = 0; off < len; off += 4) {
		addrs[n] = dst + off;
		memcpy(&insns[n++], src + off, 4);
		if (n == ARRAY_SIZE(addrs) || off + 4 == len) {
			ret = xdt_patch_text_batch(addrs, insns, n);
			if (ret)
				return ret;
			n = 0;
		}
	}
	return 0;
}

/*
 * The interrupted function's record is its caller's frame (isa.h): the
 * back chain at r1.  Unreadable, 0 ends the walk.
 */
unsigned long __xdt_probe xdt_arch_frame_pointer(struct pt_regs *regs)
{
	unsigned long fp;

	if (copy_from_kernel_nofault(&fp, (void *)regs->gpr[1], sizeof(fp)))
		return 0;
	return fp;
}
