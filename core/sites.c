// SPDX-License-Identifier: GPL-2.0
/*
 * Patch sites: the address hash the trap handler looks sites up in, and
 * the batched patching of an enabling's sites.  The hash is only changed
 * with no site of the changed provider patched in.
 */
#include <linux/hash.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/vmalloc.h>

#include "xdt_arch.h"

#define SITE_HASH_BITS	16
static struct xdt_site *site_hash[1 << SITE_HASH_BITS];

static inline u32 __xdt_probe site_bucket(unsigned long addr)
{
	return hash_long(addr, SITE_HASH_BITS);
}

void xdt_site_insert(struct xdt_site *site)
{
	u32 b = site_bucket(site->addr);

	site->hnext = site_hash[b];
	/* Publish a fully built site to the lock-free trap-time lookup. */
	smp_store_release(&site_hash[b], site);
}

/* Only for sites that are not patched in; callers wait for RCU before free. */
void xdt_site_remove(struct xdt_site *site)
{
	struct xdt_site **pp = &site_hash[site_bucket(site->addr)];

	for (; *pp; pp = &(*pp)->hnext) {
		if (*pp == site) {
			WRITE_ONCE(*pp, site->hnext);
			return;
		}
	}
}

/*
 * fbt and kinst may both have a site at one address (an entry NOP, a ret);
 * at most one of them is patched in at a time (sites_write refuses the
 * second), and a trap belongs to that one.
 */
struct xdt_site *__xdt_probe xdt_site_lookup(unsigned long addr)
{
	struct xdt_site *s = smp_load_acquire(&site_hash[site_bucket(addr)]);
	struct xdt_site *first = NULL;

	for (; s; s = READ_ONCE(s->hnext)) {
		if (s->addr != addr)
			continue;
		if (READ_ONCE(s->enabled))
			return s;
		if (!first)
			first = s;
	}
	return first;
}

/* Probe context: the site at @addr reached @via (core/fentry.c). */
struct xdt_site *__xdt_probe xdt_site_lookup_via(unsigned long addr, u8 via)
{
	struct xdt_site *s = smp_load_acquire(&site_hash[site_bucket(addr)]);

	for (; s; s = READ_ONCE(s->hnext))
		if (s->addr == addr && READ_ONCE(s->via) == via)
			return s;
	return NULL;
}

/*
 * Is an xdt site enabled in [@addr, @addr + @len)?  For a provider that
 * patches by other means (a stable probe's kprobe): the two must not meet
 * on one instruction.  xdt_lock.
 */
bool xdt_sites_enabled_in(unsigned long addr, unsigned long len)
{
	unsigned long a;

	for (a = addr; a < addr + len; a++)
		if (xdt_site_busy(a))
			return true;
	return false;
}

/* Is a breakpoint of xdt's (any site's) patched in at @addr? */
bool xdt_site_busy(unsigned long addr)
{
	struct xdt_site *s = site_hash[site_bucket(addr)];

	for (; s; s = s->hnext)
		if (s->addr == addr && s->enabled)
			return true;
	return false;
}

/*
 * Is another site at @s's address enabled too?  Every site of a batch is
 * marked enabled before it is written, so this finds a second probe on the
 * same instruction in the batch as well as one already patched in.  One
 * breakpoint can only be one site's.
 */
static bool site_shared(struct xdt_site *s)
{
	struct xdt_site *o = site_hash[site_bucket(s->addr)];

	for (; o; o = o->hnext)
		if (o != s && o->addr == s->addr && o->enabled)
			return true;
	return false;
}

/*
 * Write the patch (@on) or the original back at @n sites.  Going in, every
 * site is first checked to hold the instruction xdt decoded; if any does
 * not (ftrace, kprobes or a debugger owns it now) nothing is written and
 * the call fails with -EBUSY.  Going out, each site on its own (see
 * sites_write_off).  The ISA writes them in chunks: tens of
 * thousands of sites at once would hold the text lock and the CPUs for
 * tens of seconds (an RCU stall on this non-preemptible kernel under
 * TCG).  Every site is valid on its own, so a half-done batch is a
 * consistent state.
 */
#define XDT_POKE_CHUNK	512

/*
 * The chunk being written, in static memory (xdt_lock serialises every
 * GO and STOP): restoring the text must not depend on an allocation, or a
 * STOP that met memory pressure would leave breakpoints behind it, owned
 * by no consumer, and refuse every later enabling there (make soak's
 * fail-nth found exactly that).  8 KiB of .bss buys it.
 */
static unsigned long poke_addrs[XDT_POKE_CHUNK];
static xdt_patchval_t poke_vals[XDT_POKE_CHUNK];

/* Write the patch (@on) or the original at @sites[0..@k). */
static int poke_chunk(struct xdt_site **sites, unsigned int k, bool on)
{
	unsigned int j;

	lockdep_assert_held(&xdt_lock);
	for (j = 0; j < k; j++) {
		poke_addrs[j] = sites[j]->addr;
		poke_vals[j] = on ? sites[j]->patch : sites[j]->orig;
	}
	return xdt_arch_poke(poke_addrs, poke_vals, k);
}

/* Does @s's text hold @want? */
static bool site_holds(const struct xdt_site *s, xdt_patchval_t want)
{
	xdt_patchval_t cur = 0;

	return !copy_from_kernel_nofault(&cur, (void *)s->addr,
					 XDT_PATCH_LEN(s->orig)) &&
	       cur == want;
}

static int sites_write_on(struct xdt_site **sites, unsigned int n)
{
	unsigned int i, k;
	int ret = 0;

	for (i = 0; i < n; i++) {
		struct xdt_site *s = sites[i];
		xdt_patchval_t cur = 0;

		if (site_shared(s)) {
			pr_err("xdt: %ps: two probes on one instruction (fbt "
			       "and kinst): not patching\n", (void *)s->addr);
			return -EBUSY;
		}
		if (copy_from_kernel_nofault(&cur, (void *)s->addr,
					     XDT_PATCH_LEN(s->orig)) ||
		    cur != s->orig) {
			pr_err("xdt: %ps: found %#llx, expected %#llx; "
			       "not patching\n", (void *)s->addr, (u64)cur,
			       (u64)s->orig);
			return -EBUSY;
		}
	}
	for (i = 0; i < n; i += k) {
		k = min_t(unsigned int, n - i, XDT_POKE_CHUNK);
		ret = poke_chunk(sites + i, k, true);
		if (ret)
			break;
		cond_resched();
	}
	if (ret && i) {
		/*
		 * Take back what went in: a breakpoint left behind a site
		 * marked disabled would reach the kernel as a stray trap.
		 */
		for (i = 0; i < n; i += k) {
			k = min_t(unsigned int, n - i, XDT_POKE_CHUNK);
			WARN_ON(poke_chunk(sites + i, k, false));
		}
	}
	return ret;
}

/*
 * Going out, each site is restored on its own: one site whose text
 * someone else changed (a debugger's breakpoint over xdt's) must not keep
 * every other breakpoint of the batch in the kernel with no consumer
 * behind it.  That site is left as it is, said in the log, and stays
 * enabled so a trap there is still xdt's to emulate.
 */
static int sites_write_off(struct xdt_site **sites, unsigned int n)
{
	unsigned int i, k = 0;
	int ret = 0, r;

	lockdep_assert_held(&xdt_lock);
	for (i = 0; i < n; i++) {
		struct xdt_site *s = sites[i];

		if (!site_holds(s, s->patch)) {
			pr_err("xdt: %ps: xdt's patch is no longer there: "
			       "left as it is\n", (void *)s->addr);
			ret = -EBUSY;
		} else {
			poke_addrs[k] = s->addr;
			poke_vals[k++] = s->orig;
		}
		if (k == XDT_POKE_CHUNK || (k && i == n - 1)) {
			r = xdt_arch_poke(poke_addrs, poke_vals, k);
			if (r && !ret)
				ret = r;
			k = 0;
			cond_resched();
		}
	}
	return ret;
}

/*
 * Patch sites in or out.  A site is marked enabled before its breakpoint
 * can be hit and unmarked once it is gone; a trap already in flight on a
 * site that was just restored is recognised by xdt_trap() (the text no
 * longer holds our patch) and simply re-executed.
 */
int xdt_sites_patch(struct xdt_site **sites, unsigned int n, bool on)
{
	unsigned int i;
	int ret;

	if (!n)
		return 0;
	if (on) {
		/* a stable probe's kprobe there: one of the two must yield */
		for (i = 0; i < n; i++)
			if (xdt_addr_claimed(sites[i]->addr) ||
			    sites[i]->enabled)	/* a STOP could not restore it */
				return -EBUSY;
		for (i = 0; i < n; i++)
			WRITE_ONCE(sites[i]->enabled, 1);
		ret = sites_write_on(sites, n);
		if (ret)
			for (i = 0; i < n; i++)
				WRITE_ONCE(sites[i]->enabled, 0);
		return ret;
	}
	ret = sites_write_off(sites, n);
	for (i = 0; i < n; i++)
		if (!ret || site_holds(sites[i], sites[i]->orig))
			WRITE_ONCE(sites[i]->enabled, 0);
	return ret;
}
