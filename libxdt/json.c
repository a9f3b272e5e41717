/*
 * -x oformat=json: a JSON writer (RFC 8259 output only).
 *
 * Why not cJSON or jansson: xdt only writes JSON, never reads it, and what
 * it writes is objects of strings, integers and arrays; the writer is this
 * file.  A library would have to be cross-built from its Debian source
 * package for every static guest and cached (like busybox) to save about
 * a hundred lines, and its DOM would hold every record before printing it.
 * The consumer streams instead: one object per line (JSON Lines), written
 * as the records arrive.  The schema: docs/json.md.
 *
 * And what it writes: records (a sink of rec.c's walker) and aggregations
 * (a sink of agg.c's).
 */
#define _GNU_SOURCE	/* open_memstream */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "dt_consumer.h"
#include "libxdt.h"

/* A separator before each member after the first of the current level */
static void sep(struct jw *w)
{
	if (w->depth > 0) {
		if (w->n[w->depth - 1]++)
			fputc(',', w->fp);
	}
}

static void key(struct jw *w, const char *k)
{
	sep(w);
	if (k) {
		jw_strn_raw(w->fp, k, strlen(k));
		fputc(':', w->fp);
	}
}

/* @s (at most @n bytes, up to a NUL) as a JSON string */
void jw_strn_raw(FILE *fp, const char *s, size_t n)
{
	fputc('"', fp);
	for (size_t i = 0; i < n && s[i]; i++) {
		unsigned char c = (unsigned char)s[i];

		switch (c) {
		case '"':
			fputs("\\\"", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\t':
			fputs("\\t", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		default:
			/*
			 * Control bytes escaped; bytes from 0x80 up are passed
			 * as they are when they form UTF-8, else as U+00XX
			 * (kernel strings need not be UTF-8; the document must
			 * be).
			 */
			if (c < 0x20 || c == 0x7f) {
				fprintf(fp, "\\u%04x", c);
			} else if (c < 0x80) {
				fputc(c, fp);
			} else {
				size_t len = c >= 0xf0 && c < 0xf5 ? 4 :
					     c >= 0xe0 && c < 0xf0 ? 3 :
					     c >= 0xc2 && c < 0xe0 ? 2 : 0;
				size_t k;

				for (k = 1; len && k < len; k++)
					if (i + k >= n || ((unsigned char)s[i + k] & 0xc0) != 0x80)
						break;
				if (len && k == len) {
					fwrite(s + i, 1, len, fp);
					i += len - 1;
				} else {
					fprintf(fp, "\\u%04x", c);
				}
			}
		}
	}
	fputc('"', fp);
}

void jw_obj(struct jw *w, const char *k)
{
	key(w, k);
	fputc('{', w->fp);
	w->n[w->depth++] = 0;
}

void jw_arr(struct jw *w, const char *k)
{
	key(w, k);
	fputc('[', w->fp);
	w->n[w->depth++] = 0;
}

void jw_end(struct jw *w, int arr)
{
	w->depth--;
	fputc(arr ? ']' : '}', w->fp);
	if (!w->depth)
		fputc('\n', w->fp);	/* JSON Lines: one object a line */
}

void jw_str(struct jw *w, const char *k, const char *s)
{
	key(w, k);
	jw_strn_raw(w->fp, s, strlen(s));
}

void jw_strn(struct jw *w, const char *k, const char *s, size_t n)
{
	key(w, k);
	jw_strn_raw(w->fp, s, n);
}

void jw_int(struct jw *w, const char *k, long long v)
{
	key(w, k);
	fprintf(w->fp, "%lld", v);
}

void jw_uint(struct jw *w, const char *k, unsigned long long v)
{
	key(w, k);
	fprintf(w->fp, "%llu", v);
}

/* A stack: its frames as DTrace names them, innermost first */
void jw_stack(struct jw *w, const char *k, const char *p, unsigned nframes)
{
	char sym[1024];

	jw_arr(w, k);
	for (unsigned i = 0; dt_frame_format(p, nframes, i, sym, sizeof(sym)); i++)
		jw_str(w, NULL, sym);
	jw_end(w, 1);
}

/* ---- aggregations: a sink of agg_walk() ---------------------------------- */
struct json_sink {
	const struct prog *p;
	struct jw w;
};

/* An aggregation's object, its entries in an array */
static int json_agg_begin(void *ctx, int aggid, const struct dt_aggent *v,
			  unsigned n)
{
	struct json_sink *j = ctx;
	const struct agg *ag = &j->p->aggs[aggid];

	(void)v, (void)n;
	jw_obj(&j->w, NULL);
	jw_str(&j->w, "type", "aggregation");
	jw_str(&j->w, "name", ag->name);
	jw_str(&j->w, "function", aggfunc_name(ag->func));
	jw_arr(&j->w, "entries");
	return 0;
}

static void json_agg_end(void *ctx, int aggid)
{
	struct json_sink *j = ctx;

	(void)aggid;
	jw_end(&j->w, 1);
	jw_end(&j->w, 0);
}

/* Bytes (tracemem(), a struct traced or a struct key) as a hex string */
static void jw_hex(struct jw *w, const char *s, size_t len)
{
	char *hex = xzalloc(2 * len + 1);

	for (size_t k = 0; k < len; k++)
		snprintf(hex + 2 * k, 3, "%02x", (unsigned char)s[k]);
	jw_str(w, NULL, hex);
	free(hex);
}

/* An entry, decoded (agg_decode()): its keys, and its value or, for a
   distribution, the buckets that hold anything with the row value DTrace
   prints and for the open ends which side of it ("below", "above") */
static int json_agg_entry(void *ctx, const struct dt_aggent *e)
{
	struct json_sink *j = ctx;
	struct jw *w = &j->w;
	struct xdt_aggbucket *b = xzalloc((e->e->nvals + 1) * sizeof(*b));
	struct xdt_aggentry d;

	agg_decode(j->p, e, &d, b);
	jw_obj(w, NULL);
	jw_arr(w, "keys");
	for (int k = 0; k < d.nkeys; k++) {
		const struct xdt_value *kv = &d.keys[k];

		if (kv->kind == XDT_VAL_STRING)
			jw_strn(w, NULL, kv->s, kv->len);
		else if (kv->kind == XDT_VAL_STACK)
			jw_stack(w, NULL, kv->pcs, kv->nframes);
		else if (kv->kind == XDT_VAL_MEMORY)	/* a struct key */
			jw_hex(w, kv->s, kv->len);
		else if (kv->uns)	/* a uint64_t past 2^63 stays positive */
			jw_uint(w, NULL, (unsigned long long)kv->i);
		else
			jw_int(w, NULL, kv->i);
	}
	jw_end(w, 1);
	if (d.buckets) {
		jw_arr(w, "buckets");
		for (int i = 0; i < d.nbuckets; i++) {
			jw_obj(w, NULL);
			jw_int(w, "value", b[i].value);
			if (b[i].bound)
				jw_str(w, "bound", b[i].bound < 0 ? "below" : "above");
			jw_int(w, "count", b[i].count);
			jw_end(w, 0);
		}
		jw_end(w, 1);
	} else if (!strcmp(d.func, "stddev")) {
		jw_uint(w, "value", (unsigned long long)d.value);
	} else {
		jw_int(w, "value", d.value);
	}
	if (!strcmp(d.func, "avg") || !strcmp(d.func, "stddev")) {
		jw_int(w, "count", d.count);
		jw_int(w, "sum", d.sum);
	}
	jw_end(w, 0);
	free(b);
	return 0;
}

/*
 * One object per aggregation, its entries in DTrace's order: those of
 * @ids (printa(), even an empty one), else every one with entries.
 */
void json_aggs(const struct prog *p, const struct dt_aggsort *o,
	       const char *buf, size_t size, unsigned count, FILE *fp,
	       const int *ids, int nids)
{
	static const struct dt_aggsink sink = {
		.agg_begin = json_agg_begin, .entry = json_agg_entry,
		.agg_end = json_agg_end,
	};
	struct json_sink j = { p, { fp, 0, { 0 } } };

	agg_walk(p, buf, size, count, o, ids, nids, &sink, &j);
}

/* ---- records: a sink of rec_walk() --------------------------------------- */
struct json_rec {
	struct dt_print *pr;
	const struct prog *p;
	FILE *fp;		/* the record's text, for "output" */
	FILE *pf;		/* printa()'s objects, in order */
};

static void json_datum(void *ctx, const struct clause *c,
		       const struct outst *o, const char *data)
{
	struct json_rec *j = ctx;

	print_datum(j->pr, j->p, c, o, data, j->fp);
}

/* the totals now; written after this record's object */
static void json_printa(void *ctx, const struct outst *o, const char *buf,
			size_t size, unsigned count)
{
	struct json_rec *j = ctx;

	json_aggs(j->p, &j->pr->sort, buf, size, count, j->pf, o->aggids,
		  o->naggids);
}

/*
 * A record: its probe, its values in the order the clause recorded them
 * (rec_value()'s: number, string, stack frames, memory in hex), and
 * "output", the text DTrace prints for it (without the CPU/ID/probe
 * columns); printa() follows as aggregation objects.
 */
void json_record(struct dt_print *pr, const struct prog *p, int cl,
		 const struct xdt_eprobe *ep, int cpu, const char *data)
{
	static const struct dt_recsink sink = {
		.datum = json_datum, .printa = json_printa,
	};
	const struct clause *c = &p->clauses[cl];
	struct jw w = { rec_out(pr), 0, { 0 } };
	char *out = NULL, *pas = NULL;
	size_t len = 0, paslen = 0;
	struct json_rec j = { pr, p, open_memstream(&out, &len),
			      open_memstream(&pas, &paslen) };

	if (!j.fp || !j.pf)
		dt_fatal("out of memory");
	rec_walk(pr, p, cl, data, &sink, &j);
	fclose(j.fp);
	jw_obj(&w, NULL);
	jw_str(&w, "type", "probe");
	jw_int(&w, "cpu", cpu);
	jw_uint(&w, "id", ep->probe);
	jw_uint(&w, "epid", ep->epid);
	jw_str(&w, "provider", ep->desc.prov);
	jw_str(&w, "module", ep->desc.mod);
	jw_str(&w, "function", ep->desc.func);
	jw_str(&w, "name", ep->desc.name);
	jw_arr(&w, "values");
	for (int i = 0; i < c->nrecs; i++) {
		struct xdt_value v;

		rec_value(p, &c->recs[i], data, &v);
		if (v.kind == XDT_VAL_STRING) {
			jw_strn(&w, NULL, v.s, v.len);
		} else if (v.kind == XDT_VAL_STACK) {
			jw_stack(&w, NULL, v.pcs, v.nframes);
		} else if (v.kind == XDT_VAL_MEMORY) {
			jw_hex(&w, v.s, v.len);
		} else if (v.uns) {
			/* as its D type: a uint64_t past 2^63 is not negative */
			jw_uint(&w, NULL, (unsigned long long)v.i);
		} else {
			jw_int(&w, NULL, v.i);
		}
	}
	jw_end(&w, 1);
	jw_strn(&w, "output", out ? out : "", len);
	jw_end(&w, 0);
	free(out);
	fclose(j.pf);
	fwrite(pas, 1, paslen, rec_out(pr));
	free(pas);
}
