// SPDX-License-Identifier: GPL-2.0
/*
 * D variables: the storage behind the variable ops of uapi/dif.h, scratch
 * space, memory stores and subroutines.  docs/variables.md is the user's
 * view (sizes, defaults, what happens when space runs out).
 *
 *   globals        one zeroed allocation per program, each variable
 *                  8-aligned at its offset
 *   this->         per CPU: one allocation per CPU, zeroed at the start of
 *                  a firing if the previous firing wrote it
 *   scratch        per CPU, bump-allocated by ALLOCS, reset every clause
 *   self->, a[k]   dynamic variables: fixed-size chunks in a pool bounded by
 *                  dynvarsize, found through two hash tables:
 *
 *     meta[nchunks]  next | var | keylen | thread | key bytes   (hash chains,
 *                                                                free lists)
 *     vals[nchunks]  value bytes only: what a by-reference load hands out
 *                    and what STB..STX/COPYS may write
 *
 *     thread table   bucket = hash(thread): all of a thread's variables in
 *                    one bucket, so its exit scans one chain
 *     array table    bucket = hash(var, key)
 *
 * Keeping the metadata apart from the values means no store a program can
 * make -- even through a stale pointer into a freed chunk -- can touch a
 * hash link: the worst it can do is change a value of its own program.
 *
 * Locking.  Each bucket has a one-word cmpxchg spin lock, inlined (no kernel
 * function fbt could probe is called with it held); the pool (free and
 * dirty lists) has another, always taken inside a bucket lock, never the
 * other way round.  A firing runs with IRQs off and the per-CPU busy guard
 * forbids nesting on one CPU, so a holder is never interrupted by a firing
 * that wants the same lock; the process-context users (cleaner, thread exit
 * hook) take the same guard.  Loads lock too: chains are short, and a
 * reader that never sees a half-linked chunk needs no memory-ordering
 * argument.
 *
 * Freeing.  A by-reference load hands out the address of a value, which the
 * clause may read after the lock is dropped; so a freed chunk goes to a
 * dirty list, and the cleaner (delayed work at cleanrate) moves it to the
 * free list only after synchronize_rcu() -- firings run with IRQs off, so a
 * grace period outlasts every firing that could hold such an address.  The
 * cost: a chunk freed and wanted again within one cleaner period is a drop
 * (counted apart, as DTrace's "dynamic variable drops with non-empty dirty
 * list").  The cleaner, and the thread-exit hook of "Threads", are the
 * kernel's half (vars_reclaim.c); this file is portable core.
 *
 * Threads.  The thread key is the task pointer.  A thread's variables are
 * reclaimed at sched_process_exit, which runs in the exiting thread itself
 * after PF_EXITING is set; a thread with PF_EXITING creates no new
 * variables, so none can outlive the cleanup and be found by a later task
 * that reuses the task_struct.
 */
#include "vars.h"

/*
 * A by-reference global or clause-local (a string, a struct) starts with a
 * word that says whether NULL was stored (1) -- as DTrace marks its static
 * by-reference variables -- so `s = strstr(a, b); s != NULL` holds what
 * was stored.  Dynamic variables need none: storing 0 (NULL) frees them.
 */
#define NULLMARK	8

#define VAR_MAXSIZE	(64u << 10)	/* one variable's value */
#define VAR_MAXSPACE	(4u << 20)	/* globals, and this-> per CPU */
#define DYN_DEFAULT	(1u << 20)	/* dynvarsize: DTrace's default */
#define DYN_MAX		(256u << 20)
#define SCRATCH_DEFAULT	(1u << 20)	/* DTrace's is what is left of a 4M buffer */
#define SCRATCH_MAX	(4u << 20)
#define CLEAN_DEFAULT	XDT_CLEAN_DEFAULT
#define CLEAN_MAX	10000

/* ---- the pool ---------------------------------------------------------------- */
/* A chunk, or 0 (counted as a drop) when the pool is empty. */
static u32 __xdt_probe dv_alloc(struct xdt_vars *v, struct xdt_vcpu *vc)
{
	u32 n;

	dv_lock(&v->poollock);
	n = v->freehead;
	if (n)
		v->freehead = dv_meta(v, n)->next;
	else {
		vc->dyndrops++;
		if (v->dirtyhead)
			vc->dyndrops_dirty++;
	}
	dv_unlock(&v->poollock);
	return n;
}

/* ---- setup ------------------------------------------------------------------ */
static bool var_dynamic(const struct xdt_var *x)
{
	return x->scope == XDT_VAR_THREAD || x->kind == XDT_VAR_ARRAY;
}

static int check_var(const struct xdt_var *x, u32 i, char *err, size_t errlen)
{
	const char *why = NULL;
	u32 k = 0;

	if (x->scope > XDT_VAR_LOCAL)
		why = "unknown scope";
	else if (x->kind > XDT_VAR_ARRAY)
		why = "unknown kind";
	else if (x->scope == XDT_VAR_LOCAL && x->kind == XDT_VAR_ARRAY)
		why = "clause-local associative array";
	else if (x->flags & ~(XDT_VF_BYREF | XDT_VF_STRING))
		why = "unknown flags";
	else if ((x->flags & XDT_VF_STRING) && !(x->flags & XDT_VF_BYREF))
		why = "string not held by reference";
	else if (!(x->flags & XDT_VF_BYREF) && x->size != 8)
		why = "integer not of 8 bytes";
	else if (x->size == 0 || x->size > VAR_MAXSIZE)
		why = "size out of range";
	else if (x->kind == XDT_VAR_ARRAY &&
		 (x->nkeys < 1 || x->nkeys > DIF_MAXTUPLE))
		why = "array of other than 1..8 keys";
	else if (x->kind == XDT_VAR_SCALAR && (x->nkeys || x->keykinds))
		why = "keys on a scalar";
	else if (x->kind == XDT_VAR_ARRAY &&
		 (x->keykinds & ~((1u << x->nkeys) - 1)))
		why = "key kinds beyond its keys";
	for (k = 0; !why && k < ARRAY_SIZE(x->keysize); k++) {
		if (!x->keysize[k])
			continue;
		if (k >= x->nkeys)
			why = "key size beyond its keys";
		else if (x->keykinds & (1u << k))
			why = "key both a string and sized";
		else if (x->keysize[k] > XDT_KEYMEM_MAX)
			why = "key size out of range (1 to 4096)";
	}
	if (!why)
		return 0;
	if (k && x->keysize[k - 1])	/* a key size's fault: which key */
		snprintf(err, errlen, "variable %u (%.32s): %s (keys %u/%#x, "
			 "key %u of %u bytes)", i, x->name, why, x->nkeys,
			 x->keykinds, k - 1, x->keysize[k - 1]);
	else
		snprintf(err, errlen, "variable %u (%.32s): %s (scope %u kind "
			 "%u flags %#x size %u keys %u/%#x)", i, x->name, why,
			 x->scope, x->kind, x->flags, x->size, x->nkeys,
			 x->keykinds);
	return -EINVAL;
}

/*
 * Key element @k's bytes in a key: an integer's 8, a string's strsize, a
 * by-value one's size, each rounded up to 8.  Eight of them fit
 * XDT_KEYBUF (check_var bounds each by XDT_KEYMEM_MAX, load.c strsize).
 */
static u32 key_slot(const struct xdt_var *x, u32 k, u32 strsize)
{
	if (x->keykinds & (1u << k))
		return ALIGN(strsize, 8);
	return x->keysize[k] ? ALIGN(x->keysize[k], 8) : 8;
}

void xdt_vars_free(struct xdt_vars *v)
{
	u32 cpu;

	if (!v)
		return;
	xdt_vars_stop(v);
	if (v->cpu) {
		for (cpu = 0; cpu < nr_cpu_ids; cpu++) {
			kvfree(v->cpu[cpu].locals);
			kvfree(v->cpu[cpu].scratch);
			kvfree(v->cpu[cpu].key);
			kvfree(v->cpu[cpu].bounce);
		}
	}
	kvfree(v->cpu);
	kvfree(v->off);
	kvfree(v->globals);
	kvfree(v->zero);
	kvfree(v->meta);
	kvfree(v->vals);
	kvfree(v->tbuckets);
	kvfree(v->abuckets);
	kfree(v);
}

static int alloc_pool(struct xdt_vars *v, u32 dynvarsize)
{
	u32 i;

	v->metastride = ALIGN(sizeof(struct dv_meta) + v->keymax, 8);
	v->valstride = ALIGN(v->valmax, 8);
	v->nchunks = dynvarsize / (v->metastride + v->valstride);
	v->nbuckets = roundup_pow_of_two(max(v->nchunks, 1u));
	v->tbuckets = kvcalloc(v->nbuckets, sizeof(*v->tbuckets), GFP_KERNEL);
	v->abuckets = kvcalloc(v->nbuckets, sizeof(*v->abuckets), GFP_KERNEL);
	v->meta = kvzalloc(max_t(size_t, v->nchunks * v->metastride, 1),
			   GFP_KERNEL);
	v->vals = kvzalloc(max_t(size_t, v->nchunks * v->valstride, 1),
			   GFP_KERNEL);
	if (!v->tbuckets || !v->abuckets || !v->meta || !v->vals)
		return -ENOMEM;
	for (i = 1; i <= v->nchunks; i++)
		dv_meta(v, i)->next = i < v->nchunks ? i + 1 : 0;
	v->freehead = v->nchunks ? 1 : 0;
	return 0;
}

/*
 * Check the program's variable table: every scope, kind, size and key
 * known.  First of all at enable, because the verifier trusts it
 * (xdt_dif_verify indexes by scope and kind).
 */
int xdt_vars_check(const struct xdt_prog *p, const struct xdt_var *tab,
		   char *err, size_t errlen)
{
	u32 dynvarsize = p->dynvarsize ? p->dynvarsize : DYN_DEFAULT;
	u32 scratch = p->scratchsize ? p->scratchsize : SCRATCH_DEFAULT;
	u32 rate = p->cleanrate ? p->cleanrate : CLEAN_DEFAULT;
	u32 i;
	int ret;

	if (dynvarsize > DYN_MAX || scratch > SCRATCH_MAX || rate > CLEAN_MAX) {
		snprintf(err, errlen, "dynvarsize %u (at most %u), scratchsize "
			 "%u (at most %u), cleanrate %u Hz (at most %u)",
			 dynvarsize, DYN_MAX, scratch, SCRATCH_MAX, rate,
			 CLEAN_MAX);
		return -EINVAL;
	}
	for (i = 0; i < p->nvars; i++) {
		ret = check_var(&tab[i], i, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/*
 * Make the variables' storage (the table is checked: xdt_vars_check).
 * Done at enable, so an enabling that cannot have its variables is
 * refused before anything runs, and nothing is allocated in probe context.
 */
int xdt_vars_create(struct xdt_state *st, char *err, size_t errlen)
{
	const struct xdt_prog *p = st->prog;
	const struct xdt_var *tab = st->blob + p->vars_off;
	u32 dynvarsize = p->dynvarsize ? p->dynvarsize : DYN_DEFAULT;
	u32 scratch = p->scratchsize ? p->scratchsize : SCRATCH_DEFAULT;
	u32 rate = p->cleanrate ? p->cleanrate : CLEAN_DEFAULT;
	struct xdt_vars *v;
	u64 gsize = 0, lsize = 0;
	u32 i, cpu;

	v = kzalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	st->vars = v;
	v->tab = tab;
	v->nvars = p->nvars;
	v->strsize = st->strsize;
	v->scratchsize = ALIGN(scratch, 8);
	v->bouncesize = 8;
	v->off = kvcalloc(max(p->nvars, 1u), sizeof(u32), GFP_KERNEL);
	if (!v->off)
		return -ENOMEM;
	for (i = 0; i < p->nvars; i++) {
		const struct xdt_var *x = &tab[i];
		u32 size = ALIGN(x->size, 8), k, keylen = 0;

		if (x->flags & XDT_VF_BYREF)
			v->bouncesize = max(v->bouncesize, size);
		if (var_dynamic(x)) {
			for (k = 0; k < x->nkeys; k++)
				keylen += key_slot(x, k, st->strsize);
			v->off[i] = keylen;
			v->keymax = max(v->keymax, keylen);
			v->valmax = max(v->valmax, size);
			if (x->scope == XDT_VAR_THREAD)
				v->has_thread = true;
		} else if (x->scope == XDT_VAR_GLOBAL) {
			v->off[i] = gsize;
			gsize += size + (x->flags & XDT_VF_BYREF ? NULLMARK : 0);
		} else {
			v->off[i] = lsize;
			lsize += size + (x->flags & XDT_VF_BYREF ? NULLMARK : 0);
		}
		if (gsize > VAR_MAXSPACE || lsize > VAR_MAXSPACE) {
			snprintf(err, errlen, "variables need more than %u "
				 "bytes of %s storage", VAR_MAXSPACE,
				 gsize > VAR_MAXSPACE ? "global" :
				 "clause-local");
			return -EINVAL;
		}
	}
	v->gsize = gsize;
	v->lsize = lsize;
	v->period = max(HZ / rate, 1u);
	/*
	 * kv*alloc, not vmalloc: most of these are a few bytes to a few
	 * pages, and each vmalloc area costs a page, guard pages, KASAN's
	 * shadow and a TLB flush on every CPU when freed (an enabling's
	 * dozen areas were most of its time on the debug kernels).  Large
	 * ones still come from vmalloc when contiguous pages are short.
	 */
	v->globals = kvzalloc(max(v->gsize, 8u), GFP_KERNEL);
	v->zero = kvzalloc(v->bouncesize, GFP_KERNEL);
	v->cpu = kvcalloc(nr_cpu_ids, sizeof(*v->cpu), GFP_KERNEL);
	if (!v->globals || !v->zero || !v->cpu)
		return -ENOMEM;
	st->vcpu = v->cpu;
	for_each_possible_cpu(cpu) {
		struct xdt_vcpu *vc = &v->cpu[cpu];

		vc->locals = kvzalloc(max(v->lsize, 8u), GFP_KERNEL);
		vc->scratch = kvzalloc(v->scratchsize + 8, GFP_KERNEL);
		vc->key = kvmalloc(max(v->keymax, 8u), GFP_KERNEL);
		vc->bounce = kvmalloc(v->bouncesize, GFP_KERNEL);
		vc->rand = get_random_u64() | 1;
		if (!vc->locals || !vc->scratch || !vc->key || !vc->bounce)
			return -ENOMEM;
	}
	if (v->valmax)
		return alloc_pool(v, dynvarsize);
	return 0;
}

void xdt_vars_status(struct xdt_vars *v, struct xdt_status *s)
{
	u32 cpu;

	if (!v || !v->cpu)
		return;
	for_each_possible_cpu(cpu) {
		s->dyndrops += v->cpu[cpu].dyndrops;
		s->dyndrops_dirty += v->cpu[cpu].dyndrops_dirty;
	}
}

/* ---- probe context ------------------------------------------------------------ */
/*
 * Start of a firing whose previous one on this CPU wrote this-> values
 * (the firing path checks locals_dirty itself: nothing to do is the common
 * case, and costs no call).
 */
void __xdt_probe xdt_vars_clear(struct xdt_vars *v, struct xdt_vcpu *vc)
{
	memset(vc->locals, 0, v->lsize);
	vc->strtok = 0;
	vc->locals_dirty = 0;
}

/*
 * The value a by-reference store copies, into this CPU's bounce buffer
 * (before any lock is taken, and so a fault half-way stores nothing).
 */
static int __xdt_probe fetch_byref(struct xdt_mstate *m,
				   const struct xdt_var *x, u64 src, u32 pc)
{
	char *dst = m->vc->bounce;
	int f;

	if (x->flags & XDT_VF_STRING) {
		long n = xdt_readstr(m, dst, src, x->size);

		if (n < 0) {
			f = (int)-n;
			goto bad;
		}
		memset(dst + n, 0, x->size - n);
		return 0;
	}
	f = xdt_read(m, dst, src, x->size);
	if (!f)
		return 0;
bad:
	xdt_dif_fault(m, f, src, pc);
	return -EFAULT;
}

/* An array's key, from the whole tuple stack (which it consumes). */
static int __xdt_probe build_key(struct xdt_mstate *m, struct xdt_tuple *t,
				 const struct xdt_var *x, u32 pc)
{
	char *key = m->vc->key;
	u32 i, n = t->n, off = 0;
	long len;

	t->n = 0;
	if (n != x->nkeys) {
		xdt_dif_fault(m, XDT_FAULT_ILLOP, n, pc);
		return -EINVAL;
	}
	for (i = 0; i < n; i++) {
		bool str = x->keykinds & (1u << i);
		u32 size = x->keysize[i];
		int f;

		if (str != !!t->e[i].str || !!size != !!t->e[i].ref) {
			xdt_dif_fault(m, XDT_FAULT_ILLOP, i, pc);
			return -EINVAL;
		}
		if (size) {
			/* by value: the bytes, zero-padded (as the key compares) */
			memset(key + off + size, 0, ALIGN(size, 8) - size);
			f = xdt_read(m, key + off, t->e[i].v, size);
			if (f) {
				xdt_dif_fault(m, f, t->e[i].v, pc);
				return -EFAULT;
			}
			off += ALIGN(size, 8);
			continue;
		}
		if (!str) {
			memcpy(key + off, &t->e[i].v, 8);
			off += 8;
			continue;
		}
		memset(key + off, 0, ALIGN(m->strsize, 8));
		len = xdt_readstr(m, key + off, t->e[i].v, m->strsize);
		if (len < 0) {
			xdt_dif_fault(m, (int)-len, t->e[i].v, pc);
			return -EFAULT;
		}
		off += ALIGN(m->strsize, 8);
	}
	return 0;
}

/* Where a dynamic variable's chain lives, and its identity. */
struct dv_ref {
	struct dv_bucket *b;
	unsigned long thread;
	u32 keylen;
};

static void __xdt_probe dv_ref(struct xdt_mstate *m, u32 id, struct dv_ref *r)
{
	struct xdt_vars *v = m->vars;
	const struct xdt_var *x = &v->tab[id];

	r->keylen = x->kind == XDT_VAR_ARRAY ? v->off[id] : 0;
	if (x->scope == XDT_VAR_THREAD) {
		r->thread = (unsigned long)current;
		r->b = dv_tbucket(v, r->thread);
	} else {
		r->thread = 0;
		r->b = &v->abuckets[jhash(m->vc->key, r->keylen, id) &
				    (v->nbuckets - 1)];
	}
}

/* Find in @r's chain, bucket locked; *@linkp: the link that points to it. */
static u32 __xdt_probe dv_find(struct xdt_vars *v, struct dv_ref *r, u32 id,
			       const char *key, u32 **linkp)
{
	u32 *link, n;

	for (link = &r->b->head; (n = *link); link = &dv_meta(v, n)->next) {
		struct dv_meta *e = dv_meta(v, n);

		if (e->var == id && e->thread == r->thread &&
		    e->keylen == r->keylen && !memcmp(e->key, key, r->keylen)) {
			if (linkp)
				*linkp = link;
			return n;
		}
	}
	return 0;
}

static bool __xdt_probe op_is_array(u32 op)
{
	return op == DIF_OP_LDGAA || op == DIF_OP_STGAA ||
	       op == DIF_OP_LDTAA || op == DIF_OP_STTAA;
}

int __xdt_probe xdt_var_load(struct xdt_mstate *m, struct xdt_tuple *t,
			     u32 op, u32 id, u64 *val, bool alloc, u32 pc)
{
	struct xdt_vars *v = m->vars;
	const struct xdt_var *x = &v->tab[id];
	bool byref = x->flags & XDT_VF_BYREF;
	struct dv_ref r;
	char *p;
	u32 n;

	if (op == DIF_OP_LDGS || op == DIF_OP_LDLS) {
		p = (op == DIF_OP_LDGS ? v->globals : m->vc->locals) +
		    v->off[id];
		if (!byref)
			*val = *(u64 *)p;
		else
			*val = *(u64 *)p ? 0 : (unsigned long)p + NULLMARK;
		return 0;
	}
	if (op_is_array(op) && build_key(m, t, x, pc))
		return -EFAULT;
	dv_ref(m, id, &r);
	dv_lock(&r.b->lock);
	n = dv_find(v, &r, id, m->vc->key, NULL);
	if (!n && alloc && byref &&
	    !(r.thread && (current->flags & PF_EXITING)) &&
	    (n = dv_alloc(v, m->vc))) {
		struct dv_meta *e = dv_meta(v, n);

		e->var = id;
		e->thread = r.thread;
		e->keylen = r.keylen;
		memcpy(e->key, m->vc->key, r.keylen);
		memset(dv_val(v, n), 0, v->valstride);
		e->next = r.b->head;
		r.b->head = n;
	}
	if (!n)
		*val = byref ? (unsigned long)v->zero : 0;
	else if (byref)
		*val = (unsigned long)dv_val(v, n);
	else
		*val = *(u64 *)dv_val(v, n);
	dv_unlock(&r.b->lock);
	return 0;
}

int __xdt_probe xdt_var_store(struct xdt_mstate *m, struct xdt_tuple *t,
			      u32 op, u32 id, u64 val, u32 pc)
{
	struct xdt_vars *v = m->vars;
	struct xdt_vcpu *vc = m->vc;
	const struct xdt_var *x = &v->tab[id];
	bool byref = x->flags & XDT_VF_BYREF;
	const void *src = byref ? (const void *)vc->bounce : &val;
	u32 size = byref ? x->size : 8, n, *link;
	struct dv_ref r;
	char *p;

	if (byref && val && fetch_byref(m, x, val, pc))
		return -EFAULT;
	if (op == DIF_OP_STGS || op == DIF_OP_STLS) {
		if (op == DIF_OP_STLS)
			vc->locals_dirty = 1;
		p = (op == DIF_OP_STGS ? v->globals : vc->locals) + v->off[id];
		if (byref) {
			/* NULL is a value of its own (json()'s "not found") */
			*(u64 *)p = !val;
			if (!val)
				return 0;
			p += NULLMARK;
		}
		memcpy(p, src, size);
		return 0;
	}
	if (op_is_array(op) && build_key(m, t, x, pc))
		return -EFAULT;
	dv_ref(m, id, &r);
	dv_lock(&r.b->lock);
	n = dv_find(v, &r, id, vc->key, &link);
	if (!val) {
		/* Storing 0 frees the variable. */
		if (n) {
			*link = dv_meta(v, n)->next;
			dv_dirty(v, n);
		}
	} else if (n) {
		memcpy(dv_val(v, n), src, size);
	} else if (!(r.thread && (current->flags & PF_EXITING)) &&
		   (n = dv_alloc(v, vc))) {
		struct dv_meta *e = dv_meta(v, n);

		e->var = id;
		e->thread = r.thread;
		e->keylen = r.keylen;
		memcpy(e->key, vc->key, r.keylen);
		p = dv_val(v, n);
		memcpy(p, src, size);
		memset(p + size, 0, v->valstride - size);
		e->next = r.b->head;
		r.b->head = n;
	}
	dv_unlock(&r.b->lock);
	return 0;
}

/*
 * Memory a program may write: its globals, this CPU's clause-locals and
 * scratch, and value areas of the dynamic variable pool (one at a time).
 * Nothing else -- not even the zero area a missing variable's load hands
 * out -- so a store can never reach kernel data or xdt's metadata.
 */
static bool __xdt_probe in_area(u64 a, u64 n, const char *base, u64 size)
{
	u64 b = (unsigned long)base;

	return a >= b && a - b <= size && n <= size - (a - b);
}

static bool __xdt_probe writable(struct xdt_mstate *m, u64 a, u64 n)
{
	struct xdt_vars *v = m->vars;
	struct xdt_vcpu *vc = m->vc;

	if (in_area(a, n, v->globals, v->gsize) ||
	    in_area(a, n, vc->scratch, v->scratchsize))
		return true;
	if (in_area(a, n, vc->locals, v->lsize)) {
		vc->locals_dirty = 1;
		return true;
	}
	if (v->nchunks &&
	    in_area(a, n, v->vals, (u64)v->nchunks * v->valstride)) {
		u64 off = (a - (unsigned long)v->vals) % v->valstride;

		return n <= v->valstride - off;
	}
	return false;
}

/*
 * Reads.  Every read of memory a D program names -- a load (LDSB..LDX, a
 * string compare), a by-reference value stored, a string key, a string or
 * memory subroutine's source, a string or memory an action records --
 * goes through xdt_read() or xdt_readstr(): the one place a consumer
 * without the privilege to read kernel memory (it opened /dev/xdt with
 * CAP_PERFMON, not CAP_SYS_ADMIN: docs/privileges.md) is held to memory
 * of its own, as DTrace's dtrace_canload() holds one without dtrace_kernel.
 * Such a consumer may read what D cannot work without and what tells it
 * nothing about the kernel:
 *   - what it may write (above): globals, this CPU's clause-locals and
 *     scratch, dynamic variable values; and the zero area a missing
 *     variable's load hands out;
 *   - its string table (literals: SETS points there);
 *   - the strings built-in variables hand out: execname (the current
 *     task's comm: perf's samples carry it too) and probeprov, probemod,
 *     probefunc, probename (what the probe listing shows anyway).
 * Any other address is DTrace's DTRACEFLT_KPRIV, "invalid kernel access",
 * raised before a byte is read -- whether or not the address is mapped,
 * so the fault kind tells nothing about the kernel's layout either.
 * Integer built-ins and arguments are values, not reads, and stack() is
 * recorded by the core: neither passes here.  A privileged consumer pays
 * one predicted branch; the checks are lock-free range compares.
 */
static u64 __xdt_probe area_left(u64 a, const void *base, u64 size)
{
	u64 b = (unsigned long)base;

	return a >= b && a - b < size ? size - (a - b) : 0;
}

/* Probe and function names are at most KSYM_NAME_LEN; comm is 16. */
#define BSTR_MAX	512

/* Bytes from @a to the NUL of the built-in string @s, when @a is in it. */
static u64 __xdt_probe bstr_left(u64 a, u64 s)
{
	const char *p = (const char *)(unsigned long)s;
	u64 n = 0;

	if (!s || a < s || a - s >= BSTR_MAX)
		return 0;
	while (n < BSTR_MAX - 1 && p[n])
		n++;
	return area_left(a, p, n + 1);
}

/* Bytes at @a that are @m's consumer's own to read, 0 if none. */
static u64 __xdt_probe own_left(struct xdt_mstate *m, u64 a)
{
	static const u8 bstr[] = { DIF_VAR_EXECNAME, DIF_VAR_PROBEPROV,
				   DIF_VAR_PROBEMOD, DIF_VAR_PROBEFUNC,
				   DIF_VAR_PROBENAME };
	struct xdt_vars *v = m->vars;
	struct xdt_vcpu *vc = m->vc;
	const struct xdt_state *st = m->ecb->st;
	u64 n;
	u32 i;

	if ((n = area_left(a, v->globals, v->gsize)) ||
	    (n = area_left(a, vc->locals, v->lsize)) ||
	    (n = area_left(a, vc->scratch, v->scratchsize)) ||
	    (n = area_left(a, v->vals, (u64)v->nchunks * v->valstride)) ||
	    (n = area_left(a, v->zero, v->bouncesize)) ||
	    (n = area_left(a, (const char *)st->blob + st->prog->strtab_off,
			   st->prog->strtab_len)))
		return n;
	for (i = 0; i < ARRAY_SIZE(bstr); i++)
		if ((n = bstr_left(a, xdt_dif_var(bstr[i], m))))
			return n;
	return 0;
}

int __xdt_probe xdt_read(struct xdt_mstate *m, void *dst, u64 src, size_t n)
{
	if (unlikely(m->nokread) && n && own_left(m, src) < n)
		return XDT_FAULT_KPRIV;
	return xdt_copy_nofault(dst, src, n) ? XDT_FAULT_BADADDR : 0;
}

/*
 * DTrace's copies are memmove()s (dtrace_bcopy copies backwards when the
 * destination is above the source), and a D program may copy between
 * overlapping ranges of its own storage (a struct assigned over itself
 * shifted, bcopy() within scratch).  A plain copy would smear the bytes in
 * the kernel and is undefined in C (the sanitized host VM's fuzzing found
 * it).  The source may still fault, so it is read through xdt_read() in
 * pieces no longer than the distance between the ranges, in the direction
 * that reads each byte before it is overwritten.  @dst is writable storage
 * (the callers checked); 0 or the fault kind.
 */
int __xdt_probe xdt_move(struct xdt_mstate *m, u64 dst, u64 src, u64 n)
{
	u64 gap = dst > src ? dst - src : src - dst, k, c;
	int f;

	if (dst == src)		/* writable storage: readable too */
		return 0;
	if (gap >= n)
		return xdt_read(m, (void *)(unsigned long)dst, src, n);
	if (dst > src) {
		for (k = n; k; k -= c) {
			c = min(k, gap);
			f = xdt_read(m, (void *)(unsigned long)(dst + k - c),
				     src + k - c, c);
			if (f)
				return f;
		}
	} else {
		for (k = 0; k < n; k += c) {
			c = min(n - k, gap);
			f = xdt_read(m, (void *)(unsigned long)(dst + k),
				     src + k, c);
			if (f)
				return f;
		}
	}
	return 0;
}

/*
 * As xdt_strcpy_nofault: the length, or @max for a string of @max bytes
 * or more (unterminated); or minus the fault kind.  A string of its own
 * that runs to the end of its area without a NUL would go on into memory
 * that is not: KPRIV there.
 */
long __xdt_probe xdt_readstr(struct xdt_mstate *m, char *dst, u64 src,
			     u32 max)
{
	long n;

	if (unlikely(m->nokread) && max) {
		u64 left = own_left(m, src);

		if (!left)
			return -XDT_FAULT_KPRIV;
		if (left < max) {
			n = xdt_strcpy_nofault(dst, src, (u32)left);
			if (n < 0)
				return -XDT_FAULT_BADADDR;
			return (u64)n == left ? -XDT_FAULT_KPRIV : n;
		}
	}
	n = xdt_strcpy_nofault(dst, src, max);
	return n < 0 ? -XDT_FAULT_BADADDR : n;
}

int __xdt_probe xdt_mem_store(struct xdt_mstate *m, u64 addr, u64 val, u32 n,
			      u32 pc)
{
	if (addr & (n - 1)) {
		xdt_dif_fault(m, XDT_FAULT_BADALIGN, addr, pc);
		return -EINVAL;
	}
	if (!writable(m, addr, n)) {
		xdt_dif_fault(m, XDT_FAULT_BADADDR, addr, pc);
		return -EFAULT;
	}
	switch (n) {
	case 1: *(u8 *)(unsigned long)addr = val; break;
	case 2: *(u16 *)(unsigned long)addr = val; break;
	case 4: *(u32 *)(unsigned long)addr = val; break;
	default: *(u64 *)(unsigned long)addr = val; break;
	}
	return 0;
}

/*
 * A string into a string member (s.name = "x"): what the source holds up
 * to its NUL, at most @n bytes (a string of @n bytes keeps no NUL, as
 * DTrace's strings of strsize), the rest of the member zeroed; the source
 * is read no further than its end.
 */
int __xdt_probe xdt_mem_copystr(struct xdt_mstate *m, u64 dst, u64 src, u64 n,
				u32 pc)
{
	long len;

	if (!writable(m, dst, n)) {
		xdt_dif_fault(m, XDT_FAULT_BADADDR, dst, pc);
		return -EFAULT;
	}
	len = n > U32_MAX ? -XDT_FAULT_BADADDR :
	      xdt_readstr(m, (char *)(unsigned long)dst, src, (u32)n);
	if (len < 0) {
		xdt_dif_fault(m, (int)-len, src, pc);
		return -EFAULT;
	}
	if ((u64)len < n)
		memset((char *)(unsigned long)dst + len, 0, n - len);
	return 0;
}

int __xdt_probe xdt_mem_copy(struct xdt_mstate *m, u64 dst, u64 src, u64 n,
			     u32 pc)
{
	int f;

	if (!writable(m, dst, n)) {
		xdt_dif_fault(m, XDT_FAULT_BADADDR, dst, pc);
		return -EFAULT;
	}
	f = xdt_move(m, dst, src, n);
	if (f) {
		xdt_dif_fault(m, f, src, pc);
		return -EFAULT;
	}
	return 0;
}

int __xdt_probe xdt_scratch_alloc(struct xdt_mstate *m, u64 n, u64 *addr,
				  u32 pc)
{
	u32 avail = m->vars->scratchsize - m->scratch_used;
	char *p;

	if (n > avail || ALIGN(n, 8) > avail) {
		xdt_dif_fault(m, XDT_FAULT_NOSCRATCH, n, pc);
		return -ENOSPC;
	}
	p = m->vc->scratch + m->scratch_used;
	memset(p, 0, ALIGN(n, 8));
	m->scratch_used += ALIGN(n, 8);
	*addr = (unsigned long)p;
	return 0;
}

bool __xdt_probe xdt_in_scratch(struct xdt_mstate *m, u64 a, u64 n)
{
	return in_area(a, n, m->vc->scratch, m->scratch_used);
}

char *__xdt_probe xdt_mem_dest(struct xdt_mstate *m, u64 a, u64 n, u32 pc)
{
	if (!writable(m, a, n)) {
		xdt_dif_fault(m, XDT_FAULT_BADADDR, a, pc);
		return NULL;
	}
	return (char *)(unsigned long)a;
}
