// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU principal buffers and aggregation arenas, one set per consumer
 * (struct xdt_scpu, in its state).
 *
 *   CPU n:  bufs[active]  <- probe context appends records (IRQs off)
 *           bufs[!active] <- consumer copies out after a switch
 *
 * A snapshot switches the two on the CPU that owns them (a cross call, so it
 * cannot interleave with a firing there), then copies the retired one out:
 * the DTrace "switching" policy.  A record that does not fit is dropped and
 * counted, never partially written.
 *
 * Aggregations: each CPU has an arena of entries (xdt_aggent layout, values
 * in place) found through an open-addressed hash of arena offsets.  Entries
 * are only appended, and published after they are initialised, so the
 * snapshot can walk another CPU's arena while it is being updated; it sums
 * the CPUs into one table for the consumer.
 */
#include "xdt_impl.h"

DEFINE_PER_CPU(struct xdt_cpu, xdt_cpu);

/*
 * An arena's hash has a slot for every 16 bytes of it: an entry with a key
 * takes at least 32 (header, an 8-byte key, one value), so the table is at
 * most half full when the arena is, and a probe for a new key stays short
 * until aggsize's bytes -- DTrace's only limit -- run out.  (A fixed 16 Ki
 * slots capped an arena at 16 384 keys whatever its size, and once full,
 * every new key scanned all of them before it dropped.)  The cost is a
 * quarter to a half of aggsize again per arena.
 */
static u32 agg_nslots(u32 aggsize)
{
	return roundup_pow_of_two(max(aggsize / 16, 16u));
}
#define DEFAULT_BUFSIZE	(1u << 20)

void xdt_bufs_free(struct xdt_state *st)
{
	int cpu, i;

	kvfree(st->aggpend);
	st->aggpend = NULL;
	if (!st->cpu)
		return;
	for_each_possible_cpu(cpu) {
		struct xdt_scpu *c = &st->cpu[cpu];

		kvfree(c->bufs[0].data);
		kvfree(c->bufs[1].data);
		for (i = 0; i < 2; i++) {
			kvfree(c->ag[i].data);
			kvfree(c->ag[i].hash);
			kvfree(c->ag[i].nokey);
		}
		kvfree(c->keybuf);
	}
	kvfree(st->cpu);
	st->cpu = NULL;
}

/* The machine's breakpoint traps so far (status reports a difference). */
u64 xdt_traps(void)
{
	u64 n = 0;
	int cpu;

	for_each_possible_cpu(cpu)
		n += READ_ONCE(per_cpu_ptr(&xdt_cpu, cpu)->traps);
	return n;
}

/* A consumer's counters, for XDT_IOC_STATUS. */
void xdt_state_status(struct xdt_state *st, struct xdt_status *s)
{
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		struct xdt_scpu *c = st->cpu ? &st->cpu[cpu] : NULL;

		if (!c)
			break;
		s->drops += c->bufs[0].drops + c->bufs[1].drops;
		s->filled |= c->bufs[0].full;
		s->aggdrops += c->aggdrops;
		s->specdrops += c->specdrops;
		s->specbusy += c->specbusy;
		s->specunavail += c->specunavail;
		s->dblerrors += c->dblerrors;
		s->errors += c->errors;
		s->firings += c->firings;
	}
	/* The machine's traps while st ran (other consumers' included). */
	if (st->state == XDT_STATE_RUNNING)
		s->traps = xdt_traps() - st->traps0;
	else if (st->state == XDT_STATE_STOPPED)
		s->traps = st->traps1 - st->traps0;
	xdt_vars_status(st->vars, s);
	s->exited = READ_ONCE(st->exited);
	s->state = st->state;
}

int xdt_bufs_alloc(struct xdt_state *st)
{
	u32 size = st->bufsize ? st->bufsize : DEFAULT_BUFSIZE;
	int cpu, i;

	size = clamp_t(u32, size, 4096, XDT_BUFSIZE_MAX);
	st->bufsize = size;
	st->cpu = kvcalloc(nr_cpu_ids, sizeof(*st->cpu), GFP_KERNEL);
	if (!st->cpu)
		return -ENOMEM;
	for_each_possible_cpu(cpu) {
		struct xdt_scpu *c = &st->cpu[cpu];

		if (xdt_buf_cpu(st, cpu) != cpu)
			continue;	/* -x cpu: size 0, nothing to snap */
		/* kv*alloc: see xdt_vars_create */
		c->bufs[0].data = kvmalloc(size, GFP_KERNEL);
		c->bufs[1].data = kvmalloc(size, GFP_KERNEL);
		c->keybuf = kvmalloc(max(st->keymax, 8u), GFP_KERNEL);
		if (!c->bufs[0].data || !c->bufs[1].data || !c->keybuf) {
			xdt_bufs_free(st);
			return -ENOMEM;
		}
		/*
		 * Arenas only for a program with aggregations: nothing else
		 * reaches them (the loader refuses an aggregating action
		 * past naggs, and a snapshot skips a CPU without them), and
		 * each is two hash tables and the arena per CPU to allocate,
		 * zero and free at every GO and close.
		 */
		for (i = 0; i < 2 && st->prog->naggs; i++) {
			struct xdt_aggarena *a = &c->ag[i];

			a->data = kvmalloc(st->aggsize, GFP_KERNEL);
			a->hash = kvzalloc(agg_nslots(st->aggsize) *
					   sizeof(u32), GFP_KERNEL);
			a->nokey = kvzalloc(XDT_MAXAGGS * sizeof(u32),
					    GFP_KERNEL);
			if (!a->data || !a->hash || !a->nokey) {
				xdt_bufs_free(st);
				return -ENOMEM;
			}
			a->off = 8;	/* offset 0 means "empty slot" */
		}
		c->bufs[0].size = c->bufs[1].size = size;
		c->policy = st->bufpolicy;
		/* fill keeps room for END's largest record */
		c->bufs[0].limit = size > st->endreserve ?
				   size - st->endreserve : 0;
		c->aggsize = st->aggsize;
		c->aggslots = agg_nslots(st->aggsize);
	}
	return 0;
}

/*
 * ring: room for @size at the write offset, the oldest records giving way.
 * When the next record does not fit before the end, writing starts over
 * at 0 and what is at [0, end) becomes the oldest part (records older
 * still, past the old write offset, go then too: a simplification of
 * DTrace's ring that keeps every record whole and walkable).
 */
static char *__xdt_probe ring_reserve(struct xdt_buf *b, u32 size)
{
	char *p;

	if (size > b->size) {
		b->drops++;
		return NULL;
	}
	if (b->off + size > b->size) {
		b->end = b->off;
		b->off = 0;
		b->oldest = 0;
		b->wrapped = true;
	}
	while (b->wrapped && b->oldest < b->end && b->oldest < b->off + size)
		b->oldest += ((struct xdt_rechdr *)(b->data + b->oldest))->size;
	p = b->data + b->off;
	b->off += size;
	return p;
}

char *__xdt_probe xdt_buf_reserve(struct xdt_scpu *c, u32 size)
{
	struct xdt_buf *b = &c->bufs[c->active];
	char *p;

	if (c->policy == XDT_BUFPOLICY_RING)
		return ring_reserve(b, size);
	if (b->full || b->off + size > (c->policy == XDT_BUFPOLICY_FILL ?
					b->limit : b->size)) {
		b->drops++;
		if (c->policy == XDT_BUFPOLICY_FILL)
			b->full = true;
		return NULL;
	}
	p = b->data + b->off;
	b->off += size;
	return p;
}

/*
 * Before END fires (STOP, nothing else fires): under fill, END may use
 * the space kept for it, full or not, as DTrace's END records always fit.
 */
void xdt_bufs_end(struct xdt_state *st)
{
	int cpu;

	if (!st->cpu || st->bufpolicy != XDT_BUFPOLICY_FILL)
		return;
	for_each_possible_cpu(cpu) {
		struct xdt_buf *b = &st->cpu[cpu].bufs[0];

		b->limit = b->size;
		b->full = false;
	}
}

struct switch_arg {
	struct xdt_scpu *c;
	struct xdt_buf *old;
};

/* On the CPU that owns @c, so it cannot interleave with a firing there. */
static void buf_switch(void *arg)
{
	struct switch_arg *sa = arg;
	struct xdt_scpu *c = sa->c;
	struct xdt_buf *old = &c->bufs[c->active];
	struct xdt_buf *new = &c->bufs[!c->active];

	new->off = 0;
	new->drops = 0;
	WRITE_ONCE(c->active, !c->active);
	sa->old = old;
}

/*
 * fill and ring: the one buffer is read once, after STOP (nothing fires
 * then); before, there is nothing to read.  A ring comes out oldest
 * record first.
 */
static int ring_fill_snap(struct xdt_state *st, struct xdt_scpu *c,
			  void __user *dst, u32 *size, u64 *drops)
{
	struct xdt_buf *b = &c->bufs[0];
	u32 n = 0;

	*drops = 0;
	if (st->state != XDT_STATE_STOPPED) {
		*size = 0;
		return 0;
	}
	if (b->wrapped && b->oldest < b->end) {
		n = b->end - b->oldest;
		if (copy_to_user(dst, b->data + b->oldest, n))
			return -EFAULT;
	}
	if (copy_to_user((char __user *)dst + n, b->data, b->off))
		return -EFAULT;
	*size = n + b->off;
	*drops = b->drops;
	b->off = b->oldest = b->end = 0;
	b->wrapped = false;
	b->drops = 0;
	return 0;
}

int xdt_buf_snap(struct xdt_state *st, u32 cpu, void __user *dst, u32 *size,
		 u64 *drops)
{
	struct switch_arg sa = { 0 };
	struct xdt_buf *old;
	u32 cap;
	int ret;

	if (cpu >= nr_cpu_ids || !cpu_possible(cpu))
		return -EINVAL;
	if (!st->cpu)
		return -ENXIO;
	sa.c = &st->cpu[cpu];
	cap = sa.c->bufs[0].size;
	if (!cap)
		return -ENXIO;
	/* Refuse before switching, so no record is lost to a short buffer. */
	if (*size < cap) {
		*size = cap;
		return -ENOSPC;
	}
	if (sa.c->policy != XDT_BUFPOLICY_SWITCH)
		return ring_fill_snap(st, sa.c, dst, size, drops);
	if (cpu_online(cpu)) {
		ret = smp_call_function_single(cpu, buf_switch, &sa, 1);
		if (ret)
			return ret;
		old = sa.old;
	} else {
		/* Nothing runs there; switch in place. */
		struct xdt_scpu *c = sa.c;

		old = &c->bufs[c->active];
		c->active = !c->active;
		c->bufs[c->active].off = 0;
		c->bufs[c->active].drops = 0;
	}
	*drops = old->drops;
	*size = old->off;
	return copy_to_user(dst, old->data, old->off) ? -EFAULT : 0;
}

/* ---- aggregations ----------------------------------------------------------- */

static int __xdt_probe quantize_bucket(s64 v)
{
	int k;

	if (v == 0)
		return XDT_QUANTIZE_ZERO;
	if (v > 0) {
		k = fls64(v);			/* 2^(k-1) <= v < 2^k */
		return XDT_QUANTIZE_ZERO + min(k, 63);
	}
	k = fls64(-(u64)v);			/* -2^k < v <= -2^(k-1) */
	return XDT_QUANTIZE_ZERO - min(k, 63);
}

static void __xdt_probe agg_init_vals(u32 func, s64 *vals, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		vals[i] = 0;
	if (func == XDT_AGG_MIN)
		vals[0] = S64_MAX;
	else if (func == XDT_AGG_MAX)
		vals[0] = S64_MIN;
}

static void __xdt_probe agg_apply(const struct xdt_aggdesc *d, s64 *vals,
				     s64 v, s64 incr)
{
	switch (d->func) {
	case XDT_AGG_COUNT:
		vals[0]++;
		break;
	case XDT_AGG_SUM:
		vals[0] += v;
		break;
	case XDT_AGG_MIN:
		if (v < vals[0])
			vals[0] = v;
		break;
	case XDT_AGG_MAX:
		if (v > vals[0])
			vals[0] = v;
		break;
	case XDT_AGG_AVG:
		vals[0]++;
		vals[1] += v;
		break;
	case XDT_AGG_QUANTIZE:
		vals[quantize_bucket(v)] += incr;
		break;
	case XDT_AGG_LQUANTIZE:
		vals[xdt_lq_bucket(d->arg, v)] += incr;
		break;
	case XDT_AGG_LLQUANTIZE:
		vals[xdt_llq_bucket(d->arg, v)] += incr;
		break;
	case XDT_AGG_STDDEV: {
		/* the sum of squares in 128 bits, as DTrace keeps it */
		u64 sq = v < 0 ? -(u64)v : (u64)v, lo, hi;
		unsigned __int128 p = (unsigned __int128)sq * sq;

		vals[0]++;
		vals[1] += v;
		lo = (u64)p;
		hi = (u64)(p >> 64);
		hi += ((u64)vals[2] + lo < (u64)vals[2]);
		vals[2] = (s64)((u64)vals[2] + lo);
		vals[3] = (s64)((u64)vals[3] + hi);
		break;
	}
	}
}

static __always_inline struct xdt_aggent *ent_at(char *arena, u32 off)
{
	return (struct xdt_aggent *)(arena + off);
}

static __always_inline u32 ent_keylen8(u32 keylen)
{
	return ALIGN(keylen, 8);
}

static __always_inline s64 *ent_vals(struct xdt_aggent *e)
{
	return (s64 *)((char *)(e + 1) + ent_keylen8(e->keylen));
}

/*
 * Find or insert (aggid, key) in an arena; NULL when full.  Probe context
 * (and the snapshot).  __noclone: GCC emitted a constprop clone of it into
 * plain .text, outside .kprobes.text.
 */
static struct xdt_aggent *__xdt_probe __noclone
agg_find(char *arena, u32 *off, u32 size, u32 *hash, u32 nslots, u32 aggid,
	 const struct xdt_aggdesc *d, const char *key, u32 keylen, bool create)
{
	u32 h = jhash(key, keylen, aggid), i, nvals = d->nvals;

	for (i = 0; i < nslots; i++) {
		u32 slot = (h + i) & (nslots - 1);
		u32 o = READ_ONCE(hash[slot]);
		struct xdt_aggent *e;
		u32 esize;

		if (o) {
			e = ent_at(arena, o);
			if (e->aggid == aggid && e->keylen == keylen &&
			    !memcmp(e + 1, key, keylen))
				return e;
			continue;
		}
		if (!create)
			return NULL;
		esize = sizeof(*e) + ent_keylen8(keylen) + nvals * 8;
		if (*off + esize > size)
			return NULL;
		e = ent_at(arena, *off);
		e->aggid = aggid;
		e->keylen = keylen;
		e->nvals = nvals;
		e->size = esize;
		memcpy(e + 1, key, keylen);
		memset((char *)(e + 1) + keylen, 0,
		       ent_keylen8(keylen) - keylen);
		agg_init_vals(d->func, ent_vals(e), nvals);
		/* Initialised before it becomes visible to snapshots. */
		smp_store_release(&hash[slot], *off);
		*off += esize;
		return e;
	}
	return NULL;
}

int __xdt_probe xdt_agg_update(struct xdt_scpu *c, const struct xdt_aggdesc *d,
			       u32 aggid, const char *key, u32 keylen, s64 val,
			       s64 incr)
{
	struct xdt_aggarena *a = &c->ag[READ_ONCE(c->agact)];
	struct xdt_aggent *e;

	/*
	 * An aggregation without keys (@ = count()) has one entry per CPU
	 * and arena, and entries never move until a snapshot empties the
	 * arena: remember where it is instead of hashing an empty key each
	 * time.  The hash, probe and compare were most of count()'s cost per
	 * firing (icount).
	 */
	if (!keylen && a->nokey[aggid]) {
		agg_apply(d, ent_vals(ent_at(a->data, a->nokey[aggid])), val,
			  incr);
		return 0;
	}
	e = agg_find(a->data, &a->off, c->aggsize, a->hash, c->aggslots, aggid,
		     d, key, keylen, true);
	if (!e) {
		c->aggdrops++;
		return -ENOSPC;
	}
	if (!keylen)
		a->nokey[aggid] = (char *)e - a->data;
	agg_apply(d, ent_vals(e), val, incr);
	return 0;
}

/*
 * Probe context: a clause of keyless count()s only (XDT_CLAUSE_K_COUNTS),
 * applied straight to their remembered slots.  False, with nothing
 * changed, when a slot is not there yet (the first firing on this CPU
 * since a snapshot): the caller runs the clause the general way, which
 * creates it.
 */
bool __xdt_probe xdt_agg_counts(struct xdt_scpu *c, const struct xdt_clause_k *cl)
{
	struct xdt_aggarena *a = &c->ag[READ_ONCE(c->agact)];
	u32 i;

	for (i = 0; i < cl->nacts; i++)
		if (unlikely(!a->nokey[cl->acts[i].arg0]))
			return false;
	for (i = 0; i < cl->nacts; i++)
		xdt_agg_nokey_vals(a, a->nokey[cl->acts[i].arg0])[0]++;
	return true;
}

/* On the CPU, interrupts off: firings now update the other arena. */
static void agg_switch(void *arg)
{
	struct xdt_scpu *c = arg;

	WRITE_ONCE(c->agact, !c->agact);
}

/* An arena taken by a snapshot, emptied for its next turn. */
static void agg_reset(struct xdt_aggarena *a, u32 nslots)
{
	memset(a->hash, 0, nslots * sizeof(u32));
	memset(a->nokey, 0, XDT_MAXAGGS * sizeof(u32));
	a->off = 8;
}

/*
 * Take every CPU's aggregation data since the last snapshot, merged into
 * one entry per (aggregation, key): the consumer adds it to its totals.
 * Once taken, the data lives only in the merged copy, so a consumer whose
 * buffer is too small gets -ENOSPC and the size, and the copy waits in
 * @st for its next call (no data is lost to a short buffer).
 */
static int agg_take(struct xdt_state *st)
{
	u32 total = 8, nents = 0, nslots, moff = 8, count = 0, *mhash;
	char *merged;
	int cpu, ret = 0;

	if (!st->cpu)
		return -ENXIO;
	for_each_possible_cpu(cpu) {
		struct xdt_scpu *c = &st->cpu[cpu];
		struct xdt_aggarena *a;
		u32 o;

		if (!c->ag[0].data)
			continue;
		if (cpu_online(cpu))
			ret = smp_call_function_single(cpu, agg_switch, c, 1);
		else
			agg_switch(c);	/* nothing runs there */
		if (ret)
			return ret;
		a = &c->ag[!c->agact];
		total += a->off - 8;
		for (o = 8; o < a->off; o += ent_at(a->data, o)->size)
			nents++;
	}
	nslots = roundup_pow_of_two(max(2 * nents, 16u));
	merged = kvmalloc(total, GFP_KERNEL);
	mhash = kvzalloc(nslots * sizeof(u32), GFP_KERNEL);
	if (!merged || !mhash) {
		ret = -ENOMEM;
		goto out;
	}
	for_each_possible_cpu(cpu) {
		struct xdt_scpu *c = &st->cpu[cpu];
		struct xdt_aggarena *a = &c->ag[!c->agact];
		u32 o;

		if (!c->ag[0].data)
			continue;
		for (o = 8; o < a->off && !ret; ) {
			struct xdt_aggent *e = ent_at(a->data, o), *m;
			const struct xdt_aggdesc *d;

			o += e->size;
			if (e->aggid >= st->prog->naggs) {
				ret = -EIO;
				break;
			}
			d = &st->aggs[e->aggid];
			/* merged has room for every entry: cannot fail */
			m = agg_find(merged, &moff, total, mhash, nslots,
				     e->aggid, d, (char *)(e + 1), e->keylen,
				     true);
			if (!m) {
				ret = -EIO;
				break;
			}
			xdt_agg_merge(d->func, ent_vals(m), ent_vals(e),
				      e->nvals);
		}
		agg_reset(a, c->aggslots);
	}
	if (ret)
		goto out;
	for (cpu = 8; cpu < moff; cpu += ent_at(merged, cpu)->size)
		count++;
	st->aggpend = merged;
	st->aggpend_size = moff - 8;
	st->aggpend_count = count;
	merged = NULL;
out:
	kvfree(merged);
	kvfree(mhash);
	return ret;
}

/*
 * Each CPU's aggregation drops since the last snapshot that asked, into
 * the consumer's array (a CPU past its end keeps its count for later).
 * The counter is the probe context's; a drop racing this read is counted
 * by the next snapshot.
 */
static int agg_drops(struct xdt_state *st, struct xdt_aggsnap *req)
{
	u64 __user *out = u64_to_user_ptr(req->drops);
	u32 cpu;

	if (!req->drops)
		return 0;
	for (cpu = 0; cpu < req->ndrops && cpu < nr_cpu_ids; cpu++) {
		struct xdt_scpu *c = &st->cpu[cpu];
		u64 now = READ_ONCE(c->aggdrops);

		if (put_user(now - c->aggdrops_seen, out + cpu))
			return -EFAULT;
		c->aggdrops_seen = now;
	}
	return 0;
}

int xdt_agg_snap(struct xdt_state *st, struct xdt_aggsnap *req)
{
	int ret;

	if (!st->aggpend) {
		ret = agg_take(st);
		if (ret)
			return ret;
	}
	if (st->aggpend_size > req->size) {
		req->size = st->aggpend_size;
		return -ENOSPC;
	}
	req->size = st->aggpend_size;
	req->count = st->aggpend_count;
	if (copy_to_user(u64_to_user_ptr(req->buf), st->aggpend + 8,
			 st->aggpend_size))
		return -EFAULT;
	kvfree(st->aggpend);
	st->aggpend = NULL;
	return agg_drops(st, req);
}
