/*
 * The consumer's aggregation totals, DTrace's model: each kernel snapshot
 * (XDT_IOC_AGGSNAP) hands over what every CPU aggregated since the last
 * one, summed over CPUs, and empties the kernel's arenas; the consumer
 * folds it in here.  So the kernel's space is recycled every snapshot (an
 * aggregation drops only when one interval outgrows aggsize), and clear(),
 * trunc() and normalize() act here, on the totals printa() and the end
 * print, as DTrace's libdtrace does.
 */
#include <stdlib.h>
#include <string.h>
#include "dt_print.h"

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

/* Fold a kernel snapshot (xdt_aggent entries, @count of them) in. */
void aggtab_fold(struct dt_aggtab *t, const struct prog *p, const char *buf,
		 size_t size, unsigned count)
{
	size_t off = 0;

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
		h = khash(k->aggid, key, k->keylen);
		e = find(t, k->aggid, key, k->keylen, h);
		if (e && e->nvals == k->nvals) {
			xdt_agg_merge((__u32)p->aggs[k->aggid].func, e->vals, vals,
				      k->nvals);
			continue;
		}
		if (t->n == t->cap) {
			t->cap = t->cap ? 2 * t->cap : 64;
			t->e = xrealloc(t->e, t->cap * sizeof(*t->e));
		}
		e = &t->e[t->n++];
		e->aggid = k->aggid;
		e->keylen = k->keylen;
		e->nvals = k->nvals;
		e->hash = h;
		e->key = xzalloc(k->keylen + 8);
		memcpy(e->key, key, k->keylen);
		e->vals = xzalloc(k->nvals * sizeof(__s64));
		memcpy(e->vals, vals, k->nvals * sizeof(__s64));
		if (2 * t->n + 2 > t->nslots)
			rehash(t);
		else {
			size_t s = h & (t->nslots - 1);

			while (t->slot[s])
				s = (s + 1) & (t->nslots - 1);
			t->slot[s] = t->n;
		}
	}
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
