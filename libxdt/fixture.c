// SPDX-License-Identifier: GPL-2.0
/*
 * fixture.c - dtrace(1)'s hidden -X records and -X aggs (libxdt.h's test
 * hooks): synthetic records and aggregation snapshots laid out as the
 * kernel lays them out, put through the same walkers and printers as a
 * run's.  Only for what the host VM cannot run: kernel stacks (its stack()
 * is empty) and probes other than BEGIN, END and ERROR; everything else is
 * tested by running D on the host VM (tests/host/test_hostvm.py).
 */
#define _POSIX_C_SOURCE 200809L	/* strtok_r */
#include <stdlib.h>
#include <string.h>
#include "dt_consumer.h"

/* A snapshot as the kernel would hand it over, through print_aggs(). */
static char *put_ent(char *w, __u32 id, const void *key, __u32 keylen,
		     const __s64 *vals, __u32 nvals)
{
	struct xdt_aggent e = { id, keylen, nvals,
		(__u32)(sizeof(e) + ((keylen + 7) & ~7u) + nvals * 8) };

	memcpy(w, &e, sizeof(e));
	memcpy(w + sizeof(e), key, keylen);
	memcpy(w + sizeof(e) + ((keylen + 7) & ~7u), vals, nvals * 8);
	return w + e.size;
}

/* "pc,pc,...": a stack's frames, innermost first; the rest stay 0 */
static void fake_stack(char *at, unsigned nframes, const char *s)
{
	char *end;

	for (unsigned f = 0; f < nframes && *s; f++) {
		__u64 pc = strtoull(s, &end, 0);

		memcpy(at + 8 * f, &pc, 8);
		s = *end == ',' ? end + 1 : end;
	}
}

/*
 * -X records: one fake record per clause of a compiled program, values
 * taken in order from @vals (integers, or strings for string slots),
 * printed both the default way and with -q.
 */
void print_fake_records(const struct prog *p, char **vals, int nvals)
{
	struct xdt_eprobe ep = { .epid = 1, .probe = 1 };
	int v = 0;

	for (int q = 0; q < 2; q++) {
		struct dt_print pr = { .quiet = q, .last_nl = 1 };

		v = 0;
		for (int cl = 0; cl < p->nclauses; cl++) {
			const struct clause *c = &p->clauses[cl];
			char *rec = xzalloc(c->recsize + 8);
			struct xdt_rechdr h = { 1, c->recsize };

			memcpy(rec, &h, sizeof(h));

			ep.desc = c->desc;
			ep.clause = (unsigned)cl;
			for (int k = 0; k < c->nrecs; k++, v++) {
				const char *s = v < nvals ? vals[v] : "0";

				if (c->recs[k].type == XDT_TYPE_STRING) {
					strncpy(rec + c->recs[k].off, s, p->strsize);
				} else if (c->recs[k].type == DT_TYPE_STACK) {
					fake_stack(rec + c->recs[k].off,
						   c->recs[k].nframes, s);
				} else {
					__s64 x = strtoll(s, NULL, 0);

					memcpy(rec + c->recs[k].off, &x, 8);
				}
			}
			print_record(&pr, p, cl, &ep, 0, rec);
			free(rec);
		}
		fflush(stdout);
		if (!pr.last_nl)
			putchar('\n');
	}
}

/*
 * -X aggs: a snapshot made of @ents, one entry each, printed as at the
 * end of a run: "@name;key;...;value[;value]" with the keys the
 * aggregation has (strings, integers, or "pc,pc,..." stacks) and the
 * values its function keeps (avg: count;sum, quantize: bucket=n,...).
 */
void print_fake_aggs(const struct prog *p, char **ents, int nents)
{
	size_t cap = 0, size = 0;
	char *buf = NULL;

	for (int i = 0; i < nents; i++) {
		char *dup = xstrdup(ents[i]), *save = NULL, *f;
		const struct agg *ag;
		__s64 vals[XDT_QUANTIZE_BUCKETS] = { 0 };
		char *key = xzalloc(8);
		__u32 keylen = 0, nvals = 0;
		int id;

		f = strtok_r(dup, ";", &save);
		if (!f || f[0] != '@')
			dt_fatal("-X aggs: entry \"%s\" does not start with @name", ents[i]);
		for (id = 0; id < p->naggs && strcmp(p->aggs[id].name, f + 1); id++)
			;
		if (id == p->naggs)
			dt_fatal("-X aggs: no aggregation %s", f);
		ag = &p->aggs[id];
		for (int k = 0; k < ag->nkeys; k++) {
			unsigned len = ag->keytype[k] == XDT_TYPE_STRING ?
				((p->strsize + 7) & ~7u) :
				ag->keytype[k] == DT_TYPE_STACK ? 8 * ag->keyframes[k] : 8;

			f = strtok_r(NULL, ";", &save);
			if (!f)
				dt_fatal("-X aggs: \"%s\": too few keys", ents[i]);
			key = xrealloc(key, keylen + len);
			memset(key + keylen, 0, len);
			if (ag->keytype[k] == XDT_TYPE_STRING) {
				strncpy(key + keylen, f, p->strsize - 1);
			} else if (ag->keytype[k] == DT_TYPE_STACK) {
				fake_stack(key + keylen, ag->keyframes[k], f);
			} else {
				__s64 x = strtoll(f, NULL, 0);

				memcpy(key + keylen, &x, 8);
			}
			keylen += len;
		}
		if (ag->func == XDT_AGG_QUANTIZE) {
			nvals = XDT_QUANTIZE_BUCKETS;
			while ((f = strtok_r(NULL, ";,", &save))) {
				char *eq = strchr(f, '=');
				long b = strtol(f, NULL, 0);

				if (!eq || b < 0 || b >= XDT_QUANTIZE_BUCKETS)
					dt_fatal("-X aggs: quantize values are bucket=count");
				vals[b] = strtoll(eq + 1, NULL, 0);
			}
		} else {
			while ((f = strtok_r(NULL, ";", &save)) && nvals < 2)
				vals[nvals++] = strtoll(f, NULL, 0);
			if (nvals != (ag->func == XDT_AGG_AVG ? 2u : 1u))
				dt_fatal("-X aggs: \"%s\": wrong number of values", ents[i]);
		}
		if (size + sizeof(struct xdt_aggent) + keylen + 8 * nvals + 8 > cap) {
			cap = (cap + keylen + 8 * nvals + 64) * 2;
			buf = xrealloc(buf, cap);
		}
		size = (size_t)(put_ent(buf + size, (__u32)id, key, keylen, vals, nvals) - buf);
		free(key);
		free(dup);
	}
	print_aggs(p, &(struct dt_aggsort){ 0 }, buf, size, (unsigned)nents,
		   stdout);
	free(buf);
}
