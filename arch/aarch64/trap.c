// SPDX-License-Identifier: GPL-2.0
/*
 * aarch64 trap glue.  A BRK at EL1 goes el1_dbg -> do_debug_exception ->
 * brk_handler -> call_break_hook, which picks the hook whose immediate
 * matches the BRK's comment field; kernel.patch exports the hook
 * registration (6.1 keeps it kernel-internal).  The exception is taken with
 * interrupts masked and entered NMI-like for RCU, and
 * unregister_kernel_break_hook() waits for a grace period, so once exit
 * returns no CPU is in xdt_brk().  ELR points at the BRK itself.
 *
 * Writing sites: aarch64_insn_patch_text() (exported by kernel.patch)
 * stops every CPU, writes each word through the fixmap alias, cleans the
 * D-cache and invalidates the I-cache to the point of unification for it,
 * and makes the other CPUs execute an ISB before they resume.  Stopping
 * the machine is what the architecture asks for: only B, BL, BRK, NOP,
 * ISB, SVC, HVC and SMC may be swapped for one another while another CPU
 * executes them, and a BRK over an arbitrary instruction (a ret, a sub)
 * is not such a swap.
 */
#include <linux/cpu.h>
#include <linux/uaccess.h>
#include <asm/debug-monitors.h>
#include <asm/patching.h>

#include "xdt_arch.h"

static int __xdt_probe xdt_brk(struct pt_regs *regs, unsigned long esr)
{
	return xdt_trap(regs, instruction_pointer(regs)) ? DBG_HOOK_HANDLED :
							   DBG_HOOK_ERROR;
}

static struct break_hook xdt_break_hook = {
	.fn = xdt_brk,
	.imm = XDT_BRK_IMM,
};

int xdt_arch_trap_init(void)
{
	register_kernel_break_hook(&xdt_break_hook);
	return 0;
}

void xdt_arch_trap_exit(void)
{
	unregister_kernel_break_hook(&xdt_break_hook);
}

int xdt_arch_poke(unsigned long *addrs, const xdt_patchval_t *vals,
		  unsigned int n)
{
	int ret;

	cpus_read_lock();
	ret = aarch64_insn_patch_text((void **)addrs, (u32 *)vals, n);
	cpus_read_unlock();
	return ret;
}

bool __xdt_probe xdt_arch_stack_start(struct pt_regs *regs, u8 frame,
				      u64 *ret, unsigned long *fp)
{
	/*
	 * Entry sites are before the frame record is pushed and return sites
	 * after it is popped: x30 is the return address, x29 the caller's.
	 * The same holds at every kinst site whose frame is not 1
	 * (kinst_isa.c): between `stp x29, x30, [sp, #-N]!` and `mov x29,
	 * sp` neither register has changed yet, and after `ldp x29, x30`
	 * both are the caller's again; so aarch64 needs no states above 1.
	 */
	*ret = regs->regs[30];
	*fp = regs->regs[29];
	return true;
}

/*
 * kinst trampolines, in xdt.ko's own text: one word at a time through
 * aarch64_insn_patch_text_nosync(), which maps module text writable via
 * the fixmap (STRICT_MODULE_RWX keeps it read-only) and cleans the D-cache
 * and invalidates the I-cache to the point of unification for the word;
 * that maintenance is broadcast to every CPU.  No stop_machine: no CPU can
 * be executing a slot being written (it is new, or its site was restored
 * a grace period ago), and the site's patch that makes it reachable is
 * written afterwards by aarch64_insn_patch_text(), whose ISB on every CPU
 * discards anything fetched from the slot before.
 */
int xdt_arch_text_copy(void *dst, const void *src, size_t len)
{
	size_t i;
	int ret;

	if (((unsigned long)dst | len) & 3)
		return -EINVAL;
	for (i = 0; i < len; i += 4) {
		__le32 w;

		memcpy(&w, src + i, 4);
		ret = aarch64_insn_patch_text_nosync(dst + i, le32_to_cpu(w));
		if (ret)
			return ret;
	}
	return 0;
}

unsigned long __xdt_probe xdt_arch_frame_pointer(struct pt_regs *regs)
{
	return regs->regs[29];
}
