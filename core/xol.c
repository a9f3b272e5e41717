// SPDX-License-Identifier: GPL-2.0
/*
 * Out-of-line execution slots for kinst.
 *
 * An instruction that is not emulated in the trap handler runs from a
 * trampoline: the instruction (relocated by the ISA if it must be) and the
 * way back to the function.  Where the trampolines live is a trade-off:
 *
 *  - xdt.ko's own text (chosen).  It is already executable, the kernel's
 *    text-patching primitives write it (every ISA's handles module text),
 *    it is never instrumented (fbt and kinst skip xdt.ko), and modules are
 *    placed near the kernel on every ISA (x86_64: within the +-2 GiB a
 *    RIP-relative displacement or a jmp rel32 reaches; arm64 without
 *    KASLR: within the +-128 MiB of a b).  Its size is fixed at build
 *    time: XDT_XOL_SIZE bytes.
 *  - module_alloc() pages, as kprobes does: no fixed limit, but each ISA
 *    needs its own permission dance (set_memory_rox and friends), which
 *    the porting interface would then have to carry.
 *
 * Slots are per enabled probe, not per CPU: a CPU interrupted inside a
 * trampoline comes back to the same bytes, and no slot is shared, so
 * nothing in probe context allocates or locks.  They are given out when an
 * enabling starts (GO), so listing any number of functions costs none, and
 * taken back when it stops, after its sites are restored and an RCU grace
 * period has passed; on these non-preemptible
 * kernels (PREEMPT_NONE) a CPU cannot be switched out in the middle of a
 * trampoline, because the only instructions that could call into code that
 * sleeps -- calls -- are always emulated, never run out of line.
 */
#include <linux/bitmap.h>
#include <linux/stringify.h>

#include "xdt_arch.h"

#define XDT_XOL_SIZE	(256 * 1024)
#define XDT_XOL_NSLOTS	(XDT_XOL_SIZE / XDT_XOL_SLOT)

/*
 * Page-aligned, in the module's executable sections; never called, only
 * jumped to once a slot is written.  Filled with the ISA's XDT_XOL_FILL
 * (isa.h says why that byte); no fill byte is ever run.
 */
asm(".pushsection .text.xdt_xol, \"ax\"\n"
    ".balign 4096\n"
    ".globl xdt_xol_area\n"
    "xdt_xol_area:\n"
    ".fill " __stringify(XDT_XOL_SIZE) ", 1, " __stringify(XDT_XOL_FILL) "\n"
    ".popsection\n");
extern const u8 xdt_xol_area[];

static DECLARE_BITMAP(used, XDT_XOL_NSLOTS);
static struct xdt_site *owner[XDT_XOL_NSLOTS];

/*
 * Give @s a slot and let the ISA write its trampoline there.  Returns NULL
 * or why @s cannot run out of line.  Caller holds xdt_lock.
 */
static const char *xol_alloc(struct xdt_site *s)
{
	u8 buf[XDT_XOL_SLOT];
	const char *why = NULL;
	unsigned long slot;
	unsigned int i, len;

	lockdep_assert_held(&xdt_lock);
	i = find_first_zero_bit(used, XDT_XOL_NSLOTS);
	if (i >= XDT_XOL_NSLOTS)
		return "no trampoline slot left";
	slot = (unsigned long)xdt_xol_area + (unsigned long)i * XDT_XOL_SLOT;
	memset(buf, 0, sizeof(buf));
	s->resume = 0;
	len = xdt_kinst_arch_xol(s, slot, buf, &why);
	if (!len)
		return why ? why : "cannot run out of line";
	if (xdt_arch_text_copy((void *)slot, buf, len))
		return "trampoline write failed";
	__set_bit(i, used);
	WRITE_ONCE(owner[i], s);
	s->xol = slot;
	return NULL;
}

/* @s is not patched in and a grace period has passed.  Holds xdt_lock. */
static void xol_free(struct xdt_site *s)
{
	unsigned long i;

	/*
	 * Only an out-of-line site's xol is a slot: an fbt site reached by
	 * an ISA's trampoline keeps the ISA's own bookkeeping there
	 * (xdt_impl.h), and a release handed such a site would clear a bit
	 * far outside used[].
	 */
	if (!s->ool || !s->xol)
		return;
	/* a site a STOP could not restore may still trap into its slot */
	if (READ_ONCE(s->enabled))
		return;
	i = (s->xol - (unsigned long)xdt_xol_area) / XDT_XOL_SLOT;
	WRITE_ONCE(owner[i], NULL);
	__clear_bit(i, used);
	s->xol = 0;
}

/*
 * Trampolines for every out-of-line site of an enabling, before any is
 * patched in.  All or nothing.  Holds xdt_lock.
 */
int xdt_xol_prepare(struct xdt_site **sites, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		const char *why;

		if (!sites[i]->ool || sites[i]->xol)
			continue;
		why = xol_alloc(sites[i]);
		if (why) {
			pr_err("xdt: kinst %ps: %s (%u out-of-line probes "
			       "at most)\n", (void *)sites[i]->addr, why,
			       XDT_XOL_NSLOTS);
			xdt_xol_release(sites, i);
			return -ENOSPC;
		}
	}
	return 0;
}

/* After the sites are restored and a grace period.  Holds xdt_lock. */
void xdt_xol_release(struct xdt_site **sites, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		xol_free(sites[i]);
}

/*
 * Probe context.  A trap inside a slot is the second trap of a trampoline
 * that ends in the ISA's breakpoint: continue in the function.
 */
bool __xdt_probe xdt_xol_trap(struct pt_regs *regs, unsigned long addr)
{
	unsigned long base = (unsigned long)xdt_xol_area;
	struct xdt_site *s;

	if (addr < base || addr >= base + XDT_XOL_SIZE)
		return false;
	s = READ_ONCE(owner[(addr - base) / XDT_XOL_SLOT]);
	if (!s || !s->resume)
		return false;
	this_cpu_inc(xdt_cpu.traps);
	instruction_pointer_set(regs, s->resume);
	return true;
}

unsigned int xdt_xol_used(void)
{
	return bitmap_weight(used, XDT_XOL_NSLOTS);
}
