// SPDX-License-Identifier: GPL-2.0
/*
 * x86_64 fbtmode=trampoline: the entry NOP becomes `call xdt_tramp_entry`
 * (tramp_entry.S), written by ftrace as a direct call.
 *
 * Why ftrace's direct calls rather than writing the call ourselves: the
 * 5-byte NOP is ftrace's.  A call xdt wrote behind its back would make
 * ftrace, the next time anyone (the function tracer, a kprobe, a BPF
 * trampoline) wanted the function, find bytes it did not expect and shut
 * itself down (ftrace_bug).  Registered as a direct call, the site is
 * ftrace's to share: alone, the function calls the trampoline directly
 * (the cost xdt pays is only the trampoline's); with other ftrace users
 * on the same function, ftrace calls them and then jumps to the
 * trampoline with the same stack.  And the patching is ftrace's batch
 * (text_poke_bp_batch: three syncs per group, whatever its size).
 *
 * 6.1's direct_multi API takes a whole ftrace_ops (a filter of functions)
 * and cannot shrink or grow one while registered, so each batch that goes
 * in is one or more groups (xdt_arch_tramp_on), each with its own ops; a
 * batch that goes out takes whole groups out, and a group only part of
 * which goes (two consumers sharing some probes) is rebuilt without those
 * functions: unregistered, then registered again with the rest.  Between
 * the two, those remaining probes miss their firings -- the one case where
 * this mechanism is not exact; 6.5's update_ftrace_direct_* would remove
 * it.
 */
#include <linux/ftrace.h>
#include <linux/math64.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>
#include <linux/slab.h>

#include "xdt_arch.h"

extern void xdt_tramp_entry(void);

struct group {
	struct ftrace_ops ops;
	struct list_head node;
	u32 n;
	struct xdt_site *sites[];
};

static LIST_HEAD(groups);		/* xdt_lock */
static unsigned int ndirect;		/* sites in the groups; xdt_lock */

/*
 * How many functions one register_ftrace_direct_multi() may add without
 * leaking.  ftrace_add_rec_direct() replaces the direct_functions hash with
 * a bigger copy when it is empty (a copy of 32 buckets: room for 64) or
 * holds more than twice its buckets (a copy of about twice as many), and
 * hands the old one back through the call's single free_hash pointer: a
 * second replacement in one call leaks the first's.  From a hash holding
 * c functions (c >= ndirect, xdt's own) the next two replacements are at
 * least max(64, c - 1) additions apart, so a group that size meets one at
 * most.  XDT_TRAMP_MAX (isa.h) keeps the hash below 4096 buckets' 8192,
 * above which every addition replaces it.
 */
static unsigned int group_cap(void)
{
	return max(64u, ndirect ? ndirect - 1 : 0);
}

static struct group *group_new(struct xdt_site **sites, u32 n)
{
	struct group *g = kzalloc(struct_size(g, sites, n), GFP_KERNEL);
	unsigned long *ips = kvmalloc_array(n, sizeof(*ips), GFP_KERNEL);
	int ret = -ENOMEM;
	u32 i;

	if (g && ips) {
		for (i = 0; i < n; i++) {
			g->sites[i] = sites[i];
			ips[i] = sites[i]->addr;
		}
		g->n = n;
		ret = ftrace_set_filter_ips(&g->ops, ips, n, 0, 0);
		if (!ret)
			ret = register_ftrace_direct_multi(&g->ops,
					(unsigned long)xdt_tramp_entry);
		if (ret)
			ftrace_free_filter(&g->ops);
	}
	kvfree(ips);
	if (ret) {
		kfree(g);
		return ERR_PTR(ret);
	}
	for (i = 0; i < n; i++)
		sites[i]->xol = (unsigned long)g;
	list_add(&g->node, &groups);
	ndirect += n;
	return g;
}

/* Out of ftrace; @g's memory (and its site list) stays until kfree. */
static void group_unregister(struct group *g)
{
	u32 i;

	if (unregister_ftrace_direct_multi(&g->ops,
					   (unsigned long)xdt_tramp_entry))
		pr_err("xdt: could not remove a trampoline group\n");
	ftrace_free_filter(&g->ops);
	for (i = 0; i < g->n; i++)
		if (g->sites[i]->xol == (unsigned long)g)
			g->sites[i]->xol = 0;
	list_del(&g->node);
	ndirect -= g->n;
}

static void group_free(struct group *g)
{
	group_unregister(g);
	kfree(g);
}

/* ftrace knows the site (fbt checked): the direct call can take it. */
bool xdt_arch_tramp_ok(unsigned long site)
{
	return true;
}

/*
 * A batch goes in as several groups, with a reschedule between them.
 * ftrace adds a group's functions one at a time (an allocation each, to
 * the filter and then to its direct-call hash) and patches them in one
 * text_poke batch, none of it rescheduling: with fbt:::entry's 16k
 * functions in one group, the debug kernel (KASAN and slab debugging save
 * a stack per allocation through unwinder functions whose breakpoint
 * sites are already live: ~60 ms an allocation under TCG) held the CPU
 * past RCU's 65 s stall timeout in each of the three, and groups of 1024
 * still did.  But each registration also walks all of ftrace's records
 * and syncs the CPUs, so fixed groups of 256 made fbt:::entry's GO and
 * STOP on the normal x86_64 kernel 15 s slower under TCG (64 groups).
 * So the size adapts: the first group is TRAMP_GROUP_FIRST, each next one
 * as many as the last one's rate says fit in TRAMP_GROUP_MS.
 */
#define TRAMP_GROUP_FIRST	256
#define TRAMP_GROUP_MIN		32
#define TRAMP_GROUP_MS		2000

int xdt_arch_tramp_on(struct xdt_site **sites, unsigned int n)
{
	unsigned int i, k, made = 0, size = TRAMP_GROUP_FIRST;
	struct group *g;
	s64 ms;
	u64 t0;

	for (i = 0; i < n; i += k) {
		k = min3(n - i, size, group_cap());
		t0 = ktime_get_ns();
		g = group_new(sites + i, k);
		if (IS_ERR(g)) {
			/* the batch is all or nothing: the newest go first */
			while (made--)
				group_free(list_first_entry(&groups,
							    struct group, node));
			return PTR_ERR(g);
		}
		made++;
		ms = max_t(s64, div_u64(ktime_get_ns() - t0, NSEC_PER_MSEC), 1);
		size = clamp_t(u64, div64_u64((u64)k * TRAMP_GROUP_MS, ms),
			       TRAMP_GROUP_MIN, U32_MAX);
		cond_resched();
	}
	return 0;
}

/*
 * @sites are live and marked going (live == 3); the rest stay.  The group
 * is taken out before anything is allocated, so its functions' calls go
 * whatever memory is left; the sites staying are gathered in the old
 * group's own list for the new one.  Only that rebuild can fail (ftrace
 * allocates its filter), and then it is the staying probes -- another
 * consumer's -- that stop firing, said in the log, never a call left in.
 */
void xdt_arch_tramp_off(struct xdt_site **sites, unsigned int n)
{
	struct group *g, *tmp;
	unsigned int i;
	u32 j, k, nk;

	list_for_each_entry_safe(g, tmp, &groups, node) {
		for (i = 0; i < n && sites[i]->xol != (unsigned long)g; i++)
			;
		if (i == n)
			continue;
		group_unregister(g);
		for (j = nk = 0; j < g->n; j++)
			if (g->sites[j]->live == 1)
				g->sites[nk++] = g->sites[j];
		/* in groups that leak nothing either (group_cap) */
		for (j = 0; j < nk; j += k) {
			k = min(nk - j, group_cap());
			if (IS_ERR(group_new(g->sites + j, k)))
				pr_err("xdt: trampoline probes lost rebuilding "
				       "a group of %u\n", k);
		}
		kfree(g);
		cond_resched();
	}
}

void xdt_arch_tramp_exit(void)
{
	struct group *g, *tmp;

	list_for_each_entry_safe(g, tmp, &groups, node) {
		group_free(g);
		cond_resched();
	}
}
