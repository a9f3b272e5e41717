// SPDX-License-Identifier: GPL-2.0
/*
 * Loading a program object: check every length, offset and index in it,
 * make its variables' storage, verify its DIF and build the views the
 * firing path uses (difos, clauses, actions).  Portable core: the kernel's
 * enabling (enable.c) and libxdt's host VM load a program the same way,
 * then bind its clauses to their own probes.
 *
 * The blob is kept whole and the views point into it, so nothing is copied
 * twice and nothing the consumer sent can change after the checks (it was
 * copied from user space once, up front).
 */
#include "xdt_impl.h"

#define EERR(fmt, ...) XDT_EERR(req, fmt, ##__VA_ARGS__)

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
		if (xdt_dif_verify(d, st->blob + p->vars_off, p->nvars,
				   p->flags & XDT_PROG_DESTRUCTIVE, why,
				   sizeof(why)))
			return EERR("difo %u %s", i, why);
	}
	return 0;
}

/* The action table's record kinds and flags, by action kind (0: none) */
static const u8 act_rec[XDT_NACTS] = {
#define ACT_REC(name, v, dis, rec, fl) [v] = XDT_REC_##rec + 1,
	XDT_ACTIONS(ACT_REC)
#undef ACT_REC
};
static const u8 act_flags[XDT_NACTS] = {
#define ACT_FLAGS(name, v, dis, rec, fl) [v] = (fl),
	XDT_ACTIONS(ACT_FLAGS)
#undef ACT_FLAGS
};

/*
 * The commonest D clause, `@ = count();` (any number of them, no
 * predicate, no record): every firing only adds one to a keyless
 * aggregation's per-CPU slot.  Marked here so the firing can do just that
 * (xdt_agg_counts) and skip run_clause's machine state, action loop and
 * xdt_agg_update's dispatch -- ~130 instructions of a ~345-instruction
 * firing on x86_64 (bench/stepprof.py).  Anything else takes the general
 * path; so does the first firing on a CPU, which creates the slot.
 */
static bool counts_only(const struct xdt_clause_k *c)
{
	u32 j;

	if (c->pred >= 0 || c->flags || !c->nacts ||
	    c->recsize != sizeof(struct xdt_rechdr))
		return false;
	for (j = 0; j < c->nacts; j++)
		if (c->acts[j].kind != XDT_ACT_AGG ||
		    c->acts[j].arg1 != XDT_AGG_COUNT || c->acts[j].difo >= 0)
			return false;
	return true;
}

/* The aggregations' descriptions, each checked against its function. */
static int load_aggs(struct xdt_state *st, struct xdt_enable *req)
{
	const struct xdt_prog *p = st->prog;
	u32 i;

	for (i = 0; i < p->naggs; i++) {
		const struct xdt_aggdesc *d = (const struct xdt_aggdesc *)
			(st->blob + p->aggs_off) + i;
		u32 n = xdt_agg_nvals(d->func, d->arg);

		if (!n || n != d->nvals)
			return EERR("aggregation %u: function %u with parameters "
				    "0x%llx keeps %u values, not %u", i, d->func,
				    (unsigned long long)d->arg, n, d->nvals);
		/* an entry must at least fit in the arena without keys */
		if (sizeof(struct xdt_aggent) + 8ull + 8ull * n > st->aggsize)
			return EERR("aggregation %u: %u values do not fit in "
				    "aggsize %u", i, n, st->aggsize);
		st->aggs[i] = *d;
	}
	return 0;
}

/* What a clause's actions have done so far, for the next one's checks. */
struct clause_walk {
	u32 off;	/* record bytes so far */
	u32 nkeys;	/* aggregation keys waiting for their aggregation */
	u32 nspec;	/* speculate()s seen */
	u32 keylen;	/* bytes of those keys */
};

/* Action @j of clause @i: checked, and its place in the record. */
static int load_action(struct xdt_state *st, struct xdt_enable *req,
		       const struct xdt_clause *uc, u32 i, u32 j,
		       struct xdt_act_k *k, struct clause_walk *w)
{
	const struct xdt_prog *p = st->prog;
	const struct xdt_action *a = (const struct xdt_action *)
		(st->blob + p->actions_off) + uc->action0 + j;

	k->kind = a->kind;
	k->difo = a->difo;
	k->arg0 = a->arg0;
	k->arg1 = a->arg1;
	if (a->difo >= (s32)p->ndifos || a->difo < -1)
		return EERR("clause %u action %u: difo %d out of range", i, j,
			    a->difo);
	if (a->kind < 1 || a->kind >= XDT_NACTS || !act_rec[a->kind])
		return EERR("clause %u action %u: unknown action kind %u", i,
			    j, a->kind);
	if ((act_flags[a->kind] & XDT_AF_DESTR) &&
	    !(p->flags & XDT_PROG_DESTRUCTIVE))
		return EERR("clause %u action %u: destructive actions not "
			    "allowed", i, j);
	if ((act_flags[a->kind] & XDT_AF_VALUE) && a->difo < 0)
		return EERR("clause %u action %u: no value", i, j);
	/* what the action records, 8-aligned */
	w->off = ALIGN(w->off, 8);
	k->off = w->off;
	switch (act_rec[a->kind] - 1) {
	case XDT_REC_U64:
		w->off += 8;
		break;
	case XDT_REC_STR:
		/*
		 * A string whose length the compiler bounds (execname) has a
		 * slot that size: records as small as the value, not strsize.
		 */
		if (a->arg0 > st->strsize)
			return EERR("clause %u action %u: string slot of %u "
				    "bytes beyond strsize %u", i, j, a->arg0,
				    st->strsize);
		w->off += a->arg0 ?: st->strsize;
		break;
	case XDT_REC_STACK:
		/* arg1 1: ustack(), whose first word is the pid's */
		if (a->arg1 > 1 || a->arg0 < 1 + a->arg1 ||
		    a->arg0 > XDT_MAXSTACK + a->arg1)
			return EERR("clause %u action %u: stack of %u words "
				    "(1 to %u frames)", i, j, a->arg0,
				    XDT_MAXSTACK);
		w->off += a->arg0 * 8;
		break;
	case XDT_REC_MEM:
		if (a->arg0 < 1 || a->arg0 > XDT_MAXMEMREF)
			return EERR("clause %u action %u: %u bytes of memory "
				    "(1 to %u)", i, j, a->arg0, XDT_MAXMEMREF);
		w->off += a->arg0;
		break;
	}
	/*
	 * A speculating clause reserves its record at its one speculate:
	 * nothing may write the record before it, nor aggregate, nor be
	 * destructive after it (DTrace's rules, which its compiler enforces;
	 * the kernel's own safety needs the first).
	 */
	if ((a->kind == XDT_ACT_SPECULATE || a->kind == XDT_ACT_COMMIT ||
	     a->kind == XDT_ACT_DISCARD) && !p->nspec)
		return EERR("clause %u action %u: a speculation action in a "
			    "program without speculations (nspec 0)", i, j);
	if (a->kind == XDT_ACT_SPECULATE) {
		if (!(uc->flags & XDT_CLAUSE_SPEC) || w->nspec++ ||
		    w->off != sizeof(struct xdt_rechdr))
			return EERR("clause %u action %u: speculate must come "
				    "once, before any data, in a speculating "
				    "clause", i, j);
	} else if (uc->flags & XDT_CLAUSE_SPEC && !w->nspec &&
		   act_rec[a->kind] - 1 != XDT_REC_NONE) {
		return EERR("clause %u action %u: data before speculate", i, j);
	} else if (w->nspec && (a->kind == XDT_ACT_AGG ||
				a->kind == XDT_ACT_AGGKEY ||
				a->kind == XDT_ACT_EXIT ||
				(act_flags[a->kind] & XDT_AF_DESTR))) {
		return EERR("clause %u action %u: not allowed after speculate",
			    i, j);
	}
	switch (a->kind) {
	case XDT_ACT_AGGKEY:
		if (a->arg0 > XDT_KEY_MEM)
			return EERR("clause %u action %u: bad key type", i, j);
		/* at most XDT_KEYMEM_MAX: 8 keys of any kind fit XDT_KEYBUF */
		if (a->arg0 == XDT_KEY_MEM &&
		    (a->arg1 < 1 || a->arg1 > XDT_KEYMEM_MAX))
			return EERR("clause %u action %u: key of %u bytes (1 to "
				    "%u)", i, j, a->arg1, XDT_KEYMEM_MAX);
		if ((a->arg0 == XDT_KEY_STACK &&
		     (XDT_KEY_WORDS(a->arg1) < 1 ||
		      XDT_KEY_WORDS(a->arg1) > XDT_MAXSTACK)) ||
		    (a->arg0 == XDT_KEY_USTACK &&
		     (XDT_KEY_WORDS(a->arg1) < 2 ||
		      XDT_KEY_WORDS(a->arg1) > XDT_MAXSTACK + 1)))
			return EERR("clause %u action %u: stack key of %u "
				    "words (1 to %u frames)", i, j,
				    XDT_KEY_WORDS(a->arg1), XDT_MAXSTACK);
		if ((a->arg0 == XDT_KEY_STACK || a->arg0 == XDT_KEY_USTACK) &&
		    (XDT_KEY_SLOT(a->arg1) < XDT_KEY_WORDS(a->arg1) ||
		     XDT_KEY_SLOT(a->arg1) > XDT_MAXSTACK + 1))
			return EERR("clause %u action %u: stack key slot of %u "
				    "words for %u (at most %u)", i, j,
				    XDT_KEY_SLOT(a->arg1),
				    XDT_KEY_WORDS(a->arg1), XDT_MAXSTACK + 1);
		if (a->arg0 != XDT_KEY_STACK && a->arg0 != XDT_KEY_USTACK &&
		    a->arg0 != XDT_KEY_MEM && a->arg1)
			return EERR("clause %u action %u: key argument %u",
				    i, j, a->arg1);
		if (a->arg0 != XDT_KEY_STACK && a->arg0 != XDT_KEY_USTACK &&
		    a->difo < 0)
			return EERR("clause %u action %u: no value", i, j);
		w->nkeys++;
		/* what run_clause builds into the key buffer */
		if (a->arg0 == XDT_KEY_INT)
			w->keylen += 8;
		else if (a->arg0 == XDT_KEY_STACK || a->arg0 == XDT_KEY_USTACK)
			w->keylen += XDT_KEY_SLOT(a->arg1) * 8;
		else
			w->keylen += ALIGN(st->strsize, 8);
		break;
	case XDT_ACT_AGG:
		if (a->arg0 >= p->naggs)
			return EERR("clause %u action %u: aggregation %u of %u",
				    i, j, a->arg0, p->naggs);
		if (st->aggs[a->arg0].func != a->arg1)
			return EERR("clause %u action %u: aggregation %u is %u, "
				    "not %u", i, j, a->arg0,
				    st->aggs[a->arg0].func, a->arg1);
		if (w->nkeys > XDT_MAXKEYS)
			return EERR("clause %u action %u: more than 8 keys", i,
				    j);
		if (a->arg1 != XDT_AGG_COUNT && a->difo < 0)
			return EERR("clause %u action %u: no value", i, j);
		st->keymax = max(st->keymax, w->keylen);
		w->nkeys = 0;
		w->keylen = 0;
		break;
	}
	return 0;
}

static int load_clauses(struct xdt_state *st, struct xdt_enable *req)
{
	const struct xdt_prog *p = st->prog;
	const struct xdt_clause *uc = st->blob + p->clauses_off;
	struct xdt_act_k *acts;
	u64 nacts = 0;
	u32 i, j;
	int ret;

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
	st->aggs = kcalloc(max(p->naggs, 1u), sizeof(*st->aggs), GFP_KERNEL);
	st->clauses = kvcalloc(max(p->nclauses, 1u), sizeof(*st->clauses),
			       GFP_KERNEL);
	st->acts = acts = kvcalloc(max_t(u64, nacts, 1), sizeof(*acts),
				   GFP_KERNEL);
	if (!st->aggs || !st->clauses || !acts)
		return -ENOMEM;
	ret = load_aggs(st, req);
	if (ret)
		return ret;
	for (i = 0; i < p->nclauses; i++) {
		struct xdt_clause_k *c = &st->clauses[i];
		struct clause_walk w = { .off = sizeof(struct xdt_rechdr) };

		if (!desc_terminated(&uc[i].desc))
			return EERR("clause %u: unterminated probe description", i);
		if (uc[i].pred >= (s32)p->ndifos || uc[i].pred < -1)
			return EERR("clause %u: predicate difo %d out of range",
				    i, uc[i].pred);
		c->index = i;
		c->pred = uc[i].pred;
		if (uc[i].flags & ~(XDT_CLAUSE_RECORD | XDT_CLAUSE_SPEC))
			return EERR("clause %u: unknown flags 0x%x", i, uc[i].flags);
		c->flags = uc[i].flags;
		c->nacts = uc[i].nactions;
		c->acts = acts;
		acts += c->nacts;
		for (j = 0; j < c->nacts; j++) {
			ret = load_action(st, req, &uc[i], i, j, &c->acts[j], &w);
			if (ret)
				return ret;
		}
		if (w.nkeys)
			return EERR("clause %u: keys without an aggregation", i);
		if ((uc[i].flags & XDT_CLAUSE_SPEC) && !w.nspec)
			return EERR("clause %u: speculating without speculate", i);
		c->recsize = ALIGN(w.off, 8);
		c->count1 = -1;
		if (counts_only(c)) {
			c->flags |= XDT_CLAUSE_K_COUNTS;
			if (c->nacts == 1)
				c->count1 = (s32)c->acts[0].arg0;
		}
		else if (c->pred < 0 && !c->nacts &&
			 !(c->flags & ~XDT_CLAUSE_RECORD) &&
			 c->recsize == sizeof(struct xdt_rechdr))
			c->flags |= XDT_CLAUSE_K_EMPTY;
		/* fill keeps room for the largest END record (and its ERROR) */
		if ((!uc[i].desc.prov[0] || !strcmp(uc[i].desc.prov, "dtrace")) &&
		    !strcmp(uc[i].desc.name, "END"))
			st->endreserve = max(st->endreserve, c->recsize + 64);
		if (c->recsize > (4u << 20))
			return EERR("clause %u: record of %u bytes", i,
				    c->recsize);
	}
	return 0;
}

int xdt_prog_load(struct xdt_state *st, struct xdt_enable *req, void *blob)
{
	const struct xdt_prog *p = blob;
	u32 size = req->size;
	u32 specsize;
	int ret;

	st->blob = blob;
	st->prog = p;
	if (size < sizeof(*p) || p->magic != XDT_PROG_MAGIC)
		return EERR("not an xdt program object");
	if (p->version != XDT_ABI_VERSION)
		return EERR("program object version %u, kernel speaks %u",
			    p->version, XDT_ABI_VERSION);
	if (p->flags & ~XDT_PROG_DESTRUCTIVE)
		return EERR("unknown program flags 0x%x", p->flags);
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
	    !in_blob(size, p->vars_off, p->nvars, sizeof(struct xdt_var)) ||
	    !in_blob(size, p->aggs_off, p->naggs, sizeof(struct xdt_aggdesc)))
		return EERR("a section lies outside the program object");
	if ((p->clauses_off | p->actions_off | p->difos_off | p->ints_off) & 7 ||
	    (p->nvars && p->vars_off & 7) || (p->naggs && p->aggs_off & 7) ||
	    p->insns_off & 3)
		return EERR("misaligned section");
	if (p->nclauses == 0)
		return EERR("no clauses");
	if (p->naggs > XDT_MAXAGGS)
		return EERR("%u aggregations (at most %u)", p->naggs,
			    XDT_MAXAGGS);
	st->strsize = p->strsize ? p->strsize : 256;
	st->bufsize = p->bufsize;
	if (p->bufpolicy > XDT_BUFPOLICY_RING)
		return EERR("bufpolicy %u", p->bufpolicy);
	st->bufpolicy = p->bufpolicy;
	if (p->onecpu && (p->onecpu - 1 >= nr_cpu_ids ||
			  !cpu_possible(p->onecpu - 1)))
		return EERR("cpu %u: no such CPU", p->onecpu - 1);
	st->onecpu = p->onecpu;
	/*
	 * aggsize is per CPU and bounded: an arena is allocated for each CPU
	 * and one more for the merged snapshot.
	 */
	st->aggsize = p->aggsize ? p->aggsize : XDT_AGGSIZE_DEFAULT;
	st->aggsize = ALIGN(max(st->aggsize, XDT_AGGSIZE_MIN), 8);
	if (st->aggsize > XDT_AGGSIZE_MAX)
		return EERR("aggsize %u (%u to %u)", st->aggsize,
			    XDT_AGGSIZE_MIN, XDT_AGGSIZE_MAX);
	/*
	 * String keys and record fields take ALIGN(strsize, 8) bytes, and
	 * every buffer a string goes through (scratch results, the key
	 * buffers, string variables, records) is sized from strsize here at
	 * enabling; the bound keeps one string's copy (and so each string
	 * subroutine, which is linear in it) a bounded cost in probe
	 * context.  DTrace takes any strsize.
	 */
	if (st->strsize > XDT_STRSIZE_MAX || st->strsize < 2)
		return EERR("strsize %u (2 to %u)", st->strsize,
			    XDT_STRSIZE_MAX);
	if (p->nvars > 1u << 16)
		return EERR("%u variables (at most %u)", p->nvars, 1u << 16);
	/* speculations: only a program that calls speculation() has any */
	specsize = p->specsize ? p->specsize : XDT_SPECSIZE_DEFAULT;
	if (p->nspec > XDT_NSPEC_MAX ||
	    (u64)p->nspec * specsize * num_possible_cpus() > XDT_SPECMEM_MAX)
		return EERR("%u speculations of %u bytes per CPU (at most %u, "
			    "%u MiB in all)", p->nspec, specsize,
			    XDT_NSPEC_MAX, XDT_SPECMEM_MAX >> 20);
	/*
	 * Verify before allocating: the DIF, the clauses and the actions
	 * need only the blob, while the storage (scratch and clause-locals
	 * per CPU, the dynamic-variable pool, speculation buffers) is
	 * megabytes of zeroed memory.  A malformed program is refused
	 * before any of it exists -- on a KASAN kernel that was two thirds
	 * of the time the fuzzer spent on refused objects.
	 */
	ret = xdt_vars_check(p, st->blob + p->vars_off, req->err,
			     sizeof(req->err));
	if (!ret)
		ret = load_difos(st, req);
	if (!ret)
		ret = load_clauses(st, req);
	if (!ret && p->nspec)
		ret = xdt_spec_create(st, p->nspec, specsize);
	if (!ret)
		ret = xdt_vars_create(st, req->err, sizeof(req->err));
	return ret;
}
