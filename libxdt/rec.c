// SPDX-License-Identifier: GPL-2.0
/*
 * rec.c - the one walk over a record (DTrace's dt_consume_cpu over a
 * probe's records): the clause's outputs in order, each one that prints
 * handed to a sink -- the text printer (print.c), -x oformat=json
 * (json.c), xdt_record_consume() -- and the consumer's own actions done
 * on the way, the same for all of them: exit()'s status, clear(),
 * trunc(), normalize(), setopt(), system(), freopen(), ftruncate().  And
 * a record's values decoded, for JSON and the structured API.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dt_consumer.h"
#include "libxdt.h"

static long long rec_int(const char *data, const struct recval *r)
{
	__s64 v;

	memcpy(&v, data + r->off, sizeof(v));
	return v;
}

/* Where records go: stdout, -o's file, or what freopen() opened. */
FILE *rec_out(const struct dt_print *pr)
{
	return pr->out ? pr->out : stdout;
}

/*
 * system() runs its formatted command (output flushed first), freopen()
 * sends what follows (records and the final aggregations, as DTrace's
 * freopen(3) of stdout does) to a file opened for appending, "" back to
 * the original output, and ftruncate() empties the current output file.
 */
static void consumer_action(struct dt_print *pr, const struct prog *p,
			    const struct clause *c, const struct outst *o,
			    const char *data)
{
	FILE *f = rec_out(pr), *m, *nf;
	char *s = NULL;
	size_t n = 0;

	fflush(f);
	if (o->k == OUT_FTRUNCATE) {
		if (ftruncate(fileno(f), 0) == 0)
			fseeko(f, 0, SEEK_SET);
		return;
	}
	m = open_memstream(&s, &n);
	if (!m)
		dt_fatal("out of memory");
	print_printf(o->pf, p, c, o->rec0, data, m);
	fclose(m);
	if (o->k == OUT_SYSTEM) {
		fflush(stdout);
		if (system(s) == -1)
			fprintf(stderr, "dtrace: system(\"%s\") failed: %s\n", s,
				strerror(errno));
	} else if (!*s) {
		if (pr->out && pr->out != pr->orig)
			fclose(pr->out);
		pr->out = pr->orig;
	} else if (!(nf = fopen(s, "a"))) {
		fprintf(stderr, "dtrace: failed to freopen to %s: %s\n", s,
			strerror(errno));
	} else {
		if (pr->out && pr->out != pr->orig)
			fclose(pr->out);
		pr->out = nf;
	}
	free(s);
}

/*
 * printa(), clear(), trunc(), normalize(), denormalize(): on the totals
 * as of the consumer's last snapshot, as DTrace's are.  printa() hands
 * the totals of its aggregations to the sink.
 */
static void agg_out(struct dt_print *pr, const struct prog *p,
		    const struct outst *o, const struct recval *r,
		    const char *data, const struct dt_recsink *s, void *ctx)
{
	struct agg *ag = &p->aggs[o->aggids[0]];
	char *want, *buf;
	size_t size;
	unsigned count;

	if (!pr->aggs)
		return;
	switch (o->k) {
	case OUT_CLEAR:
		aggtab_clear(pr->aggs, o->aggids[0]);
		return;
	case OUT_TRUNC:
		aggtab_trunc(pr->aggs, p, o->aggids[0], o->nargs ? rec_int(data, r) : 0);
		return;
	case OUT_NORMALIZE:
		/* the consumer's state: struct agg is the program's, ours */
		ag->normal = rec_int(data, r) > 0 ? rec_int(data, r) : 1;
		return;
	case OUT_DENORMALIZE:
		ag->normal = 1;
		return;
	default:
		break;
	}
	want = xzalloc((size_t)p->naggs + 1);
	for (int i = 0; i < o->naggids; i++) {
		want[o->aggids[i]] = 1;
		p->aggs[o->aggids[i]].printed = 1;
	}
	buf = aggtab_layout(pr->aggs, want, &size, &count, NULL);
	s->printa(ctx, o, buf, size, count);
	free(buf);
	free(want);
}

/*
 * Record @data of clause @cl, walked: each output that prints to the
 * sink's datum() or printa(), the consumer's actions done in their place.
 */
void rec_walk(struct dt_print *pr, const struct prog *p, int cl,
	      const char *data, const struct dt_recsink *s, void *ctx)
{
	const struct clause *c = &p->clauses[cl];

	for (int i = 0; i < c->nouts; i++) {
		const struct outst *o = &c->outs[i];
		const struct recval *r = &c->recs[o->rec0];

		switch (o->k) {
		case OUT_TRACE:
		case OUT_PRINTF:
		case OUT_STACK:
		case OUT_TRACEMEM:
		case OUT_PRINT:
			s->datum(ctx, c, o, data);
			break;
		case OUT_EXIT:
			/* dtrace(1) exits with exit()'s value */
			pr->exit_status = (int)rec_int(data, r);
			break;
		case OUT_PRINTA:
		case OUT_CLEAR:
		case OUT_TRUNC:
		case OUT_NORMALIZE:
		case OUT_DENORMALIZE:
			agg_out(pr, p, o, r, data, s, ctx);
			break;
		case OUT_SETOPT:
			/* DTrace reports a bad one and carries on (dt_setopt) */
			if (pr->setopt && pr->setopt(pr->ctx, o->fmt, o->fmt2))
				fprintf(stderr, "dtrace: couldn't set option \"%s\" to \"%s\"\n",
					o->fmt, o->fmt2 ? o->fmt2 : "");
			break;
		case OUT_SYSTEM:
		case OUT_FREOPEN:
		case OUT_FTRUNCATE:
			if (s->flush)
				s->flush(ctx);
			consumer_action(pr, p, c, o, data);
			break;
		}
	}
}

/* Value @r of a record, decoded (libxdt.h's struct xdt_value) */
void rec_value(const struct prog *p, const struct recval *r,
	       const char *data, struct xdt_value *v)
{
	const char *at = data + r->off;

	memset(v, 0, sizeof(*v));
	v->name = r->name;
	if (r->type == XDT_TYPE_STRING) {
		v->kind = XDT_VAL_STRING;
		v->type = "string";
		v->s = at;
		v->len = strnlen(at, rec_strslot(p, r));
	} else if (DT_IS_STACK(r->type)) {
		v->kind = XDT_VAL_STACK;
		v->type = r->type == DT_TYPE_USTACK ? "ustack" : "stack";
		v->pcs = at;
		v->nframes = r->nframes;
	} else if (r->type == DT_TYPE_MEM) {
		v->kind = XDT_VAL_MEMORY;
		v->type = r->t ? type_str(r->t) : "memory";
		v->s = at;
		v->len = r->nframes;
	} else {
		v->kind = XDT_VAL_INT;
		v->type = r->t ? type_str(r->t) : "int64_t";
		v->i = dt_typed_int(r->t, at, &v->uns);
	}
}
