// SPDX-License-Identifier: GPL-2.0
/*
 * Enablings: load a program object, check every length and index in it,
 * verify its DIF, and bind each clause to every probe its description
 * matches (one ECB per pair, in program order on each probe).  GO patches
 * the probes in and fires BEGIN; STOP patches them out, waits until no CPU
 * can still be inside a firing, and fires END.
 *
 * The blob is kept whole and the kernel's views (difos, clauses) point into
 * it, so nothing is copied twice and nothing the consumer sent can change
 * after the checks (it was copied from user space once, up front).
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/vmalloc.h>

#include "xdt_impl.h"

#define EERR(fmt, ...) \
	({ snprintf(req->err, sizeof(req->err), fmt, ##__VA_ARGS__); -EINVAL; })

static bool in_blob(u32 size, u32 off, u32 n, u32 elem)
{
	return off <= size && n <= (size - off) / elem;
}

static bool desc_terminated(const struct xdt_probedesc *d)
{
	return memchr(d->prov, 0, sizeof(d->prov)) &&
	       memchr(d->mod, 0, sizeof(d->mod)) &&
	       memchr(d->func, 0, sizeof(d->func)) &&
	       memchr(d->name, 0, sizeof(d->name));
}

static int load_difos(struct xdt_state *st, struct xdt_enable *req)
{
	const struct xdt_prog *p = st->prog;
	const struct xdt_difo *ud = st->blob + p->difos_off;
	const u32 *insns = st->blob + p->insns_off;
	const u64 *ints = st->blob + p->ints_off;
	const char *strtab = st->blob + p->strtab_off;
	u32 i;

	st->difos = kvcalloc(max(p->ndifos, 1u), sizeof(*st->difos), GFP_KERNEL);
	if (!st->difos)
		return -ENOMEM;
	for (i = 0; i < p->ndifos; i++) {
		struct xdt_difo_k *d = &st->difos[i];
		char why[96];

		if (!in_blob(p->ninsns, ud[i].insn0, ud[i].ninsns, 1) ||
		    !in_blob(p->nints, ud[i].int0, ud[i].nints, 1) ||
		    !in_blob(p->strtab_len, ud[i].str0, ud[i].strlen, 1))
			return EERR("difo %u: slice outside the program", i);
		d->insns = insns + ud[i].insn0;
		d->ninsns = ud[i].ninsns;
		d->ints = ints + ud[i].int0;
		d->nints = ud[i].nints;
		d->strtab = strtab + ud[i].str0;
		d->strlen = ud[i].strlen;
		d->rtype = ud[i].rtype;
		if (xdt_dif_verify(d, st->blob + p->vars_off, p->nvars, why,
				   sizeof(why)))
			return EERR("difo %u %s", i, why);
	}
	return 0;
}

static int load_clauses(struct xdt_state *st, struct xdt_enable *req)
{
	const struct xdt_prog *p = st->prog;
	const struct xdt_clause *uc = st->blob + p->clauses_off;
	const struct xdt_action *ua = st->blob + p->actions_off;
	struct xdt_act_k *acts;
	u64 nacts = 0;
	u32 i, j;

	for (i = 0; i < p->nclauses; i++) {
		if (!in_blob(p->nactions, uc[i].action0, uc[i].nactions, 1))
			return EERR("clause %u: actions outside the program", i);
		nacts += uc[i].nactions;
	}
	if (nacts > 1u << 24)
		return EERR("%llu actions in all (at most %u)", nacts, 1u << 24);
	/*
	 * One array for every clause's actions, not an allocation per
	 * clause: the kernels' SLOB allocator took 0.5 ms a clause on arm64
	 * (10 000 clauses: 5.5 s of XDT_IOC_ENABLE).
	 */
	st->aggfunc = kcalloc(max(p->naggs, 1u), sizeof(u32), GFP_KERNEL);
	st->clauses = kvcalloc(max(p->nclauses, 1u), sizeof(*st->clauses),
			       GFP_KERNEL);
	st->acts = acts = kvcalloc(max_t(u64, nacts, 1), sizeof(*acts),
				   GFP_KERNEL);
	if (!st->aggfunc || !st->clauses || !acts)
		return -ENOMEM;
	for (i = 0; i < p->nclauses; i++) {
		struct xdt_clause_k *c = &st->clauses[i];
		u32 off = sizeof(struct xdt_rechdr), nkeys = 0;

		if (!desc_terminated(&uc[i].desc))
			return EERR("clause %u: unterminated probe description", i);
		if (uc[i].pred >= (s32)p->ndifos || uc[i].pred < -1)
			return EERR("clause %u: predicate difo %d out of range",
				    i, uc[i].pred);
		c->index = i;
		c->pred = uc[i].pred;
		if (uc[i].flags & ~XDT_CLAUSE_RECORD)
			return EERR("clause %u: unknown flags 0x%x", i, uc[i].flags);
		c->flags = uc[i].flags;
		c->nacts = uc[i].nactions;
		c->acts = acts;
		acts += c->nacts;
		for (j = 0; j < c->nacts; j++) {
			const struct xdt_action *a = &ua[uc[i].action0 + j];
			struct xdt_act_k *k = &c->acts[j];

			k->kind = a->kind;
			k->difo = a->difo;
			k->arg0 = a->arg0;
			k->arg1 = a->arg1;
			if (a->difo >= (s32)p->ndifos || a->difo < -1)
				return EERR("clause %u action %u: difo %d out of "
					    "range", i, j, a->difo);
			switch (a->kind) {
			case XDT_ACT_RECORD:
			case XDT_ACT_EXIT:
				off = ALIGN(off, 8);
				k->off = off;
				off += 8;
				break;
			case XDT_ACT_STRING:
				off = ALIGN(off, 8);
				k->off = off;
				off += st->strsize;
				break;
			case XDT_ACT_STACK:
				if (a->arg0 < 1 || a->arg0 > XDT_MAXSTACK)
					return EERR("clause %u action %u: stack of "
						    "%u frames (1 to %u)", i, j,
						    a->arg0, XDT_MAXSTACK);
				off = ALIGN(off, 8);
				k->off = off;
				off += a->arg0 * 8;
				break;
			case XDT_ACT_DIFEXPR:
				break;
			case XDT_ACT_AGGKEY:
				if (a->arg0 > XDT_KEY_STACK)
					return EERR("clause %u action %u: bad key "
						    "type", i, j);
				if (a->arg0 == XDT_KEY_STACK &&
				    (a->arg1 < 1 || a->arg1 > XDT_MAXSTACK))
					return EERR("clause %u action %u: stack key "
						    "of %u frames (1 to %u)", i, j,
						    a->arg1, XDT_MAXSTACK);
				nkeys++;
				break;
			case XDT_ACT_AGG:
				if (a->arg0 >= p->naggs)
					return EERR("clause %u action %u: "
						    "aggregation %u of %u", i, j,
						    a->arg0, p->naggs);
				if (a->arg1 < XDT_AGG_COUNT ||
				    a->arg1 > XDT_AGG_QUANTIZE)
					return EERR("clause %u action %u: unknown "
						    "aggregating function %u", i,
						    j, a->arg1);
				if (st->aggfunc[a->arg0] &&
				    st->aggfunc[a->arg0] != a->arg1)
					return EERR("aggregation %u used with two "
						    "functions", a->arg0);
				if (nkeys > XDT_MAXKEYS)
					return EERR("clause %u action %u: more "
						    "than 8 keys", i, j);
				if (a->arg1 != XDT_AGG_COUNT && a->difo < 0)
					return EERR("clause %u action %u: no value",
						    i, j);
				st->aggfunc[a->arg0] = a->arg1;
				nkeys = 0;
				break;
			default:
				return EERR("clause %u action %u: unknown action "
					    "kind %u", i, j, a->kind);
			}
			if (a->kind != XDT_ACT_AGG && a->kind != XDT_ACT_EXIT &&
			    a->kind != XDT_ACT_STACK &&
			    !(a->kind == XDT_ACT_AGGKEY &&
			      a->arg0 == XDT_KEY_STACK) && a->difo < 0)
				return EERR("clause %u action %u: no value", i, j);
		}
		if (nkeys)
			return EERR("clause %u: keys without an aggregation", i);
		c->recsize = ALIGN(off, 8);
		if (c->recsize > 65536)
			return EERR("clause %u: record of %u bytes", i,
				    c->recsize);
	}
	return 0;
}

struct bind_state {
	struct xdt_ecb *ecbs;
	u32 n, cap;
	struct xdt_clause_k *clause;
};

static int bind_one(struct xdt_probe *pr, void *arg)
{
	struct bind_state *b = arg;

	/* Pin module text for as long as the ECB exists. */
	if (!try_module_get(pr->owner))
		return 0;
	if (b->n == b->cap) {
		struct xdt_ecb *bigger;

		bigger = kvcalloc(b->cap * 2, sizeof(*bigger), GFP_KERNEL);
		if (!bigger) {
			module_put(pr->owner);
			return -ENOMEM;
		}
		memcpy(bigger, b->ecbs, b->cap * sizeof(*bigger));
		kvfree(b->ecbs);
		b->ecbs = bigger;
		b->cap *= 2;
	}
	b->ecbs[b->n].epid = b->n + 1;
	b->ecbs[b->n].clause = b->clause;
	b->ecbs[b->n].probe = pr;
	b->n++;
	return 0;
}

static int bind(struct xdt_state *st, struct xdt_enable *req)
{
	const struct xdt_prog *p = st->prog;
	const struct xdt_clause *uc = st->blob + p->clauses_off;
	struct bind_state b = { .cap = 64 };
	int ret = 0;
	u32 i;

	req->unmatched = -1;
	b.ecbs = kvcalloc(b.cap, sizeof(*b.ecbs), GFP_KERNEL);
	if (!b.ecbs)
		return -ENOMEM;
	for (i = 0; i < p->nclauses && !ret; i++) {
		u32 before = b.n;
		char why[96] = "";

		xdt_provide(&uc[i].desc, why, sizeof(why));
		b.clause = &st->clauses[i];
		ret = xdt_probe_foreach(&uc[i].desc, bind_one, &b);
		if (!ret && b.n == before && why[0])
			ret = EERR("%s:%s:%s:%s: %s", uc[i].desc.prov,
				   uc[i].desc.mod, uc[i].desc.func,
				   uc[i].desc.name, why);
		if (!ret && b.n == before && req->unmatched < 0)
			req->unmatched = i;
		/* Thousands of clauses, each cheap: still yield. */
		cond_resched();
	}
	/* Whatever was bound is released by the caller's teardown. */
	st->ecbs = b.ecbs;
	st->necbs = b.n;
	return ret;
}

int xdt_enable(struct xdt_state *st, struct xdt_enable *req, void *blob)
{
	const struct xdt_prog *p = blob;
	u32 size = req->size;
	int ret;

	st->blob = blob;
	st->prog = p;
	if (size < sizeof(*p) || p->magic != XDT_PROG_MAGIC)
		return EERR("not an xdt program object");
	if (p->version != XDT_ABI_VERSION)
		return EERR("program object version %u, kernel speaks %u",
			    p->version, XDT_ABI_VERSION);
	if (p->size != size)
		return EERR("program object says %u bytes, got %u", p->size,
			    size);
	if (!in_blob(size, p->clauses_off, p->nclauses,
		     sizeof(struct xdt_clause)) ||
	    !in_blob(size, p->actions_off, p->nactions,
		     sizeof(struct xdt_action)) ||
	    !in_blob(size, p->difos_off, p->ndifos, sizeof(struct xdt_difo)) ||
	    !in_blob(size, p->insns_off, p->ninsns, 4) ||
	    !in_blob(size, p->ints_off, p->nints, 8) ||
	    !in_blob(size, p->strtab_off, p->strtab_len, 1) ||
	    !in_blob(size, p->vars_off, p->nvars, sizeof(struct xdt_var)))
		return EERR("a section lies outside the program object");
	if ((p->clauses_off | p->actions_off | p->difos_off | p->ints_off) & 7 ||
	    (p->nvars && p->vars_off & 7) ||
	    p->insns_off & 3)
		return EERR("misaligned section");
	if (p->nclauses == 0)
		return EERR("no clauses");
	if (p->naggs > XDT_MAXAGGS)
		return EERR("%u aggregations (at most %u)", p->naggs,
			    XDT_MAXAGGS);
	st->strsize = p->strsize ? p->strsize : 256;
	st->bufsize = p->bufsize;
	if (st->strsize > 4096 || st->strsize & 7)
		return EERR("strsize %u (a multiple of 8, at most 4096)",
			    st->strsize);
	if (p->nvars > 1u << 16)
		return EERR("%u variables (at most %u)", p->nvars, 1u << 16);
	ret = xdt_vars_create(st, req->err, sizeof(req->err));
	if (!ret)
		ret = load_difos(st, req);
	if (!ret)
		ret = load_clauses(st, req);
	if (!ret) {
		mutex_lock(&xdt_lock);
		ret = bind(st, req);
		mutex_unlock(&xdt_lock);
	}
	if (ret)
		return ret;
	req->nprobes = st->necbs;
	st->state = XDT_STATE_ENABLED;
	return 0;
}

/*
 * Probes are shared by consumers: each probe's ECB list holds every
 * consumer's clauses, one consumer's together and in program order.  GO
 * links a consumer's ECBs in (at the head: a whole block, published one ECB
 * at a time, skipped by firings until the consumer runs); STOP takes them
 * out and waits a grace period before they can be freed.  Firings walk the
 * lists with IRQs off, as RCU readers; every change holds xdt_lock.
 *
 * A probe is switched on (sites patched, provider enabled) by the consumer
 * whose GO gives it its first ECBs, and off by the one whose STOP takes its
 * last: the other consumers' GO and STOP only link and unlink.
 */
static void link_ecbs(struct xdt_state *st)
{
	u32 i;

	for (i = st->necbs; i-- > 0;) {
		struct xdt_ecb *e = &st->ecbs[i];

		e->st = st;
		e->next = e->probe->ecbs;
		smp_store_release(&e->probe->ecbs, e);
		e->probe->nenabled++;
	}
}

static void unlink_ecbs(struct xdt_state *st)
{
	u32 i;

	for (i = 0; i < st->necbs; i++) {
		struct xdt_ecb *e = &st->ecbs[i], **link;

		for (link = &e->probe->ecbs; *link; link = &(*link)->next) {
			if (*link == e) {
				/* A firing at @e goes on to e->next. */
				WRITE_ONCE(*link, e->next);
				e->probe->nenabled--;
				break;
			}
		}
		if (!(i & 1023))
			cond_resched();
	}
	/* No firing still holds one of them: they may be freed. */
	synchronize_rcu_expedited();
}

/* Is @e its consumer's first ECB on its probe? */
static bool lead_ecb(const struct xdt_ecb *e)
{
	const struct xdt_ecb *x;

	for (x = e->probe->ecbs; x && x->st != e->st; x = x->next)
		;
	return x == e;
}

/*
 * Does @e switch its probe: is it its consumer's first ECB there, with no
 * other consumer's on the probe?  (GO: the probe was off; STOP: it goes
 * off.)
 */
static bool switches_probe(const struct xdt_ecb *e)
{
	const struct xdt_ecb *x;

	for (x = e->probe->ecbs; x; x = x->next)
		if (x->st != e->st)
			return false;
	return e->probe->ecbs == e;
}

static void stop_locked(struct xdt_state *st);

/*
 * Gather the patch sites of the probes @st switches, for one batched patch.
 * The array is sized at GO for every probe of @st, so STOP can gather into
 * it again (other consumers may have come or gone) without allocating.
 */
static int collect_sites(struct xdt_state *st)
{
	u32 i, n = 0;

	if (!st->sites) {
		for (i = 0; i < st->necbs; i++) {
			struct xdt_probe *p = st->ecbs[i].probe;

			if (lead_ecb(&st->ecbs[i]) && p->prov->ops->sites)
				n += p->prov->ops->sites(p, NULL, 0);
		}
		st->sites = kvmalloc_array(max(n, 1u), sizeof(*st->sites),
					   GFP_KERNEL);
		if (!st->sites)
			return -ENOMEM;
		st->sitecap = n;
	}
	st->nsites = 0;
	for (i = 0; i < st->necbs; i++) {
		struct xdt_probe *p = st->ecbs[i].probe;

		if (switches_probe(&st->ecbs[i]) && p->prov->ops->sites)
			st->nsites += p->prov->ops->sites(p,
					st->sites + st->nsites,
					st->sitecap - st->nsites);
	}
	return 0;
}

int xdt_go(struct xdt_state *st)
{
	struct xdt_ctx ctx;
	u32 i;
	int ret = 0;

	if (st->state != XDT_STATE_ENABLED)
		return -EINVAL;
	ret = xdt_bufs_alloc(st);
	if (ret)
		return ret;
	mutex_lock(&xdt_lock);
	link_ecbs(st);
	ret = collect_sites(st);
	if (!ret) {
		ret = xdt_xol_prepare(st->sites, st->nsites);
		if (!ret) {
			ret = xdt_vars_start(st->vars);
			if (ret)
				xdt_xol_release(st->sites, st->nsites);
		}
	}
	if (ret) {
		st->nsites = 0;
		unlink_ecbs(st);
		mutex_unlock(&xdt_lock);
		xdt_bufs_free(st);	/* a later GO allocates them again */
		return ret;
	}
	st->state = XDT_STATE_RUNNING;
	st->traps0 = xdt_traps();
	/* BEGIN first: no other clause of st runs before it. */
	xdt_ctx_init(&ctx, xdt_probe_begin);
	ctx.only = st;
	xdt_probe_fire(&ctx);
	WRITE_ONCE(st->running, 1);
	ret = xdt_sites_patch(st->sites, st->nsites, true);
	if (ret) {
		/* Refused or rolled back as a whole: nothing is patched in. */
		synchronize_rcu();
		xdt_xol_release(st->sites, st->nsites);
		st->unpatched = true;
	}
	for (i = 0; i < st->necbs && !ret; i++) {
		struct xdt_probe *p = st->ecbs[i].probe;

		if (switches_probe(&st->ecbs[i]) && p->prov->ops->enable)
			ret = p->prov->ops->enable(p);
	}
	/* Still locked: no other consumer sees the half-switched probes. */
	if (ret)
		stop_locked(st);
	mutex_unlock(&xdt_lock);
	return ret;
}

void xdt_stop(struct xdt_state *st)
{
	if (st->state != XDT_STATE_RUNNING)
		return;
	mutex_lock(&xdt_lock);
	stop_locked(st);
	mutex_unlock(&xdt_lock);
}

static void stop_locked(struct xdt_state *st)
{
	struct xdt_provider *quiesce[8];
	struct xdt_ctx ctx;
	u32 i, j, nq = 0;
	int ret;

	/* From here on no firing runs st's clauses (END excepted). */
	WRITE_ONCE(st->running, 0);
	for (i = 0; i < st->necbs; i++) {
		struct xdt_probe *p = st->ecbs[i].probe;

		if (!switches_probe(&st->ecbs[i]) || !p->prov->ops->disable)
			continue;
		p->prov->ops->disable(p);
		if (!p->prov->ops->quiesce)
			continue;
		for (j = 0; j < nq && quiesce[j] != p->prov; j++)
			;
		if (j == nq && nq < ARRAY_SIZE(quiesce))
			quiesce[nq++] = p->prov;
	}
	/* (Covered by the grace period below: see xdt_vars_unhook.) */
	xdt_vars_unhook(st->vars);
	for (j = 0; j < nq; j++)
		quiesce[j]->ops->quiesce();
	collect_sites(st);		/* into the array GO sized: no failure */
	if (st->unpatched)		/* GO's patch failed: nothing went in */
		st->nsites = 0;
	ret = xdt_sites_patch(st->sites, st->nsites, false);
	if (ret)
		pr_err("xdt: could not restore kernel text (%d): sites left "
		       "patched are still emulated\n", ret);
	/*
	 * Breakpoint handlers run as RCU readers: after this, none is left,
	 * and (non-preemptible kernel, calls never run out of line) no CPU
	 * is inside a kinst trampoline either.
	 *
	 * Expedited, as DTrace's dtrace_sync() is a cross call: STOP is rare
	 * and a consumer waits for it, and a normal grace period took most of
	 * a STOP's ~50 ms under TCG; the price is one IPI per CPU.
	 */
	synchronize_rcu_expedited();
	if (!ret)
		xdt_xol_release(st->sites, st->nsites);
	xdt_ctx_init(&ctx, xdt_probe_end);
	ctx.only = st;
	xdt_probe_fire(&ctx);
	st->traps1 = xdt_traps();
	unlink_ecbs(st);
	xdt_vars_stop(st->vars);
	st->state = XDT_STATE_STOPPED;
}

/* Drop the program and everything built from it; @st is idle again. */
void xdt_state_reset(struct xdt_state *st)
{
	u32 i;

	xdt_stop(st);
	kvfree(st->acts);
	kvfree(st->clauses);
	kvfree(st->difos);
	kfree(st->aggfunc);
	kvfree(st->sites);
	for (i = 0; i < st->necbs; i++)
		module_put(st->ecbs[i].probe->owner);
	kvfree(st->ecbs);
	xdt_vars_free(st->vars);
	kvfree(st->blob);
	xdt_bufs_free(st);
	memset(st, 0, offsetof(struct xdt_state, ioc_lock));
}

void xdt_state_free(struct xdt_state *st)
{
	if (!st)
		return;
	xdt_state_reset(st);
	kfree(st);
}
