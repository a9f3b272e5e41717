// SPDX-License-Identifier: GPL-2.0
/*
 * Enablings: load a program object (load.c), and bind each clause to every
 * probe its description matches (one ECB per pair, in program order on
 * each probe).  GO patches the probes in and fires BEGIN; STOP patches them
 * out, waits until no CPU can still be inside a firing, and fires END.
 *
 * Portable: the host VM runs this same state machine.  What only a kernel
 * has -- text to patch, out-of-line slots, module references, grace
 * periods -- is the environment's (xdt_env.h); the host VM has no patch
 * sites, so its calls there are given nothing to do.
 */
#include "xdt_impl.h"

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
	pr->nbound++;
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
			ret = XDT_EERR(req, "%s:%s:%s:%s: %s", uc[i].desc.prov,
				   uc[i].desc.mod, uc[i].desc.func,
				   uc[i].desc.name, why);
		if (!ret && b.n == before && req->unmatched < 0)
			req->unmatched = i;
		/* Thousands of clauses, each cheap: still yield. */
		cond_resched();
	}
	/*
	 * Room for probes made after GO, kept now: ECBs are linked into
	 * probes' lists by address from GO on, so the array never moves.
	 */
	if (!ret && req->late) {
		struct xdt_ecb *room;

		if (req->late > XDT_LATE_MAX) {
			ret = XDT_EERR(req, "room for %u late probes (at most %u)",
				       req->late, XDT_LATE_MAX);
		} else {
			room = kvcalloc(b.n + req->late, sizeof(*room), GFP_KERNEL);
			if (room) {
				memcpy(room, b.ecbs, b.n * sizeof(*room));
				kvfree(b.ecbs);
				b.ecbs = room;
				b.cap = b.n + req->late;
			} else {
				ret = -ENOMEM;
			}
		}
	}
	/* Whatever was bound is released by the caller's teardown. */
	st->ecbs = b.ecbs;
	st->necbs = b.n;
	st->ecbcap = req->late && !ret ? b.cap : b.n;
	return ret;
}

int xdt_state_enable(struct xdt_state *st, struct xdt_enable *req, void *blob)
{
	int ret;

	ret = xdt_prog_load(st, req, blob);
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
/*
 * @p's fast firing (xdt_probe_fast): its one ECB, if its clause needs no
 * context and its consumer traces every CPU (-x cpu is set at load).  Only one ECB: a walk of several that met a clause the fast
 * path cannot finish would have done part of the firing already.
 */
static void set_fast(struct xdt_probe *p)
{
	struct xdt_ecb *e = p->ecbs;

	WRITE_ONCE(p->fast, e && !e->next && !e->st->onecpu &&
		   (e->clause->flags & (XDT_CLAUSE_K_COUNTS |
					XDT_CLAUSE_K_EMPTY)) ? e : NULL);
}

static void link_ecbs(struct xdt_state *st)
{
	u32 i;

	for (i = st->necbs; i-- > 0;) {
		struct xdt_ecb *e = &st->ecbs[i];

		e->st = st;
		e->next = e->probe->ecbs;
		smp_store_release(&e->probe->ecbs, e);
		e->probe->nenabled++;
		set_fast(e->probe);
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
				set_fast(e->probe);
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
 * Each provider with a commit op, once: what @st's enable()s or
 * disable()s queued goes in (or out) in one batch.  Even after a failed
 * enable(), so a provider's queue never outlives the GO or STOP.
 */
static int commit_range(struct xdt_state *st, u32 from, u32 to)
{
	struct xdt_provider *done[8];
	u32 i, j, nd = 0;
	int ret = 0, r;

	for (i = from; i < to; i++) {
		struct xdt_provider *pv = st->ecbs[i].probe->prov;

		if (!pv->ops->commit)
			continue;
		for (j = 0; j < nd && done[j] != pv; j++)
			;
		if (j < nd)
			continue;
		if (nd < ARRAY_SIZE(done))
			done[nd++] = pv;
		r = pv->ops->commit();
		if (r && !ret)
			ret = r;
	}
	return ret;
}

static int commit_all(struct xdt_state *st)
{
	return commit_range(st, 0, st->necbs);
}

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

/* Consumers tracing: GO done, STOP not begun (core/main.c shows it). */
int xdt_tracing;

int xdt_state_go(struct xdt_state *st)
{
	struct xdt_ctx ctx;
	u32 i;
	int ret = 0, r;

	if (st->state != XDT_STATE_ENABLED)
		return -EINVAL;
	ret = xdt_bufs_alloc(st);
	if (ret)
		return ret;
	mutex_lock(&xdt_lock);
	link_ecbs(st);
	xdt_fentry_choose_begin();
	for (i = 0; i < st->necbs; i++) {
		struct xdt_probe *p = st->ecbs[i].probe;

		if (switches_probe(&st->ecbs[i]) && p->prov->ops->choose)
			p->prov->ops->choose(p, st->prog);
	}
	ret = collect_sites(st);
	if (!ret) {
		ret = xdt_xol_prepare(st->sites, st->nsites);
		if (!ret) {
			ret = xdt_vars_start(st->vars);
			if (ret)
				xdt_xol_release(st->sites, st->nsites);
			else
				xdt_spec_start(st, max_t(unsigned long, HZ /
					(st->prog->cleanrate ?: XDT_CLEAN_DEFAULT), 1));
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
		/*
		 * An enable() may patch text (a tracepoint's static call:
		 * text_poke_bp() and its IPIs); rawtp::: is hundreds of them,
		 * tens of seconds under TCG, and without a resched point the
		 * non-preemptible kernel reports an RCU stall (make soak).
		 */
		cond_resched();
	}
	r = commit_all(st);	/* even after a failed enable: see above */
	if (!ret)
		ret = r;
	/* Still locked: no other consumer sees the half-switched probes. */
	if (ret) {
		stop_locked(st);
	} else {
		WRITE_ONCE(st->counted, true);
		WRITE_ONCE(xdt_tracing, xdt_tracing + 1);
	}
	mutex_unlock(&xdt_lock);
	return ret;
}

/*
 * Probes made while @st runs -- the pid provider's, in an object the
 * process dlopen()ed after GO -- bound to @st's clauses that match them, in
 * the room ENABLE kept (xdt_enable.late), linked and switched on, as GO
 * does.  Probes of providers that say so (ops->late: pid's) and have no
 * patch sites (STOP gathers sites into the array GO sized), that @st has
 * no ECB on yet -- made by this consumer's request or another's.  Each
 * consumer binds at its own request: a probe another consumer made is
 * bound to @st's clauses when @st looks at the process again.  *@bound:
 * the ECBs made.
 */
struct late_state {
	struct xdt_state *st;
	struct xdt_clause_k *clause;
	u32 n;
	u64 gen;
};

static int bind_late_one(struct xdt_probe *pr, void *arg)
{
	struct late_state *l = arg;
	const struct xdt_ecb *x;
	struct xdt_ecb *e;

	if (!pr->prov->ops->late || pr->prov->ops->sites)
		return 0;
	/* bound to @st already (at GO, or by an earlier late pass) */
	for (x = pr->ecbs; x && pr->lategen != l->gen; x = x->next)
		if (x->st == l->st)
			return 0;
	if (l->n == l->st->ecbcap)
		return -ENOSPC;
	if (!try_module_get(pr->owner))
		return 0;
	e = &l->st->ecbs[l->n];
	e->epid = l->n + 1;
	e->clause = l->clause;
	e->probe = pr;
	e->st = l->st;
	pr->nbound++;
	pr->lategen = l->gen;
	l->n++;
	return 0;
}

int xdt_state_bind_late(struct xdt_state *st, u32 *bound)
{
	static u64 gen;
	const struct xdt_clause *uc;
	struct late_state l = { st, NULL, st->necbs, 0 };
	u32 i, first = st->necbs;
	int ret = 0, r;

	*bound = 0;
	if (st->state != XDT_STATE_RUNNING || st->ecbcap == st->necbs)
		return 0;
	uc = st->blob + st->prog->clauses_off;
	mutex_lock(&xdt_lock);
	l.gen = ++gen;
	for (i = 0; i < st->prog->nclauses && !ret; i++) {
		l.clause = &st->clauses[i];
		ret = xdt_probe_foreach(&uc[i].desc, bind_late_one, &l);
	}
	/* Program order on each probe: the last first, each at the head. */
	for (i = l.n; i-- > first;) {
		struct xdt_ecb *e = &st->ecbs[i];

		e->next = e->probe->ecbs;
		smp_store_release(&e->probe->ecbs, e);
		e->probe->nenabled++;
		set_fast(e->probe);
	}
	st->necbs = l.n;	/* STOP and the EPROBES query see them now */
	for (i = first; i < l.n; i++) {
		struct xdt_probe *p = st->ecbs[i].probe;

		if (switches_probe(&st->ecbs[i]) && p->prov->ops->enable) {
			r = p->prov->ops->enable(p);
			if (r && !ret)
				ret = r;	/* the others stay on */
		}
		cond_resched();
	}
	r = commit_range(st, first, l.n);
	if (r && !ret)
		ret = r;
	mutex_unlock(&xdt_lock);
	*bound = l.n - first;
	return ret;
}

void xdt_state_stop(struct xdt_state *st)
{
	if (st->state != XDT_STATE_RUNNING)
		return;
	mutex_lock(&xdt_lock);
	stop_locked(st);
	mutex_unlock(&xdt_lock);
}

/* What providers hung on @st (xdt_attach) comes off; xdt_lock held. */
static void detach_all(struct xdt_state *st)
{
	while (st->attached) {
		struct xdt_attach *a = st->attached;

		st->attached = a->next;
		a->stop(a);
	}
}

static void stop_locked(struct xdt_state *st)
{
	struct xdt_provider *quiesce[8];
	struct xdt_ctx ctx;
	u32 i, j, nq = 0;
	int ret;

	if (st->counted) {
		WRITE_ONCE(st->counted, false);
		WRITE_ONCE(xdt_tracing, xdt_tracing - 1);
	}
	/* From here on no firing runs st's clauses (END excepted). */
	WRITE_ONCE(st->running, 0);
	/* threads a provider holds for st go on first (pid's r_brk hold) */
	detach_all(st);
	for (i = 0; i < st->necbs; i++) {
		struct xdt_probe *p = st->ecbs[i].probe;

		if (!switches_probe(&st->ecbs[i]) || !p->prov->ops->disable)
			continue;
		p->prov->ops->disable(p);
		cond_resched();		/* as in xdt_state_go()'s enable() loop */
		if (!p->prov->ops->quiesce)
			continue;
		for (j = 0; j < nq && quiesce[j] != p->prov; j++)
			;
		if (j == nq && nq < ARRAY_SIZE(quiesce))
			quiesce[nq++] = p->prov;
	}
	commit_all(st);
	/* (Covered by the grace period below: see xdt_vars_unhook.) */
	xdt_vars_unhook(st->vars);
	for (j = 0; j < nq; j++)
		quiesce[j]->ops->quiesce();
	collect_sites(st);		/* into the array GO sized: no failure */
	if (st->unpatched)		/* GO's patch failed: nothing went in */
		st->nsites = 0;
	ret = xdt_sites_patch(st->sites, st->nsites, false);
	if (ret) {
		pr_err("xdt: could not restore kernel text (%d): sites left "
		       "patched are still emulated\n", ret);
		/* Their slots stay too: only the restored ones go back. */
		for (i = j = 0; i < st->nsites; i++)
			if (!READ_ONCE(st->sites[i]->enabled))
				st->sites[j++] = st->sites[i];
		st->nsites = j;
	}
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
	xdt_xol_release(st->sites, st->nsites);
	xdt_bufs_end(st);
	xdt_ctx_init(&ctx, xdt_probe_end);
	ctx.only = st;
	xdt_probe_fire(&ctx);
	st->traps1 = xdt_traps();
	unlink_ecbs(st);
	xdt_vars_stop(st->vars);
	/* nothing fires now: the last commits on many CPUs, then no cleaner */
	xdt_spec_stop(st);
	xdt_spec_clean(st);
	st->state = XDT_STATE_STOPPED;
}

/* Drop the program and everything built from it; @st is idle again. */
void xdt_state_reset(struct xdt_state *st)
{
	u32 i;

	xdt_state_stop(st);
	if (st->attached) {	/* hung on before a GO that never came */
		mutex_lock(&xdt_lock);
		detach_all(st);
		mutex_unlock(&xdt_lock);
	}
	kvfree(st->acts);
	kvfree(st->clauses);
	kvfree(st->difos);
	kfree(st->aggs);
	xdt_spec_free(st);
	kvfree(st->sites);
	if (st->necbs)
		mutex_lock(&xdt_lock);
	for (i = 0; i < st->necbs; i++) {
		st->ecbs[i].probe->nbound--;
		module_put(st->ecbs[i].probe->owner);
	}
	if (st->necbs)
		mutex_unlock(&xdt_lock);
	kvfree(st->ecbs);
	xdt_vars_free(st->vars);
	kvfree(st->blob);
	xdt_bufs_free(st);
	memset(st, 0, offsetof(struct xdt_state, perfmon_only));
}

void xdt_state_free(struct xdt_state *st)
{
	if (!st)
		return;
	xdt_state_reset(st);
	kfree(st);
}
