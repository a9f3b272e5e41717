// SPDX-License-Identifier: GPL-2.0
/*
 * Speculations: nspec speculative buffers, each with specsize bytes per
 * CPU, and DTrace's state machine over them (the transitions are DTrace's,
 * documented in illumos' <sys/dtrace_impl.h>):
 *
 *   INACTIVE --speculation()--> ACTIVE --speculate() on a CPU--> ACTIVEONE
 *   ACTIVEONE --speculate() on another CPU--> ACTIVEMANY
 *   ACTIVE, ACTIVEONE (this CPU's) --commit()--> COMMITTING --> INACTIVE
 *   ACTIVEONE (another CPU's), ACTIVEMANY --commit()--> COMMITTINGMANY
 *   ACTIVE, ACTIVEMANY, ACTIVEONE (another's) --discard()--> DISCARDING
 *   ACTIVEONE (this CPU's) --discard()--> INACTIVE
 *   COMMITTINGMANY, DISCARDING --the cleaner, every CPU--> INACTIVE
 *
 * A commit copies the committing CPU's speculative records into that CPU's
 * principal buffer at once; other CPUs' wait for the cleaner, which runs at
 * cleanrate and commits (or discards) each CPU's part on that CPU, with its
 * interrupts off, as DTrace's dtrace_speculation_clean_here does.  Every
 * probe-context path here is lock-free (cmpxchg on the state word) and
 * writes only this CPU's buffers.
 */
#include "xdt_impl.h"

enum {
	SPEC_INACTIVE, SPEC_ACTIVE, SPEC_ACTIVEONE, SPEC_ACTIVEMANY,
	SPEC_COMMITTING, SPEC_COMMITTINGMANY, SPEC_DISCARDING,
};

int xdt_spec_create(struct xdt_state *st, u32 n, u32 size)
{
	struct xdt_spec *sp;
	u32 i;
	int cpu;

	sp = kzalloc(sizeof(*sp), GFP_KERNEL);
	if (!sp)
		return -ENOMEM;
	st->spec = sp;
	sp->st = st;
	sp->n = n;
	sp->size = size;
	sp->s = kcalloc(n, sizeof(*sp->s), GFP_KERNEL);
	if (!sp->s)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sp->s[i].cpu = kcalloc(nr_cpu_ids, sizeof(*sp->s[i].cpu),
				       GFP_KERNEL);
		if (!sp->s[i].cpu)
			return -ENOMEM;
		for_each_possible_cpu(cpu) {
			/* -x cpu: the traced CPU's only (xdt_buf_cpu) */
			if (xdt_buf_cpu(st, cpu) != cpu)
				continue;
			sp->s[i].cpu[cpu].data = kvmalloc(size, GFP_KERNEL);
			if (!sp->s[i].cpu[cpu].data)
				return -ENOMEM;
		}
	}
	return 0;
}

void xdt_spec_free(struct xdt_state *st)
{
	struct xdt_spec *sp = st->spec;
	u32 i;
	int cpu;

	if (!sp)
		return;
	for (i = 0; sp->s && i < sp->n; i++) {
		if (!sp->s[i].cpu)
			continue;
		for_each_possible_cpu(cpu)
			kvfree(sp->s[i].cpu[cpu].data);
		kfree(sp->s[i].cpu);
	}
	kfree(sp->s);
	kfree(sp);
	st->spec = NULL;
}

/*
 * speculation(): an INACTIVE speculation made ACTIVE, its id (1..n); or
 * 0, counted as busy if one was committing or discarding, else unavail.
 */
u64 __xdt_probe xdt_spec_alloc(struct xdt_spec *sp, struct xdt_scpu *sc)
{
	bool busy = false;
	u32 i;

	for (i = 0; i < sp->n; i++) {
		u32 cur = READ_ONCE(sp->s[i].state);

		if (cur == SPEC_INACTIVE) {
			if (cmpxchg(&sp->s[i].state, cur, SPEC_ACTIVE) == cur)
				return i + 1;
			continue;
		}
		busy |= cur == SPEC_COMMITTING || cur == SPEC_COMMITTINGMANY ||
			cur == SPEC_DISCARDING;
	}
	if (busy)
		sc->specbusy++;
	else
		sc->specunavail++;
	return 0;
}

/* An id out of range is DTrace's illegal operation; 0 does nothing. */
static int __xdt_probe spec_id(struct xdt_spec *sp, u64 id)
{
	if (!id)
		return 0;
	return id > sp->n ? -EINVAL : 1;
}

/*
 * speculate(id): room for a @size-byte record in this CPU's part of the
 * speculation, or NULL (*err: -EINVAL for a bad id; 0 when the
 * speculation is not active or its buffer is full, the latter a
 * speculative drop).
 */
char *__xdt_probe xdt_spec_reserve(struct xdt_spec *sp, struct xdt_scpu *sc,
				   int cpu, u64 id, u32 size, int *err)
{
	struct xdt_spec1 *s;
	struct xdt_specbuf *b;
	u32 cur, new;
	char *p;

	*err = spec_id(sp, id);
	if (*err <= 0)
		return NULL;
	*err = 0;
	s = &sp->s[id - 1];
	b = &s->cpu[cpu];
	do {
		cur = READ_ONCE(s->state);
		switch (cur) {
		case SPEC_ACTIVEONE:
			/* data here means the one CPU is us */
			if (b->off)
				goto have;
			new = SPEC_ACTIVEMANY;
			break;
		case SPEC_ACTIVEMANY:
			goto have;
		case SPEC_ACTIVE:
			new = SPEC_ACTIVEONE;
			break;
		default:	/* inactive, committing, discarding */
			return NULL;
		}
	} while (cmpxchg(&s->state, cur, new) != cur);
have:
	if (b->off + size > sp->size) {
		sc->specdrops++;
		return NULL;
	}
	p = b->data + b->off;
	b->off += size;
	return p;
}

/* This CPU's part of speculation @s into this CPU's principal buffer. */
static void __xdt_probe spec_copy(struct xdt_specbuf *b, struct xdt_scpu *sc)
{
	char *dst;

	if (b->off) {
		dst = xdt_buf_reserve(sc, b->off);	/* counts its drops */
		if (dst)
			memcpy(dst, b->data, b->off);
	}
	b->off = 0;
}

/* commit(id): see the state machine above; -EINVAL for a bad id. */
int __xdt_probe xdt_spec_commit(struct xdt_spec *sp, struct xdt_scpu *sc,
				int cpu, u64 id)
{
	struct xdt_spec1 *s;
	struct xdt_specbuf *b;
	u32 cur, new;
	int r = spec_id(sp, id);

	if (r <= 0)
		return r;
	s = &sp->s[id - 1];
	b = &s->cpu[cpu];
	do {
		cur = READ_ONCE(s->state);
		switch (cur) {
		case SPEC_COMMITTINGMANY:
			new = cur;	/* ours goes now, the cleaner's later */
			break;
		case SPEC_ACTIVE:
			new = SPEC_COMMITTING;
			break;
		case SPEC_ACTIVEONE:
			new = b->off ? SPEC_COMMITTING : SPEC_COMMITTINGMANY;
			break;
		case SPEC_ACTIVEMANY:
			new = SPEC_COMMITTINGMANY;
			break;
		default:	/* inactive, discarding, committing elsewhere */
			return 0;
		}
	} while (cur != new && cmpxchg(&s->state, cur, new) != cur);
	spec_copy(b, sc);
	if (new == SPEC_COMMITTING)
		WRITE_ONCE(s->state, SPEC_INACTIVE);
	return 0;
}

/* discard(id): see the state machine above; -EINVAL for a bad id. */
int __xdt_probe xdt_spec_discard(struct xdt_spec *sp, int cpu, u64 id)
{
	struct xdt_spec1 *s;
	struct xdt_specbuf *b;
	u32 cur, new;
	int r = spec_id(sp, id);

	if (r <= 0)
		return r;
	s = &sp->s[id - 1];
	b = &s->cpu[cpu];
	do {
		cur = READ_ONCE(s->state);
		switch (cur) {
		case SPEC_ACTIVE:
		case SPEC_ACTIVEMANY:
			new = SPEC_DISCARDING;
			break;
		case SPEC_ACTIVEONE:
			new = b->off ? SPEC_INACTIVE : SPEC_DISCARDING;
			break;
		default:
			return 0;
		}
	} while (cmpxchg(&s->state, cur, new) != cur);
	b->off = 0;
	return 0;
}

struct spec_clean_arg {
	struct xdt_state *st;
	int cpu;
};

/* On each CPU, interrupts off: commit or discard its part. */
static void spec_clean_here(void *arg)
{
	struct spec_clean_arg *a = arg;
	struct xdt_spec *sp = a->st->spec;
	u32 i;

	for (i = 0; i < sp->n; i++) {
		struct xdt_spec1 *s = &sp->s[i];
		struct xdt_specbuf *b = &s->cpu[a->cpu];

		if (!s->cleaning)
			continue;
		if (s->state == SPEC_DISCARDING)
			b->off = 0;
		else if (s->state == SPEC_COMMITTINGMANY)
			spec_copy(b, &a->st->cpu[a->cpu]);
	}
}

/*
 * The cleaner (process context, at cleanrate, and once more at STOP):
 * every speculation committing on many CPUs or discarding is finished on
 * every CPU, then made INACTIVE again.
 */
void xdt_spec_clean(struct xdt_state *st)
{
	struct xdt_spec *sp = st->spec;
	struct spec_clean_arg a = { st, 0 };
	u32 i, work = 0;
	int cpu;

	if (!sp || !st->cpu)
		return;
	for (i = 0; i < sp->n; i++) {
		u32 cur = READ_ONCE(sp->s[i].state);

		sp->s[i].cleaning = cur == SPEC_DISCARDING ||
				    cur == SPEC_COMMITTINGMANY;
		work += sp->s[i].cleaning;
	}
	if (!work)
		return;
	for_each_possible_cpu(cpu) {
		a.cpu = cpu;
		if (cpu_online(cpu))
			smp_call_function_single(cpu, spec_clean_here, &a, 1);
		else
			spec_clean_here(&a);	/* nothing runs there */
	}
	for (i = 0; i < sp->n; i++) {
		if (!sp->s[i].cleaning)
			continue;
		sp->s[i].cleaning = 0;
		WRITE_ONCE(sp->s[i].state, SPEC_INACTIVE);
	}
}
