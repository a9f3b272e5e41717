/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The storage of D variables, shared by the portable half (vars.c: what
 * firings do) and the kernel's reclaiming half (vars_reclaim.c: the cleaner
 * and the thread-exit hook).  The layout is explained in vars.c.
 */
#ifndef XDT_VARS_H
#define XDT_VARS_H

#include "xdt_impl.h"

/* Chunk metadata; the key follows it (keymax bytes). */
struct dv_meta {
	u32 next;			/* chunk number + 1, 0 = end */
	u16 var;
	u16 pad;
	u32 keylen;
	u32 pad2;
	unsigned long thread;		/* 0: a global array element */
	char key[];
};

struct dv_bucket {
	u32 lock;
	u32 head;			/* chunk number + 1, 0 = empty */
};

struct xdt_vars {
	const struct xdt_var *tab;
	u32 nvars;
	u32 *off;			/* globals/this->: offset of each var;
					   arrays: key bytes of each var */
	u32 strsize;
	char *globals;
	u32 gsize, lsize, scratchsize;
	u32 bouncesize;			/* largest by-reference value */
	u32 keymax, valmax;		/* over dynamic variables */
	char *zero;			/* bouncesize zeroes: a missing value */
	struct xdt_vcpu *cpu;		/* [nr_cpu_ids] */

	/* dynamic variable pool */
	char *meta, *vals;
	size_t metastride, valstride;
	u32 nchunks, nbuckets;		/* nbuckets: a power of two */
	struct dv_bucket *tbuckets, *abuckets;
	u32 poollock, freehead, dirtyhead;
	bool has_thread;
	unsigned long period;		/* cleaner, jiffies */
	struct delayed_work cleaner;
	bool running;
	struct tracepoint *exit_tp;
};

/*
 * Locks: one word each, inlined, so no kernel function fbt could probe is
 * called with one held.
 */
static __always_inline void dv_lock(u32 *l)
{
	while (cmpxchg(l, 0, 1))
		cpu_relax();
}

static __always_inline void dv_unlock(u32 *l)
{
	smp_store_release(l, 0);
}

static __always_inline struct dv_meta *dv_meta(struct xdt_vars *v, u32 n)
{
	return (struct dv_meta *)(v->meta + (size_t)(n - 1) * v->metastride);
}

static __always_inline char *dv_val(struct xdt_vars *v, u32 n)
{
	return v->vals + (size_t)(n - 1) * v->valstride;
}

static __always_inline struct dv_bucket *dv_tbucket(struct xdt_vars *v,
						     unsigned long thread)
{
	return &v->tbuckets[hash_long(thread, 32) & (v->nbuckets - 1)];
}

/* A freed chunk waits on the dirty list for the cleaner (vars.c: Freeing). */
static __always_inline void dv_dirty(struct xdt_vars *v, u32 n)
{
	dv_lock(&v->poollock);
	dv_meta(v, n)->next = v->dirtyhead;
	v->dirtyhead = n;
	dv_unlock(&v->poollock);
}

#endif
