/*
 * The consumer's aggregation totals, DTrace's model: each kernel snapshot
 * (XDT_IOC_AGGSNAP) hands over what every CPU aggregated since the last
 * one, summed over CPUs, and empties the kernel's arenas; the consumer
 * folds it in here.  So the kernel's space is recycled every snapshot (an
 * aggregation drops only when one interval outgrows aggsize), and clear(),
 * trunc() and normalize() act here, on the totals printa() and the end
 * print, as DTrace's libdtrace does.
 *
 * And the one walk over them every output takes (DTrace's
 * dtrace_aggregate_walk_sorted and _joined): entries in DTrace's order,
 * as the aggsort* options say, handed to a sink (struct dt_aggsink) --
 * the text printers (print.c), -x oformat=json (json.c) and the
 * structured API (consumer.c) -- which never decode the layout or sort
 * themselves.
 */
#define _POSIX_C_SOURCE 200809L	/* strnlen */
#include <stdlib.h>
#include <string.h>
#include "dt_print.h"
#include "dt_consumer.h"
#include "libxdt.h"

struct tent {
	__u32 aggid, keylen, nvals, hash;
	char *key;
	__s64 *vals;
};

struct dt_aggtab {
	struct tent *e;
	size_t n, cap;
	size_t *slot;		/* open addressing: index + 1, 0 = empty */
	size_t nslots;		/* a power of two, at least twice n */
};

static __u32 khash(__u32 aggid, const char *key, __u32 keylen)
{
	__u32 h = 2166136261u ^ aggid;	/* FNV-1a */

	for (__u32 i = 0; i < keylen; i++)
		h = (h ^ (unsigned char)key[i]) * 16777619u;
	return h;
}

static void rehash(struct dt_aggtab *t)
{
	size_t want = 64;

	while (want < 2 * t->n + 2)
		want *= 2;
	free(t->slot);
	t->nslots = want;
	t->slot = xzalloc(want * sizeof(*t->slot));
	for (size_t i = 0; i < t->n; i++) {
		size_t s = t->e[i].hash & (want - 1);

		while (t->slot[s])
			s = (s + 1) & (want - 1);
		t->slot[s] = i + 1;
	}
}

struct dt_aggtab *aggtab_new(void)
{
	struct dt_aggtab *t = xzalloc(sizeof(*t));

	rehash(t);
	return t;
}

void aggtab_free(struct dt_aggtab *t)
{
	if (!t)
		return;
	for (size_t i = 0; i < t->n; i++) {
		free(t->e[i].key);
		free(t->e[i].vals);
	}
	free(t->e);
	free(t->slot);
	free(t);
}

static struct tent *find(struct dt_aggtab *t, __u32 aggid, const char *key,
			 __u32 keylen, __u32 h)
{
	size_t s = h & (t->nslots - 1);

	for (; t->slot[s]; s = (s + 1) & (t->nslots - 1)) {
		struct tent *e = &t->e[t->slot[s] - 1];

		if (e->hash == h && e->aggid == aggid && e->keylen == keylen &&
		    !memcmp(e->key, key, keylen))
			return e;
	}
	return NULL;
}

/*
 * ufunc(), usym() and umod() keys, and the kernel's sym(), func() and
 * mod(), name a function or an object: the address in them is made the
 * function's (the object's) own, so every address in one aggregates
 * together, as DTrace's consumer does.  Returns
 * @key, or a normalised copy (malloc'd at *@tmp).
 */
static const char *usym_keys(const struct prog *p, unsigned aggid,
			     const char *key, unsigned keylen, char **tmp)
{
	const struct agg *ag = &p->aggs[aggid];
	unsigned off = 0;
	int i;

	for (i = 0; i < ag->nkeys && !DT_IS_SYM(ag->keytype[i]); i++)
		;
	if (i == ag->nkeys)
		return key;
	*tmp = xzalloc(keylen + 8);
	memcpy(*tmp, key, keylen);
	for (i = 0; i < ag->nkeys; i++) {
		if (ag->keytype[i] == XDT_TYPE_STRING) {
			off += (p->strsize + 7) & ~7u;
		} else if (DT_IS_SYM(ag->keytype[i])) {
			__u64 w0, pc;

			if (off + 16 > keylen)
				break;
			memcpy(&w0, *tmp + off, 8);
			memcpy(&pc, *tmp + off + 8, 8);
			if (XDT_IS_USYM(w0) && XDT_USYM_KERNEL(XDT_USYM_FORM(w0))) {
				/* DTrace's dt_aggregate_symaddr()/_modaddr() */
				pc = ksyms_base(pc, XDT_USYM_FORM(w0) == XDT_KSYM_MOD);
				memcpy(*tmp + off + 8, &pc, 8);
			} else if (XDT_IS_USYM(w0) &&
				   XDT_USYM_FORM(w0) != XDT_USYM_ADDR) {
				pc = dt_usym_base((pid_t)(__u32)w0, pc,
						  (int)XDT_USYM_FORM(w0));
				memcpy(*tmp + off + 8, &pc, 8);
			}
			off += 16;
		} else {
			off += agg_keyslot(ag, i, p->strsize);
		}
	}
	return *tmp;
}

/* Fold a kernel snapshot (xdt_aggent entries, @count of them) in. */
void aggtab_fold(struct dt_aggtab *t, const struct prog *p, const char *buf,
		 size_t size, unsigned count)
{
	size_t off = 0;
	char *normkey = NULL;

	for (unsigned i = 0; i < count && off + sizeof(struct xdt_aggent) <= size; i++) {
		const struct xdt_aggent *k = (const void *)(buf + off);
		const char *key = (const char *)(k + 1);
		const __s64 *vals;
		struct tent *e;
		__u32 h;

		if (k->size < sizeof(*k) || off + k->size > size)
			break;
		off += k->size;
		if (k->aggid >= (unsigned)p->naggs || !k->nvals)
			continue;
		vals = (const void *)(key + ((k->keylen + 7) & ~7u));
		free(normkey);
		normkey = NULL;
		key = usym_keys(p, k->aggid, key, k->keylen, &normkey);
		h = khash(k->aggid, key, k->keylen);
		e = find(t, k->aggid, key, k->keylen, h);
		if (e && e->nvals == k->nvals) {
			xdt_agg_merge((__u32)p->aggs[k->aggid].func, e->vals, vals,
				      k->nvals);
			continue;
		}
		/*
		 * Allocate first, then count the entry in: the allocators may
		 * unwind (out of memory, dt_consumer.h), and a table must never
		 * hold a half-made entry for the next walk to read.
		 */
		char *kcopy = xzalloc(k->keylen + 8);
		__s64 *vcopy = xzalloc(k->nvals * sizeof(__s64));

		if (t->n == t->cap) {
			size_t cap = t->cap ? 2 * t->cap : 64;

			t->e = xrealloc(t->e, cap * sizeof(*t->e));
			t->cap = cap;
		}
		e = &t->e[t->n];
		e->aggid = k->aggid;
		e->keylen = k->keylen;
		e->nvals = k->nvals;
		e->hash = h;
		e->key = kcopy;
		memcpy(e->key, key, k->keylen);
		e->vals = vcopy;
		memcpy(e->vals, vals, k->nvals * sizeof(__s64));
		t->n++;
		if (2 * t->n + 2 > t->nslots)
			rehash(t);
		else {
			size_t s = h & (t->nslots - 1);

			while (t->slot[s])
				s = (s + 1) & (t->nslots - 1);
			t->slot[s] = t->n;
		}
	}
	free(normkey);
}

/*
 * The totals of the aggregations @want[aggid] says (NULL: all) in the
 * kernel's snapshot layout, for the printers; @pos[k] (if not NULL) gets
 * the table index of the k-th entry.
 */
char *aggtab_layout(const struct dt_aggtab *t, const char *want, size_t *size,
		    unsigned *count, size_t **pos)
{
	size_t need = 0, off = 0;
	unsigned n = 0;
	char *buf;

	for (size_t i = 0; i < t->n; i++)
		if (!want || want[t->e[i].aggid])
			need += sizeof(struct xdt_aggent) +
				((t->e[i].keylen + 7) & ~7u) + 8 * t->e[i].nvals;
	buf = xzalloc(need + 8);
	if (pos)
		*pos = xzalloc((t->n + 1) * sizeof(**pos));
	for (size_t i = 0; i < t->n; i++) {
		const struct tent *e = &t->e[i];
		struct xdt_aggent k;

		if (want && !want[e->aggid])
			continue;
		k.aggid = e->aggid;
		k.keylen = e->keylen;
		k.nvals = e->nvals;
		k.size = (__u32)(sizeof(k) + ((e->keylen + 7) & ~7u) + 8 * e->nvals);
		memcpy(buf + off, &k, sizeof(k));
		memcpy(buf + off + sizeof(k), e->key, e->keylen);
		memcpy(buf + off + sizeof(k) + ((e->keylen + 7) & ~7u), e->vals,
		       8 * e->nvals);
		off += k.size;
		if (pos)
			(*pos)[n] = i;
		n++;
	}
	*size = off;
	*count = n;
	return buf;
}

static void agg_order(const struct prog *p, const char *buf, size_t size,
		      unsigned count, unsigned *out);

/* clear(@a): every value of @a's entries to zero (the keys stay). */
void aggtab_clear(struct dt_aggtab *t, int aggid)
{
	for (size_t i = 0; i < t->n; i++)
		if ((int)t->e[i].aggid == aggid)
			memset(t->e[i].vals, 0, t->e[i].nvals * sizeof(__s64));
}

/*
 * trunc(@a, n): keep the n entries with the largest values (n < 0: the -n
 * smallest), in DTrace's value order; trunc(@a) keeps none.
 */
void aggtab_trunc(struct dt_aggtab *t, const struct prog *p, int aggid,
		  long long keep)
{
	char *want = xzalloc((size_t)p->naggs + 1), *drop;
	size_t size, *pos, j;
	unsigned count, *order;
	char *buf;

	want[aggid] = 1;
	buf = aggtab_layout(t, want, &size, &count, &pos);
	order = xzalloc((count + 1) * sizeof(*order));
	agg_order(p, buf, size, count, order);
	drop = xzalloc(t->n + 1);
	for (unsigned k = 0; k < count; k++) {
		/* order[] ascends by value: the kept ones are at one end */
		int kept = keep >= 0 ? (long long)k >= (long long)count - keep :
			   (long long)k < -keep;

		if (!kept)
			drop[pos[order[k]]] = 1;
	}
	for (size_t i = j = 0; i < t->n; i++) {
		if (drop[i]) {
			free(t->e[i].key);
			free(t->e[i].vals);
		} else {
			t->e[j++] = t->e[i];
		}
	}
	t->n = j;
	rehash(t);
	free(drop);
	free(order);
	free(pos);
	free(buf);
	free(want);
}

/* ---- values as DTrace computes them ------------------------------------- */
/*
 * stddev(): DTrace's integer approximation (dt_stddev), sqrt(avg(x^2) -
 * avg(x)^2) with the average of the squares in 128 bits, avg(x) truncated
 * toward zero, and the square root rounded down.
 */
unsigned long long agg_stddev(const __s64 *v, long long normal)
{
	unsigned __int128 sumsq, avgsq, sqavg, diff, lo, hi;
	long long avg;
	__u64 mag;

	if (v[0] <= 0 || normal <= 0)
		return 0;
	/* normalized: the sum of squares by normal^2, the sum by normal */
	sumsq = (unsigned __int128)(__u64)v[3] << 64 | (__u64)v[2];
	avgsq = sumsq / (__u64)normal / (__u64)normal / (__u64)v[0];
	avg = v[1] / normal / v[0];
	/* |avg| in unsigned: an average of INT64_MIN has no long long negation */
	mag = avg < 0 ? 0 - (__u64)avg : (__u64)avg;
	sqavg = (unsigned __int128)mag * mag;
	diff = avgsq > sqavg ? avgsq - sqavg : 0;
	/* the largest r with r * r <= diff */
	for (lo = 0, hi = (unsigned __int128)1 << 64; hi - lo > 1; ) {
		unsigned __int128 mid = lo + (hi - lo) / 2;

		if (mid * mid <= diff)
			lo = mid;
		else
			hi = mid;
	}
	return (unsigned long long)lo;
}

long long agg_normal(const struct agg *ag)
{
	return ag->normal > 0 ? ag->normal : 1;
}

/* quantize() bucket @b's lower bound */
long long agg_bucket_value(int b)
{
	int k = b - XDT_QUANTIZE_ZERO;

	if (k == 0)
		return 0;
	return k > 0 ? 1LL << (k - 1) : -(1LL << (-k - 1));
}

/* llquantize bucket @i's lower bound (bucket 0: factor^low), by the walk */
__u64 agg_llq_value(__u64 arg, int i)
{
	__u64 f = XDT_LLQ_FACTOR(arg), n = XDT_LLQ_STEPS(arg);
	__u64 v = xdt_llq_pow(f, XDT_LLQ_LOW(arg));
	unsigned o = XDT_LLQ_LOW(arg);
	int bin = 1;

	if (i == 0)
		return v;
	while (o <= XDT_LLQ_HIGH(arg) && bin < i) {
		__u64 next = xdt_llq_pow(f, o + 1);

		v += next > n ? next / n : 1;
		bin++;
		if (v == next)
			o++;
	}
	return v;
}

/* The bytes of the first use's keys (struct agg's sized keys comment) */
static unsigned agg_keylen(const struct agg *ag, unsigned strsize)
{
	unsigned o = 0;

	for (int i = 0; i < ag->nkeys; i++)
		o += agg_keyslot(ag, i, strsize);
	return o;
}

unsigned agg_keyslot(const struct agg *ag, int i, unsigned strsize)
{
	if (ag->keytype[i] == XDT_TYPE_STRING)
		return (strsize + 7) & ~7u;
	if (DT_IS_STACK(ag->keytype[i]))
		return 8 * ag->keyframes[i];
	if (ag->keytype[i] == DT_TYPE_MEM)	/* a struct's bytes */
		return (ag->keyframes[i] + 7) & ~7u;
	return 8;
}

/*
 * @ag as entry @e's keys are laid out: with sized keys, a copy in @tmp
 * whose integer keys have the sizes and types of the use that made @e.
 */
const struct agg *agg_laid(const struct agg *ag, const struct xdt_aggent *e,
			   const char *key, unsigned strsize, struct agg *tmp)
{
	unsigned base;
	__u64 l;

	if (!ag->nlayouts)
		return ag;
	base = agg_keylen(ag, strsize);
	if (e->keylen < base + 8)
		return ag;
	memcpy(&l, key + base, 8);
	if (l < 1 || l > (__u64)ag->nlayouts)
		return ag;
	*tmp = *ag;
	for (int i = 0; i < ag->nkeys; i++)
		if (ag->keytype[i] == XDT_TYPE_INT) {
			tmp->keyframes[i] = ag->layouts[l - 1].size[i];
			tmp->keyt[i] = ag->layouts[l - 1].keyt[i];
		}
	return tmp;
}

/* An integer key as its type's size has it (keys travel as 8 bytes) */
unsigned long long agg_key_uint(const struct agg *ag, int i, const char *p)
{
	__u64 v;
	unsigned sz = ag->keyframes[i];

	memcpy(&v, p, 8);
	return sz == 1 ? (__u8)v : sz == 2 ? (__u16)v : sz == 4 ? (__u32)v : v;
}

/* ---- DTrace's order ----------------------------------------------------- */
/*
 * The sort options in force while a walk sorts (qsort() has no context);
 * trunc() sorts without them, as DTrace's does (an explicit comparator
 * ignores them).
 */
static const struct prog *sort_prog;
static const struct dt_aggsort nosort;
static const struct dt_aggsort *sort_now = &nosort;
static int sort_nids;

static int key1cmp(const struct agg *ag, const struct agg *bg, int i,
		   const char *x, const char *y)
{
	if (ag->keytype[i] == XDT_TYPE_STRING)
		return strncmp(x, y, sort_prog->strsize);
	if (DT_IS_STACK(ag->keytype[i])) {
		for (unsigned f = 0; f < ag->keyframes[i]; f++) {
			__u64 p, q;

			memcpy(&p, x + 8 * f, 8);
			memcpy(&q, y + 8 * f, 8);
			if (p != q)
				return p < q ? -1 : 1;
		}
		return 0;
	} else if (ag->keytype[i] == DT_TYPE_MEM && ag->keyframes[i] != 1 &&
		   ag->keyframes[i] != 2 && ag->keyframes[i] != 4 &&
		   ag->keyframes[i] != 8) {
		/* other sizes byte by byte (dt_aggregate_keycmp) */
		return memcmp(x, y, ag->keyframes[i]);
	} else {
		/* DTrace compares integer keys unsigned, at their size */
		unsigned long long p = agg_key_uint(ag, i, x), q = agg_key_uint(bg, i, y);

		return p < q ? -1 : p > q;
	}
}

/* Keys in order from aggsortkeypos, wrapping around (dt_aggregate_keycmp) */
static int keycmp(const struct dt_aggent *a, const struct dt_aggent *b)
{
	struct agg ta, tb;
	const struct agg *ag = agg_laid(&sort_prog->aggs[a->e->aggid], a->e, a->key,
					sort_prog->strsize, &ta);
	const struct agg *bg = agg_laid(&sort_prog->aggs[b->e->aggid], b->e, b->key,
					sort_prog->strsize, &tb);
	unsigned off[DT_MAXKEYS + 1], o = 0;
	int n = ag->nkeys, pos = sort_now->keypos < n ? sort_now->keypos : 0;

	for (int i = 0; i < n; i++) {
		off[i] = o;
		o += agg_keyslot(ag, i, sort_prog->strsize);
	}
	for (int k = 0; k < n; k++) {
		int i = (k + pos) % n;
		int d = key1cmp(ag, bg, i, a->key + off[i], b->key + off[i]);

		if (d)
			return d;
	}
	/* equal values at different sizes: by layout (keys are unequal) */
	if (a->e->keylen <= o || b->e->keylen <= o)
		return a->e->keylen < b->e->keylen ? -1 : a->e->keylen > b->e->keylen;
	return a->e->keylen != b->e->keylen ? (a->e->keylen < b->e->keylen ? -1 : 1) :
	       memcmp(a->key + o, b->key + o, a->e->keylen - o);
}

/*
 * By aggregation, then value and keys (or, under aggsortkey, keys alone);
 * aggsortrev reverses all of it, as DTrace's DT_LESSTHAN does.
 */
static int aent_cmp(const void *x, const void *y)
{
	const struct dt_aggent *a = x, *b = y;
	int r;

	if (a->e->aggid != b->e->aggid)
		r = a->e->aggid < b->e->aggid ? -1 : 1;
	else if (sort_now->key)
		r = keycmp(a, b);
	else if (a->sortval != b->sortval)
		r = a->sortval < b->sortval ? -1 : 1;
	else if (a->zero != b->zero)
		r = a->zero < b->zero ? -1 : 1;
	else
		r = keycmp(a, b);
	return sort_now->rev ? -r : r;
}

/*
 * What DTrace sorts an entry by (dt_aggregate_valcmp): the value; the
 * integer average; the standard deviation; for distributions the sum of
 * each bucket's count times its value (an open end counts as one past
 * it), ties broken by the count at zero (llquantize: its first bucket).
 */
static long double agg_sortval(const struct agg *ag, const __s64 *v,
			       unsigned nvals, long double *zero)
{
	long double t = 0;
	unsigned i;

	*zero = 0;
	switch (ag->func) {
	case XDT_AGG_STDDEV:
		return nvals >= 4 ? agg_stddev(v, 1) : 0;
	case XDT_AGG_AVG:
		return v[0] ? (long double)(v[1] / v[0]) : 0;
	case XDT_AGG_QUANTIZE:
		for (i = 0; i < nvals; i++)
			t += (long double)agg_bucket_value((int)i) * v[i];
		*zero = nvals > XDT_QUANTIZE_ZERO ? v[XDT_QUANTIZE_ZERO] : 0;
		return t;
	case XDT_AGG_LQUANTIZE: {
		long long base = XDT_LQ_BASE(ag->arg), step = XDT_LQ_STEP(ag->arg);

		if (nvals < 2)
			return 0;
		t = (long double)v[0] * (base - 1);
		for (i = 1; i + 1 < nvals; i++) {
			long long b = base + (long long)(i - 1) * step;

			t += (long double)v[i] * b;
			if (b == 0)
				*zero = v[i];
		}
		if (base - 1 == 0)
			*zero = v[0];
		t += (long double)v[nvals - 1] * (base + (long long)(nvals - 2) * step + 1);
		if (base + (long long)(nvals - 2) * step + 1 == 0)
			*zero = v[nvals - 1];
		return t;
	}
	case XDT_AGG_LLQUANTIZE:
		if (!nvals)
			return 0;
		t = (long double)v[0] * ((long double)agg_llq_value(ag->arg, 0) - 1);
		for (i = 1; i < nvals; i++)
			t += (long double)v[i] * agg_llq_value(ag->arg, (int)i);
		*zero = v[0];
		return t;
	default:
		return v[0];
	}
}

/*
 * A snapshot's entries (those of @ids[0..nids), or all with nids 0) in
 * DTrace's order: by aggregation, value, keys, as @sort says (NULL: the
 * default order, whatever the options; ->none: the snapshot's order).
 */
static struct dt_aggent *agg_sorted(const struct prog *p, const char *buf,
				    size_t size, unsigned count,
				    const struct dt_aggsort *sort, const int *ids,
				    int nids, unsigned *np)
{
	struct dt_aggent *v = xzalloc((count + 1) * sizeof(*v));
	size_t off = 0;
	unsigned n = 0;

	while (n < count && off + sizeof(struct xdt_aggent) <= size) {
		const struct xdt_aggent *e = (const void *)(buf + off);
		const __s64 *vals;
		int k;

		if (e->size < sizeof(*e) || off + e->size > size)
			break;
		off += e->size;
		if (e->aggid >= (unsigned)p->naggs || !e->nvals)
			continue;
		for (k = 0; k < nids && ids[k] != (int)e->aggid; k++)
			;
		if (nids && k == nids)
			continue;
		vals = (const void *)((const char *)e + sizeof(*e) +
				      ((e->keylen + 7) & ~7u));
		v[n].e = e;
		v[n].key = (const char *)e + sizeof(*e);
		v[n].vals = vals;
		v[n].sortval = agg_sortval(&p->aggs[e->aggid], vals, e->nvals,
					   &v[n].zero);
		n++;
	}
	sort_prog = p;
	sort_now = sort ? sort : &nosort;
	if (!sort_now->none)
		qsort(v, n, sizeof(*v), aent_cmp);
	*np = n;
	return v;
}

/* ---- the walkers -------------------------------------------------------- */
/* One aggregation's run of entries: its group, its entries, its end. */
static int walk_group(const struct dt_aggsink *s, void *ctx, int aggid,
		      const struct dt_aggent *v, unsigned n)
{
	int stop = 0;

	if (!s->agg_begin || !s->agg_begin(ctx, aggid, v, n))
		for (unsigned i = 0; i < n && !stop; i++)
			stop = s->entry ? s->entry(ctx, &v[i]) : 0;
	if (s->agg_end)
		s->agg_end(ctx, aggid);
	return stop;
}

/*
 * Walk a snapshot's entries in DTrace's order (@sort: the aggsort*
 * options), an aggregation at a time.  @nids 0: every aggregation that has
 * entries, in the order they sort; else @ids[0..nids) in that order, each
 * even if it has none.  The sink's entry() returns nonzero to stop; the
 * walk returns that.
 */
int agg_walk(const struct prog *p, const char *buf, size_t size,
	     unsigned count, const struct dt_aggsort *sort, const int *ids,
	     int nids, const struct dt_aggsink *s, void *ctx)
{
	unsigned n, i, j;
	struct dt_aggent *v = agg_sorted(p, buf, size, count, sort, ids, nids, &n);
	int stop = 0;

	for (int q = 0; q < nids && !stop; q++) {
		/* the aggregation's entries are one run: aggid sorts first */
		for (i = 0; i < n && (int)v[i].e->aggid != ids[q]; i++)
			;
		for (j = i; j < n && (int)v[j].e->aggid == ids[q]; j++)
			;
		stop = walk_group(s, ctx, ids[q], v + i, j - i);
	}
	for (i = 0; !nids && i < n && !stop; i = j) {
		for (j = i; j < n && v[j].e->aggid == v[i].e->aggid; j++)
			;
		stop = walk_group(s, ctx, (int)v[i].e->aggid, v + i, j - i);
	}
	free(v);
	return stop;
}

/*
 * DTrace's joined order (dt_aggregate_walk_joined): the aggregations'
 * values compared in turn, a missing one as zero, then the keys.
 */
static int prow_cmp1(const struct dt_aggrow *a, const struct dt_aggrow *b)
{
	int pos = sort_now->pos < sort_nids ? sort_now->pos : 0;

	if (sort_now->key) {
		int r = keycmp(a->k, b->k);

		if (r)
			return r;
	}
	/* aggsortpos's aggregation first, then the others in order */
	for (int jj = -1; jj < sort_nids; jj++) {
		int j = jj < 0 ? pos : jj;

		if (jj == pos)
			continue;
		long double as = a->e[j] ? a->e[j]->sortval : 0;
		long double bs = b->e[j] ? b->e[j]->sortval : 0;
		long double az = a->e[j] ? a->e[j]->zero : 0;
		long double bz = b->e[j] ? b->e[j]->zero : 0;

		if (as != bs)
			return as < bs ? -1 : 1;
		if (az != bz)
			return az < bz ? -1 : 1;
	}
	return sort_now->key ? 0 : keycmp(a->k, b->k);
}

static int prow_cmp(const void *x, const void *y)
{
	int r = prow_cmp1(x, y);

	return sort_now->rev ? -r : r;
}

/*
 * printa()'s walk: @ids[0..nids) joined on their keys, a line a key in
 * DTrace's joined order.  The sink's agg_begin() first sees every entry
 * of them (as agg_walk() orders them; nonzero: no lines), then row() each
 * line.
 */
void agg_walk_joined(const struct prog *p, const char *buf, size_t size,
		     unsigned count, const struct dt_aggsort *sort,
		     const int *ids, int nids, const struct dt_aggsink *s,
		     void *ctx)
{
	unsigned n, i, k, nr = 0;
	struct dt_aggent *v = agg_sorted(p, buf, size, count, sort, ids, nids, &n);
	struct dt_aggrow *rows = xzalloc((n + 1) * sizeof(*rows));
	char *seen = xzalloc(n + 1);

	for (i = 0; i < n; i++) {
		struct dt_aggrow *r;

		if (seen[i])
			continue;
		r = &rows[nr++];
		r->k = &v[i];
		for (k = i; k < n; k++)
			if (v[k].e->keylen == v[i].e->keylen &&
			    !memcmp(v[k].key, v[i].key, v[i].e->keylen)) {
				for (int j = 0; j < nids; j++)
					if ((int)v[k].e->aggid == ids[j])
						r->e[j] = &v[k];
				seen[k] = 1;
			}
	}
	sort_prog = p;
	sort_nids = nids;
	qsort(rows, nr, sizeof(*rows), prow_cmp);
	if (!s->agg_begin || !s->agg_begin(ctx, ids[0], v, n))
		for (i = 0; i < nr; i++)
			s->row(ctx, &rows[i]);
	free(seen);
	free(rows);
	free(v);
}

/*
 * The order trunc() keeps entries in: @out[k] is the position in the
 * snapshot (0 = first entry) of the k-th entry by DTrace's value order.
 */
static void agg_order(const struct prog *p, const char *buf, size_t size,
		      unsigned count, unsigned *out)
{
	unsigned n, i;
	struct dt_aggent *v = agg_sorted(p, buf, size, count, NULL, NULL, 0, &n);
	const char *first = buf;

	for (i = 0; i < n; i++) {
		size_t off = 0;
		unsigned k = 0;

		/* entries are variable-sized: find the index by walking */
		while (first + off != (const char *)v[i].e) {
			off += ((const struct xdt_aggent *)(first + off))->size;
			k++;
		}
		out[i] = k;
	}
	free(v);
}

/* ---- entries decoded: the structured API's and JSON's ------------------- */
_Static_assert(XDT_AGG_MAXKEYS >= DT_MAXKEYS, "XDT_AGG_MAXKEYS");

/* An integer as its D type has it: sign- or zero-extended from its size */
long long dt_typed_int(const struct dtype *t, const char *p, int *uns)
{
	__u64 v;
	unsigned sz = t && type_is_scalar(t) ? t->real->size : 8;
	int sgn = t && type_is_int(t) ? t->real->sgn : 0;

	memcpy(&v, p, 8);
	if (sz < 8) {
		v &= (1ULL << (8 * sz)) - 1;
		if (sgn && (v >> (8 * sz - 1)) & 1)
			v |= ~0ULL << (8 * sz);
	}
	*uns = !sgn;
	return (long long)v;
}

/* A distribution's buckets that hold anything */
static int entry_buckets(const struct agg *ag, const __s64 *v, unsigned nvals,
			 struct xdt_aggbucket *b)
{
	int n = 0;

	for (unsigned i = 0; i < nvals; i++) {
		long long val;
		int bound = 0;

		if (!v[i])
			continue;
		if (ag->func == XDT_AGG_QUANTIZE) {
			val = agg_bucket_value((int)i);
		} else if (ag->func == XDT_AGG_LQUANTIZE) {
			long long base = XDT_LQ_BASE(ag->arg), st = XDT_LQ_STEP(ag->arg);

			if (i == 0)
				val = base, bound = -1;
			else if (i == nvals - 1)
				val = base + (long long)(nvals - 2) * st, bound = 1;
			else
				val = base + (long long)(i - 1) * st;
		} else {
			val = (long long)agg_llq_value(ag->arg, (int)i);
			bound = i == 0 ? -1 : i == nvals - 1 ? 1 : 0;
		}
		b[n].value = val;
		b[n].bound = bound;
		b[n].count = v[i] / agg_normal(ag);
		n++;
	}
	return n;
}

/*
 * Entry @e decoded into @d: keys, value or buckets (@b, room for every
 * bucket of the entry) as DTrace prints them.  What xdt_aggsnapshot()
 * hands out and what -x oformat=json writes.
 */
void agg_decode(const struct prog *p, const struct dt_aggent *e,
		struct xdt_aggentry *d, struct xdt_aggbucket *b)
{
	const struct agg *ag = &p->aggs[e->e->aggid];
	const __s64 *x = e->vals;
	unsigned off = 0;

	memset(d, 0, sizeof(*d));
	d->aggid = (int)e->e->aggid;
	d->name = ag->name;
	d->func = aggfunc_name(ag->func);
	d->nkeys = ag->nkeys;
	for (int k = 0; k < ag->nkeys; k++) {
		struct xdt_value *kv = &d->keys[k];

		if (ag->keytype[k] == XDT_TYPE_STRING) {
			kv->kind = XDT_VAL_STRING;
			kv->type = "string";
			kv->s = e->key + off;
			kv->len = strnlen(kv->s, p->strsize);
			off += (p->strsize + 7) & ~7u;
		} else if (DT_IS_STACK(ag->keytype[k])) {
			__u64 w0;

			kv->kind = XDT_VAL_STACK;
			/* a position may hold both kinds: the first word tells */
			memcpy(&w0, e->key + off, 8);
			kv->type = XDT_IS_USTACK(w0) ? "ustack" : "stack";
			kv->pcs = e->key + off;
			kv->nframes = ag->keyframes[k];
			off += 8 * ag->keyframes[k];
		} else if (ag->keytype[k] == DT_TYPE_MEM) {
			kv->kind = XDT_VAL_MEMORY;
			kv->type = ag->keyt[k] ? type_str(ag->keyt[k]) : "memory";
			kv->s = e->key + off;
			kv->len = ag->keyframes[k];
			off += agg_keyslot(ag, k, p->strsize);
		} else {
			struct agg t;
			const struct agg *ka = agg_laid(ag, e->e, e->key, p->strsize, &t);

			kv->kind = XDT_VAL_INT;
			kv->type = ka->keyt[k] ? type_str(ka->keyt[k]) : "int64_t";
			kv->i = dt_typed_int(ka->keyt[k], e->key + off, &kv->uns);
			off += 8;
		}
	}
	switch (ag->func) {
	case XDT_AGG_QUANTIZE:
	case XDT_AGG_LQUANTIZE:
	case XDT_AGG_LLQUANTIZE:
		d->nbuckets = entry_buckets(ag, x, e->e->nvals, b);
		d->buckets = b;
		break;
	case XDT_AGG_AVG:
		d->value = x[0] ? x[1] / agg_normal(ag) / x[0] : 0;
		d->count = x[0];
		d->sum = x[1];
		break;
	case XDT_AGG_STDDEV:
		d->value = (long long)(e->e->nvals >= 4 ? agg_stddev(x, agg_normal(ag)) : 0);
		d->count = x[0];
		d->sum = x[1];
		break;
	default:
		d->value = x[0] / agg_normal(ag);
	}
}
