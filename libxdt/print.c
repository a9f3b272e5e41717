// SPDX-License-Identifier: GPL-2.0
/*
 * print.c - what dtrace(1) prints: probe records (the CPU/ID/FUNCTION:NAME
 * columns, trace() values, printf() formats) and aggregations (printa(),
 * and at the end), with quantize() distributions drawn as DTrace draws
 * them.  The sinks of the walkers (rec.c, agg.c): what to print comes
 * from them, in their order; this file only lays it out.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include "dt_consumer.h"
#include "libxdt.h"

static long long rec_int(const char *data, const struct recval *r)
{
	__s64 v;

	memcpy(&v, data + r->off, sizeof(v));
	return v;
}

/*
 * printf(): the clause's records from @rec0 on, as the values of the
 * format the compiler parsed (printf.c formats them).
 */
void print_printf(const struct pformat *pf, const struct prog *p,
		  const struct clause *c, int rec0, const char *data, FILE *fp)
{
	int n = c->nrecs - rec0;
	struct pfval *v = xzalloc((n > 0 ? n : 1) * sizeof(*v));

	for (int i = 0; i < n; i++) {
		const struct recval *r = &c->recs[rec0 + i];

		v[i].p = data + r->off;
		if (r->type == XDT_TYPE_STRING) {
			v[i].size = rec_strslot(p, r);
		} else if (DT_IS_STACK(r->type)) {
			v[i].size = r->nframes;
		} else {
			v[i].t = r->t;
			v[i].size = 8;
		}
	}
	pf_format(fp, pf, v, n, NULL);
	free(v);
}


/* Where records go: stdout, -o's file, or what freopen() opened. */
#define OUT(pr)	rec_out(pr)

static void emit(struct dt_print *pr, const char *buf, size_t len)
{
	if (len)
		fwrite(buf, 1, len, OUT(pr));
}

/*
 * Bytes as DTrace's dt_print_bytes() shows them: printable text that ends
 * in NULs (or fills the range) as a string, anything else (and tracemem(),
 * @raw, or -x rawbytes) as a hex dump of 16 bytes a line with an ASCII
 * column.  @width < 0: left-justified in -width columns.
 */
void print_bytes(struct dt_print *pr, const char *c, size_t n, int width,
		 int raw, FILE *fp)
{
	size_t i, j;

	if (!n)
		return;
	if (!raw && !pr->rawbytes) {
		for (i = 0; i < n; i++) {
			unsigned char ch = (unsigned char)c[i];

			if (isprint(ch) || isspace(ch) || ch == '\b' || ch == '\a')
				continue;
			if (!ch && i > 0) {
				for (j = i + 1; j < n && !c[j]; j++)
					;
				if (j != n)
					break;
				if (pr->quiet)
					fprintf(fp, "%s", c);
				else
					fprintf(fp, " %s%*s", width < 0 ? " " : "", width, c);
				return;
			}
			break;
		}
		if (i == n) {
			fprintf(fp, "  %-*.*s", width < 0 ? -width : width, (int)n, c);
			return;
		}
	}
	fprintf(fp, "\n%*s      ", 5, "");
	for (i = 0; i < 16; i++)
		fprintf(fp, "  %c", "0123456789abcdef"[i]);
	fprintf(fp, "  0123456789abcdef\n");
	for (i = 0; i < n; i += 16) {
		fprintf(fp, "%*s%5zx:", 5, "", i);
		for (j = i; j < i + 16 && j < n; j++)
			fprintf(fp, " %02x", (unsigned char)c[j]);
		while (j++ % 16)
			fputs("   ", fp);
		fputs("  ", fp);
		for (j = i; j < i + 16 && j < n; j++)
			fputc(c[j] < ' ' || c[j] > '~' ? '.' : c[j], fp);
		fputc('\n', fp);
	}
}

/*
 * trace(): DTrace prints by the record's size, not the type's sign -- 8
 * bytes as a signed 64-bit, 4 as a signed int, 2 and 1 zero-extended --
 * and anything else (strings, structs, arrays) through print_bytes().
 */
static void print_trace(struct dt_print *pr, const struct prog *p,
			const struct recval *r, const char *data, FILE *fp)
{
	unsigned size;
	__u64 v;

	if (r->type == XDT_TYPE_STRING) {
		print_bytes(pr, data + r->off, rec_strslot(p, r), -33, 0, fp);
		return;
	}
	size = r->type == DT_TYPE_MEM ? r->nframes :
	       r->t && type_is_scalar(r->t) ? r->t->real->size : 8;
	if (r->type == DT_TYPE_MEM && size != 1 && size != 2 && size != 4 &&
	    size != 8) {
		print_bytes(pr, data + r->off, size, -33, 0, fp);
		return;
	}
	if (r->type == DT_TYPE_MEM) {
		const char *m = data + r->off;
		__u8 b;
		__u16 h;
		__u32 w;

		switch (size) {
		case 1: memcpy(&b, m, 1); v = b; break;
		case 2: memcpy(&h, m, 2); v = h; break;
		case 4: memcpy(&w, m, 4); v = w; break;
		default: memcpy(&v, m, 8); break;
		}
	} else {
		v = (__u64)rec_int(data, r);
	}
	switch (size) {
	case 1:
		fprintf(fp, pr->quiet ? "%d" : " %3d", (int)(__u8)v);
		break;
	case 2:
		fprintf(fp, pr->quiet ? "%d" : " %5d", (int)(__u16)v);
		break;
	case 4:
		fprintf(fp, pr->quiet ? "%d" : " %8d", (int)(__s32)(__u32)v);
		break;
	default:
		fprintf(fp, pr->quiet ? "%lld" : " %16lld", (long long)v);
		break;
	}
}


/* ---- print(): a value by its D type, as DTrace's dtrace_print() ---------- */
/* @size (1 to 8) little-endian bytes at @a: a bit-field's unit. */
static unsigned long long mem_bytes(const char *a, unsigned size)
{
	unsigned long long v = 0;

	while (size--)
		v = v << 8 | (unsigned char)a[size];
	return v;
}

static unsigned long long mem_uint(const char *a, unsigned size)
{
	__u8 b;
	__u16 h;
	__u32 w;
	__u64 q;

	switch (size) {
	case 1: memcpy(&b, a, 1); return b;
	case 2: memcpy(&h, a, 2); return h;
	case 4: memcpy(&w, a, 4); return w;
	default: memcpy(&q, a, 8); return q;
	}
}

static void pv_indent(FILE *fp, int depth)
{
	fprintf(fp, "%*s", depth * 4, "");
}

static void pv_value(FILE *fp, struct dtype *t, const char *a, int depth);

/* One line: the type, the member's name (if any), its value. */
static void pv_member(FILE *fp, const char *name, struct dtype *t,
		      const struct dmember *m, const char *a, int depth)
{
	const char *tn = type_str(t);
	struct dtype *r = t->real;

	pv_indent(fp, depth);
	fputs(tn, fp);
	if (*name) {
		size_t l = strlen(tn);

		if (l && tn[l - 1] != '*' && tn[l - 1] != ' ')
			fputc(' ', fp);
		fputs(name, fp);
		if (m && m->bits)
			fprintf(fp, " :%u", m->bits);
		fputs(" =", fp);
	}
	fputc(' ', fp);
	if (m && m->bits) {
		unsigned long long v = mem_bytes(a, m->usize) >> m->bitoff;

		v &= m->bits >= 64 ? ~0ULL : (1ULL << m->bits) - 1;
		fprintf(fp, "%#llx", v);
	} else {
		pv_value(fp, t, a, depth);
	}
	if (r->k == TK_STRUCT || r->k == TK_UNION) {
		/* closed here, with a newline unless at the top */
		pv_indent(fp, depth);
		fputc('}', fp);
		if (depth)
			fputc('\n', fp);
	} else {
		fputc('\n', fp);
	}
}

static void pv_value(FILE *fp, struct dtype *t, const char *a, int depth)
{
	struct dtype *r = t->real;

	switch (r->k) {
	case TK_INT:
		if (r->size == 1 && r->sgn && strstr(r->name, "char")) {
			char c = *a;

			if (isprint((unsigned char)c))
				fprintf(fp, "'%c'", c);
			else if (!c)
				fputs("'\\0'", fp);
			else
				fprintf(fp, "'\\%03o'", (unsigned char)c);
			break;
		}
		/* hex of the type's bytes, as dt_print_hex */
		__attribute__((fallthrough));
	case TK_PTR:
		fprintf(fp, "%#llx", mem_uint(a, r->size));
		break;
	case TK_FLOAT:
		if (r->size == 4) {
			float f;

			memcpy(&f, a, 4);
			fprintf(fp, "%+.7e", f);
		} else if (r->size == 8) {
			double d;

			memcpy(&d, a, 8);
			fprintf(fp, "%+.7e", d);
		} else {
			long double d = 0;

			memcpy(&d, a, sizeof(d) < r->size ? sizeof(d) : r->size);
			fprintf(fp, "%+.16LE", d);
		}
		break;
	case TK_ENUM: {
		long long v = (long long)(__s32)mem_uint(a, r->size);

		for (int i = 0; i < r->necs; i++)
			if (r->ecs[i].v == v) {
				fputs(r->ecs[i].name, fp);
				return;
			}
		fprintf(fp, "%d", (int)v);
		break;
	}
	case TK_STRING:
		/* a D string is a char array: quoted, bracketed inside */
		fprintf(fp, depth ? "[ \"%.*s\" ]" : "\"%.*s\"", (int)strnlen(a, r->size), a);
		break;
	case TK_ARRAY: {
		struct dtype *e = r->base;
		unsigned es = e->real->size, i;
		int str = 0;

		if (e->real->k == TK_INT && es == 1 && e->real->sgn) {
			for (i = 0; i < r->nelem && isprint((unsigned char)a[i]); i++)
				;
			str = i != r->nelem && !a[i];
		}
		if (str) {
			fprintf(fp, depth ? "[ \"%s\" ]" : "\"%s\"", a);
			break;
		}
		fputs("[ ", fp);
		for (i = 0; i < r->nelem; i++) {
			if (e->real->k == TK_STRUCT || e->real->k == TK_UNION) {
				fputc('\n', fp);
				pv_member(fp, "", e, NULL, a + i * es, depth + 1);
				if (i != r->nelem - 1)
					fputs(",", fp);
				else
					fputc('\n', fp);
			} else {
				pv_value(fp, e, a + i * es, depth + 1);
				if (i != r->nelem - 1)
					fputs(", ", fp);
			}
		}
		if (e->real->k == TK_STRUCT || e->real->k == TK_UNION)
			pv_indent(fp, depth);
		else
			fputc(' ', fp);
		fputc(']', fp);
		break;
	}
	case TK_STRUCT:
	case TK_UNION:
		fputs("{\n", fp);
		type_complete((struct dtype *)r);
		for (int i = 0; i < r->nmems; i++)
			if (!r->mems[i].alias)
				pv_member(fp, r->mems[i].name, r->mems[i].t, &r->mems[i],
					  a + r->mems[i].off, depth + 1);
		break;
	default:
		fputs("<unknown type>", fp);
		break;
	}
}

/* print(x): "type value" and a newline; a struct ends at its brace. */
static void print_value(const struct prog *p, const struct recval *r,
			const char *data, FILE *fp)
{
	struct dtype *t = r->t ? r->t : dt_int64;
	char buf[16] = { 0 };
	const char *a = data + r->off;

	if (r->type == XDT_TYPE_INT) {
		/* an integer record: the value's bytes, as wide as its type */
		__u64 v = (__u64)rec_int(data, r);
		__u8 b = (__u8)v;
		__u16 h = (__u16)v;
		__u32 w = (__u32)v;
		unsigned sz = t->real->size;

		if (sz == 1)
			memcpy(buf, &b, 1);
		else if (sz == 2)
			memcpy(buf, &h, 2);
		else if (sz == 4)
			memcpy(buf, &w, 4);
		else
			memcpy(buf, &v, 8);
		a = buf;
	} else if (r->type == XDT_TYPE_STRING) {
		char *s = xzalloc(rec_strslot(p, r) + 1);

		memcpy(s, a, rec_strslot(p, r));
		fprintf(fp, "string \"%s\"\n", s);
		free(s);
		return;
	}
	pv_member(fp, "", t, NULL, a, 0);
}


/*
 * A stack, as DTrace's dt_print_stack(): a newline, then each frame on
 * its own line indented 14 (stackindent), innermost first, up to the
 * first empty slot.
 */
int dt_frame_format(const void *pcs, unsigned nwords, unsigned i, char *buf,
		    size_t len)
{
	const unsigned char *p = pcs;
	__u64 w0 = 0, pc;

	if (nwords)
		memcpy(&w0, p, 8);
	if (XDT_IS_USYM(w0)) {
		/* ufunc() & co., sym() & co.: one name, in the form asked */
		if (i || nwords < 2)
			return 0;
		memcpy(&pc, p + 8, 8);
		if (XDT_USYM_KERNEL(XDT_USYM_FORM(w0)))
			ksyms_form(pc, XDT_USYM_FORM(w0) == XDT_KSYM_MOD, buf, len);
		else
			dt_usym_form((pid_t)(__u32)w0, pc, XDT_USYM_FORM(w0),
				     buf, len);
		return 1;
	}
	if (XDT_IS_USTACK(w0))
		i++;	/* the pid's word */
	if (i >= nwords)
		return 0;
	memcpy(&pc, p + 8 * i, 8);
	if (!pc)
		return 0;
	if (XDT_IS_USTACK(w0))
		dt_usym_format((pid_t)(__u32)w0, pc, buf, len);
	else
		ksyms_format(pc, buf, len);
	return 1;
}

unsigned print_stackindent = 14;

/* stack() and ustack() alike: a stack tells its kind by its first word. */
void print_stack(const __u64 *pcs, unsigned nframes, FILE *fp)
{
	char sym[1024];

	fputc('\n', fp);
	for (unsigned i = 0; dt_frame_format(pcs, nframes, i, sym, sizeof(sym)); i++)
		fprintf(fp, "%*s%s\n", (int)print_stackindent, "", sym);
}

void print_header(struct dt_print *pr)
{
	/* with the records, in -o's file (DTrace's oprintf to g_ofp); the
	   flowindent header even under -q, as dtrace(1)'s chew() prints it */
	if (!pr->header_done && pr->flow.on)
		fprintf(pr->orig ? pr->orig : stdout, "%3s %-41s\n", "CPU",
			"FUNCTION");
	else if (!pr->quiet && !pr->header_done)
		fprintf(pr->orig ? pr->orig : stdout, "%3s %6s %32s\n", "CPU", "ID",
			"FUNCTION:NAME");
	pr->header_done = 1;
}

/*
 * -F: DTrace's flow indentation (dt_consume.c dt_flowindent, dtrace.c
 * chew).  A probe named "entry" or "*-entry" indents what follows by two
 * and prints " -> func", one named "return" or "*-return" unindents and
 * prints " <- func" (" => "/" <= " for syscall); anything else prints
 * "| func:name" at the current depth.  DTrace's heuristics against
 * several clauses of one probe: an entry right after another EPID of the
 * same probe does not indent again, and a return followed (in the same
 * buffer) by another EPID of the same probe does not unindent yet.  One
 * depth for the whole run, across CPUs, as DTrace keeps it.
 */
static void print_flow(struct dt_print *pr, const struct xdt_eprobe *ep,
		       int cpu, FILE *fp)
{
	static const char *const e_str[2] = { " -> ", " => " };
	static const char *const r_str[2] = { " <- ", " <= " };
	struct dt_flow *f = &pr->flow;
	const char *n = ep->desc.name, *str = "| ";
	size_t len = strlen(n);
	int sys = !strcmp(ep->desc.prov, "syscall"), flow = 0;	/* 1 entry, -1 return */
	char name[XDT_FUNCNAMELEN + XDT_NAMELEN + 8 + 256];

	if (len >= 5 && !strcmp(n + len - 5, "entry") &&
	    (len == 5 || n[len - 6] == '-'))
		flow = 1;
	else if (len >= 6 && !strcmp(n + len - 6, "return") &&
		 (len == 6 || n[len - 7] == '-'))
		flow = -1;
	if (flow == 1 && f->last_epid && ep->epid != f->last_epid &&
	    ep->probe == f->last_probe)
		flow = 0;
	if (flow == -1 && f->next_epid && f->next_epid != ep->epid &&
	    f->next_probe == ep->probe)
		flow = 0;
	if (flow)
		str = flow > 0 ? e_str[sys] : r_str[sys];
	if (flow < 0 && f->indent > 0)
		f->indent -= 2;
	if (flow)
		snprintf(name, sizeof(name), "%*s%s%s", f->indent, "", str,
			 ep->desc.func);
	else
		snprintf(name, sizeof(name), "%*s%s%s:%s", f->indent, "", str,
			 ep->desc.func, ep->desc.name);
	fprintf(fp, "%3d %-41s ", cpu, name);
	if (flow > 0)
		f->indent += 2;
	f->last_epid = ep->epid;
	f->last_probe = ep->probe;
}

/*
 * One output of a record's data as DTrace prints it: trace(), printf(),
 * stack(), tracemem(), print().
 */
void print_datum(struct dt_print *pr, const struct prog *p,
		 const struct clause *c, const struct outst *o,
		 const char *data, FILE *fp)
{
	const struct recval *r = &c->recs[o->rec0];

	switch (o->k) {
	case OUT_TRACE:
		print_trace(pr, p, r, data, fp);
		break;
	case OUT_PRINTF:
		print_printf(o->pf, p, c, o->rec0, data, fp);
		break;
	case OUT_STACK:
		if (DT_IS_SYM(r->type)) {
			/*
			 * ufunc() and the like as a traced string; sym() and
			 * the like as DTrace's dt_print_sym()/_mod() print
			 */
			char sym[1024];

			dt_frame_format(data + r->off, 2, 0, sym, sizeof(sym));
			fprintf(fp, r->type == DT_TYPE_KSYM ? "  %-50s" : " %-33s",
				sym);
			break;
		}
		print_stack((const void *)(data + r->off), r->nframes, fp);
		break;
	case OUT_TRACEMEM: {
		/* tracemem(a, n, dsize): at most dsize of the n bytes */
		unsigned n = r[o->nargs - 1].nframes;

		if (o->nargs == 2) {
			long long d = rec_int(data, r);

			if (d > 0 && (unsigned long long)d < n)
				n = (unsigned)d;
		}
		print_bytes(pr, data + r[o->nargs - 1].off, n, -33, 1, fp);
		break;
	}
	case OUT_PRINT:
		print_value(p, r, data, fp);
		break;
	default:
		break;
	}
}

/* The text sink of rec_walk(): a record's text, gathered in memory */
struct text_rec {
	struct dt_print *pr;
	const struct prog *p;
	FILE *fp;
	char *out;
	size_t len;
};

static void text_datum(void *ctx, const struct clause *c,
		       const struct outst *o, const char *data)
{
	struct text_rec *t = ctx;

	print_datum(t->pr, t->p, c, o, data, t->fp);
}

static void text_printa(void *ctx, const struct outst *o, const char *buf,
			size_t size, unsigned count)
{
	struct text_rec *t = ctx;

	print_printa(t->p, &t->pr->sort, o->pf, o->aggids, o->naggids, buf,
		     size, count, t->fp);
}

/* before system(), freopen(), ftruncate(): what was printed so far goes
   out first, as in DTrace */
static void text_flush(void *ctx)
{
	struct text_rec *t = ctx;

	fclose(t->fp);
	emit(t->pr, t->out, t->len);
	free(t->out);
	t->out = NULL;
	t->len = 0;
	t->fp = open_memstream(&t->out, &t->len);
	if (!t->fp)
		dt_fatal("out of memory");
}

static void text_open(struct text_rec *t, struct dt_print *pr,
		      const struct prog *p)
{
	*t = (struct text_rec){ pr, p, NULL, NULL, 0 };
	t->fp = open_memstream(&t->out, &t->len);
	if (!t->fp)
		dt_fatal("out of memory");
}

/* One record of clause @cl, from enabled probe @ep, fired on @cpu. */
void print_record(struct dt_print *pr, const struct prog *p, int cl,
		  const struct xdt_eprobe *ep, int cpu, const char *data)
{
	static const struct dt_recsink sink = {
		.datum = text_datum, .printa = text_printa, .flush = text_flush,
	};
	const struct clause *c = &p->clauses[cl];
	char fn[XDT_FUNCNAMELEN + XDT_NAMELEN + 2];
	struct text_rec t;

	if (pr->json) {
		json_record(pr, p, cl, ep, cpu, data);
		return;
	}
	text_open(&t, pr, p);
	print_header(pr);
	if (pr->flow.on) {
		print_flow(pr, ep, cpu, t.fp);
	} else if (!pr->quiet) {
		snprintf(fn, sizeof(fn), "%s:%s", ep->desc.func, ep->desc.name);
		fprintf(t.fp, "%3d %6u %32s ", cpu, ep->probe, fn);
	}
	rec_walk(pr, p, cl, data, &sink, &t);
	fclose(t.fp);
	if (t.len)
		pr->last_nl = t.out[t.len - 1] == '\n';
	/*
	 * DTrace ends a record's line unless the record's output just did;
	 * after a stack it always does, so stacks are a blank line apart.
	 */
	if (!pr->quiet && t.len && (!pr->last_nl ||
	    (c->nouts && c->outs[c->nouts - 1].k == OUT_STACK))) {
		emit(pr, t.out, t.len);
		fputc('\n', OUT(pr));
		pr->last_nl = 1;
	} else {
		emit(pr, t.out, t.len);
	}
	free(t.out);
}

/*
 * A record's outputs as print_record() writes them after the CPU/ID/probe
 * columns, its consumer-side actions done on the way (printa() prints into
 * the text; system() and freopen() act as they do for dtrace(1)).
 */
char *print_record_text(struct dt_print *pr, const struct prog *p, int cl,
			const char *data, size_t *len)
{
	static const struct dt_recsink sink = {
		.datum = text_datum, .printa = text_printa,
	};
	struct text_rec t;

	text_open(&t, pr, p);
	rec_walk(pr, p, cl, data, &sink, &t);
	fclose(t.fp);
	*len = t.len;
	return t.out;
}

/* ---- aggregations ------------------------------------------------------- */

/*
 * How aggregations are drawn (agghist, aggpack, aggzoom, -x encoding), as
 * the consumer's options are when a printer starts; their order is the
 * walker's (agg.c).
 */
static struct dt_aggsort drawopt;
static int aggzoom;		/* drawopt.zoom: bars scaled to the largest */
static int aggutf8;		/* drawopt.utf8: bars of Unicode blocks */
static int packutf8;		/* aggpack's cells in Unicode blocks */

static void draw_opts(const struct dt_aggsort *o)
{
	drawopt = *o;
	const char *term = getenv("TERM");

	aggzoom = o->zoom;
	aggutf8 = o->utf8 > 0;
	/*
	 * aggpack draws in Unicode unless told ascii or on a terminal known
	 * not to show it (dt_print_packed's rule); with no TERM at all, as
	 * in a pipe from a guest's init, ASCII: DTrace leaves that case
	 * undefined.
	 */
	packutf8 = o->utf8 > 0 ||
		   (!o->utf8 && term && strcmp(term, "sun") &&
		    strcmp(term, "sun-color") && strcmp(term, "dumb"));
}

/*
 * The rows a distribution prints, DTrace's rule for all three: from one
 * bucket before the first non-zero to one after the last; with no data,
 * @e0..@e1 (quantize: the buckets around 0; the others: the first ones).
 */
static void hist_span(const __s64 *b, int n, int e0, int e1, int *first,
		      int *last)
{
	int f = 0, l = n - 1;

	while (f < n && !b[f])
		f++;
	if (f == n) {
		*first = e0;
		*last = e1;
		return;
	}
	if (f > 0)
		f--;
	while (l > 0 && !b[l])
		l--;
	if (l < n - 1)
		l++;
	*first = f;
	*last = l;
}

/*
 * One row's bar and count, as dt_print_quantline draws it: 40 columns of
 * '@' for all-positive data, right-aligned bars for all-negative data,
 * and 20 either side of a centre line when there are both.
 */
static void quantline(__s64 val, long double total, int pos, int neg,
		      long long normal, FILE *fp)
{
	long long shown = (long long)val / normal;	/* the bar is not */

	static const char ats[] = "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
	static const char sp[] = "                                        ";
	unsigned len = 40, depth = 0;
	long double a = val < 0 ? -(long double)val : (long double)val;

	if (!neg && pos && aggutf8) {
		/*
		 * dt_print_quantline_utf8: whole blocks U+2588, then the
		 * partial one in eighths (U+258F is one eighth, U+2589 seven),
		 * no rounding.
		 */
		long double f = a * len / total;
		unsigned whole = (unsigned)f, part = (unsigned)((f - whole) * 8), i;

		fputc('|', fp);
		for (i = 0; i < whole; i++)
			fputs("\xe2\x96\x88", fp);
		if (part) {
			unsigned cp = 0x258f - (part - 1);

			fprintf(fp, "%c%c%c", 0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f),
				0x80 | (cp & 0x3f));
			i++;
		}
		fprintf(fp, "%s %-9lld\n", sp + i, shown);
		return;
	}
	if (!neg) {
		if (pos)
			depth = (unsigned)(a * len / total + 0.5L);
		fprintf(fp, "|%s%s %-9lld\n", ats + len - depth, sp + depth,
			shown);
		return;
	}
	if (!pos) {
		depth = (unsigned)(a * len / total + 0.5L);
		fprintf(fp, "%s%s| %-9lld\n", sp + depth, ats + len - depth,
			shown);
		return;
	}
	len /= 2;
	depth = (unsigned)(a * len / total + 0.5L);
	if (val <= 0)
		fprintf(fp, "%s%s|%*s %-9lld\n", sp + 20 + depth,
			ats + 40 - depth, (int)len, "", shown);
	else
		fprintf(fp, "%20s|%s%s %-9lld\n", "", ats + 40 - depth,
			sp + 20 + depth, shown);
}

/* A row's label: a number, or "< x" / ">= x" at the open ends. */
typedef void hist_label_fn(__u64 arg, int i, int n, char *buf, size_t len);

/*
 * A bar's whole length: the sum of the rows' counts, or under aggzoom the
 * largest one over 0.95, so that it fills 95% of the bar (dt_quantize_total).
 */
static void zoom_total(long double *total, __s64 v)
{
	long double a = v < 0 ? -(long double)v : (long double)v;

	if (!aggzoom)
		*total += a;
	else if (a / 0.95L > *total)
		*total = a / 0.95L;
}

static void print_hist(const __s64 *b, int n, int e0, int e1, __u64 arg,
		       hist_label_fn *label, long long normal, FILE *fp)
{
	int first, last, i, pos = 0, neg = 0;
	long double total = 0;
	char c[40];

	hist_span(b, n, e0, e1, &first, &last);
	for (i = first; i <= last; i++) {
		pos |= b[i] > 0;
		neg |= b[i] < 0;
		zoom_total(&total, b[i]);
	}
	/* dt_print_quanthdr: the header starts with a newline */
	fprintf(fp, "\n%16s %41s %-9s\n", "value",
		"------------- Distribution -------------", "count");
	for (i = first; i <= last; i++) {
		label(arg, i, n, c, sizeof(c));
		fprintf(fp, "%16s ", c);
		quantline(b[i], total, pos, neg, normal, fp);
	}
}

static void quantize_label(__u64 arg, int i, int n, char *c, size_t len)
{
	(void)arg, (void)n;
	snprintf(c, len, "%lld", agg_bucket_value(i));
}

static void lquantize_label(__u64 arg, int i, int n, char *c, size_t len)
{
	long long base = XDT_LQ_BASE(arg), step = XDT_LQ_STEP(arg);

	if (i == 0)
		snprintf(c, len, "< %lld", base);
	else if (i == n - 1)
		snprintf(c, len, ">= %lld", base + (n - 2) * step);
	else
		snprintf(c, len, "%lld", base + (i - 1) * step);
}

static void llquantize_label(__u64 arg, int i, int n, char *c, size_t len)
{
	unsigned long long v = agg_llq_value(arg, i);

	if (i == 0)
		snprintf(c, len, "< %llu", v);
	else if (i == n - 1)
		snprintf(c, len, ">= %llu", v);
	else
		snprintf(c, len, "%llu", v);
}

/* A distribution (quantize, lquantize, llquantize), checked against its size */
static void print_dist(const struct agg *ag, const __s64 *v, unsigned nvals,
		       long long normal, FILE *fp)
{
	if (nvals != xdt_agg_nvals((__u32)ag->func, ag->arg))
		return;
	if (ag->func == XDT_AGG_QUANTIZE)
		print_hist(v, (int)nvals, XDT_QUANTIZE_ZERO - 1,
			   XDT_QUANTIZE_ZERO + 1, 0, quantize_label, normal, fp);
	else
		print_hist(v, (int)nvals, 0, ag->func == XDT_AGG_LQUANTIZE ? 2 : 1,
			   ag->arg, ag->func == XDT_AGG_LQUANTIZE ?
			   lquantize_label : llquantize_label, normal, fp);
}

/*
 * A struct key of other than 1, 2, 4 or 8 bytes: dt_print_datum() hands
 * it to dt_print_bytes() (a string if it reads as one, else a hex dump);
 * of those sizes it prints as the integer of that size.
 */
static int memkey_bytes(const struct agg *ag, int i)
{
	unsigned sz = ag->keyframes[i];

	return ag->keytype[i] == DT_TYPE_MEM && sz != 1 && sz != 2 && sz != 4 &&
	       sz != 8;
}

static void print_key(const struct agg *ag, const char *key, unsigned strsize,
		      FILE *fp)
{
	static struct dt_print kp;	/* agg keys: never quiet */
	unsigned off = 0;

	for (int i = 0; i < ag->nkeys; i++) {
		if (memkey_bytes(ag, i)) {
			print_bytes(&kp, key + off, ag->keyframes[i], -50, 0, fp);
			off += agg_keyslot(ag, i, strsize);
		} else if (ag->keytype[i] == XDT_TYPE_STRING) {
			fprintf(fp, "  %-50.*s", (int)strsize, key + off);
			off += (strsize + 7) & ~7u;
		} else if (DT_IS_SYM(ag->keytype[i])) {
			char sym[1024];

			dt_frame_format(key + off, 2, 0, sym, sizeof(sym));
			fprintf(fp, "  %-50s", sym);
			off += 16;
		} else if (DT_IS_STACK(ag->keytype[i])) {
			/* the value follows on the line after the last frame */
			print_stack((const void *)(key + off), ag->keyframes[i], fp);
			off += 8 * ag->keyframes[i];
		} else {
			/* dt_print_datum: by size, 1-4 bytes unsigned as %d */
			static const int w[9] = { 0, 3, 5, 0, 8, 0, 0, 0, 16 };
			unsigned long long v = agg_key_uint(ag, i, key + off);
			unsigned sz = ag->keyframes[i] <= 8 ? ag->keyframes[i] : 8;

			if (sz == 8 || !w[sz])
				fprintf(fp, " %16lld", (long long)v);
			else
				fprintf(fp, " %*d", w[sz], (int)(unsigned)v);
			off += 8;
		}
	}
}

/* An entry's value as DTrace prints it after its keys (dt_print_datum). */
static void print_aggval(const struct agg *ag, const __s64 *v, unsigned nvals,
			 FILE *fp)
{
	long long normal = agg_normal(ag);

	switch (ag->func) {
	case XDT_AGG_QUANTIZE:
	case XDT_AGG_LQUANTIZE:
	case XDT_AGG_LLQUANTIZE:
		print_dist(ag, v, nvals, normal, fp);
		break;
	case XDT_AGG_STDDEV:
		fprintf(fp, " %16llu", nvals >= 4 ? agg_stddev(v, normal) : 0ULL);
		break;
	case XDT_AGG_AVG:
		fprintf(fp, " %16lld", v[0] ? (long long)(v[1] / normal / v[0]) : 0LL);
		break;
	default:
		fprintf(fp, " %16lld", (long long)v[0] / normal);
	}
}

static int histable(const struct agg *ag)
{
	return drawopt.hist && (ag->func == XDT_AGG_SUM || ag->func == XDT_AGG_COUNT);
}

static int packable(const struct agg *ag)
{
	return drawopt.pack && (ag->func == XDT_AGG_QUANTIZE ||
				ag->func == XDT_AGG_LQUANTIZE);
}

/* agghist and aggpack: the keys at their packed widths (dt_print_datum) */
static const int packw[9] = { 16, 3, 5, 16, 8, 16, 16, 16, 16 };

static int packed_keywidth(const struct agg *ag)
{
	int width = 0;

	for (int k = 0; k < ag->nkeys; k++)
		width += ((ag->keytype[k] == XDT_TYPE_INT ||
			   ag->keytype[k] == DT_TYPE_MEM) && ag->keyframes[k] <= 8 ?
			  packw[ag->keyframes[k]] : 16) + 1;
	return width;
}

static void print_packed_key(const struct prog *p, const struct agg *ag,
			     const char *key, FILE *fp)
{
	static struct dt_print kp;
	unsigned off = 0;

	for (int k = 0; k < ag->nkeys; k++) {
		if (memkey_bytes(ag, k)) {
			print_bytes(&kp, key + off, ag->keyframes[k], 16, 0, fp);
			off += agg_keyslot(ag, k, p->strsize);
		} else if (ag->keytype[k] == XDT_TYPE_STRING) {
			fprintf(fp, " %16.*s", (int)p->strsize, key + off);
			off += (p->strsize + 7) & ~7u;
		} else if (DT_IS_SYM(ag->keytype[k])) {
			char sym[1024];

			dt_frame_format(key + off, 2, 0, sym, sizeof(sym));
			fprintf(fp, " %16s", sym);
			off += 16;
		} else if (DT_IS_STACK(ag->keytype[k])) {
			print_stack((const void *)(key + off), ag->keyframes[k], fp);
			off += 8 * ag->keyframes[k];
		} else {
			unsigned sz = ag->keyframes[k] <= 8 ? ag->keyframes[k] : 8;
			unsigned long long x = agg_key_uint(ag, k, key + off);

			if (sz == 8 || !sz)
				fprintf(fp, " %16lld", (long long)x);
			else
				fprintf(fp, " %*d", packw[sz], (int)(unsigned)x);
			off += 8;
		}
	}
}

/* dt_ndigits: a column's width for @v, at least 4 ("> 10" is its rule) */
static int ndigits(long long v)
{
	int r = 1;
	long long cmp = 10;

	if (v < 0) {
		v = v == LLONG_MIN ? LLONG_MAX : -v;
		r++;
	}
	while (v > cmp) {
		r++;
		/* the next power of ten would overflow (undefined, and a
		   compiler may drop a "cmp > 0" test that relied on it) */
		if (cmp > LLONG_MAX / 10)
			break;
		cmp *= 10;
	}
	return r < 4 ? 4 : r;
}

/*
 * One bucket of a packed distribution, one column (dt_print_packed): a
 * space for zero, else a level of "__xxxxXX" (or the Unicode blocks
 * U+2581..U+2588), "vvvvVV" for negative counts.
 */
static void packed_cell(__s64 v, long double total, FILE *fp)
{
	static const char ascii[] = "__xxxxXX", neg[] = "vvvvVV";

	if (!v) {
		fputc(' ', fp);
	} else if (v < 0) {
		fputc(neg[(unsigned)(-(long double)v * 5 / total + 0.5L)], fp);
	} else if (packutf8) {
		unsigned cp = 0x2581 + (unsigned)((long double)v * 7 / total + 0.5L);

		fprintf(fp, "%c%c%c", 0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f),
			0x80 | (cp & 0x3f));
	} else {
		fputc(ascii[(unsigned)((long double)v * 7 / total + 0.5L)], fp);
	}
}

/*
 * aggpack: each entry of a quantize() or lquantize() aggregation on one
 * line, a column per bucket, under one header (dt_print_quanthdr_packed).
 * quantize's columns span the buckets any entry uses, one either side
 * (dt_aggregate_minmaxbin); lquantize's are all of its buckets.
 */
static void print_aggpack(const struct prog *p, const struct dt_aggent *v,
			  unsigned n, FILE *fp)
{
	const struct agg *ag = &p->aggs[v[0].e->aggid];
	struct agg t;
	int q = ag->func == XDT_AGG_QUANTIZE;
	int width = packed_keywidth(agg_laid(ag, v[0].e, v[0].key, p->strsize, &t));
	int nb = (int)xdt_agg_nvals((__u32)ag->func, ag->arg);
	int min = -1, max = -1, hmin, hmax, minw, maxw;
	long long base = XDT_LQ_BASE(ag->arg), step = XDT_LQ_STEP(ag->arg);
	char c[40];

	if (q) {
		for (unsigned i = 0; i < n; i++) {
			if (v[i].e->nvals != (unsigned)nb)
				continue;
			for (int b = 0; b < nb; b++) {
				if (!v[i].vals[b])
					continue;
				if (min == -1 || b < min)
					min = b;
				if (b > max)
					max = b;
			}
		}
		if (min == -1)
			min = max = XDT_QUANTIZE_ZERO;
		if (min != 0 && min != XDT_QUANTIZE_ZERO)
			min--;
		if (max < nb - 1)
			max++;
		hmin = min;
		hmax = max;
		minw = ndigits(agg_bucket_value(min));
		maxw = ndigits(agg_bucket_value(max));
	} else {
		/* the header counts one column more than it draws below */
		min = 0;
		max = nb - 1;
		hmin = 1;
		hmax = nb;
		maxw = 8;
		minw = 7;
	}
	fprintf(fp, "\n%*s %*s .", width, width > 0 ? "key" : "", minw, "min");
	for (int b = hmin; b <= hmax; b++)
		fputc('-', fp);
	fprintf(fp, ". %*s | count\n", -maxw, "max");

	for (unsigned i = 0; i < n; i++) {
		long double total = 0, count = 0;
		const __s64 *b = v[i].vals;

		if (v[i].e->nvals != (unsigned)nb)
			continue;
		print_packed_key(p, agg_laid(ag, v[i].e, v[i].key, p->strsize, &t),
				 v[i].key, fp);
		if (q) {
			fprintf(fp, " %*lld :", ndigits(agg_bucket_value(min)),
				agg_bucket_value(min));
		} else {
			snprintf(c, sizeof(c), "< %lld", base);
			fprintf(fp, "%8s :", c);
		}
		for (int k = min; k <= max; k++) {
			zoom_total(&total, b[k]);
			count += b[k];
		}
		for (int k = min; k <= max; k++)
			packed_cell(b[k], total, fp);
		if (q) {
			fprintf(fp, ": %*lld | %lld\n", -ndigits(agg_bucket_value(max)),
				agg_bucket_value(max), (long long)count);
		} else {
			snprintf(c, sizeof(c), ">= %lld", base + (nb - 2) * step);
			fprintf(fp, ": %-8s | %lld\n", c, (long long)count);
		}
	}
}

/*
 * agghist: the entries of one sum() or count() aggregation drawn as one
 * distribution, a row per key (keys at their packed widths), as DTrace's
 * dt_print_aggs draws them under agghist.
 */
static void print_agghist(const struct prog *p, const struct dt_aggent *v,
			  unsigned n, FILE *fp)
{
	const struct agg *ag = &p->aggs[v[0].e->aggid];
	long double total = 0;
	struct agg t;
	int pos = 0, neg = 0;
	int width = packed_keywidth(agg_laid(ag, v[0].e, v[0].key, p->strsize, &t));

	for (unsigned i = 0; i < n; i++) {
		__s64 a = v[i].vals[0] < 0 ? -v[i].vals[0] : v[i].vals[0];

		pos |= v[i].vals[0] > 0;
		neg |= v[i].vals[0] < 0;
		/* an integer here (dt_aggregate_total's dtada_total) */
		if (!aggzoom)
			total += a;
		else if ((__s64)((long double)a * (1 / 0.95L)) > total)
			total = (__s64)((long double)a * (1 / 0.95L));
	}
	fprintf(fp, "\n%*s %41s %-9s\n", width ? width : 16,
		width ? "key" : "value",
		"------------- Distribution -------------", "count");
	for (unsigned i = 0; i < n; i++) {
		print_packed_key(p, agg_laid(ag, v[i].e, v[i].key, p->strsize, &t),
				 v[i].key, fp);
		fputc(' ', fp);
		quantline(v[i].vals[0], total, pos, neg, agg_normal(ag), fp);
	}
}

/* The text sink: what printa() and the end print write */
struct text_sink {
	const struct prog *p;
	FILE *fp;
	const struct pformat *pf;	/* printa()'s format, NULL: none */
	const int *ids;			/* printa()'s aggregations */
	int nids;
};

/* agghist and aggpack draw an aggregation's entries at once */
static int text_agg(void *ctx, int aggid, const struct dt_aggent *v,
		    unsigned n)
{
	struct text_sink *t = ctx;
	const struct agg *ag = &t->p->aggs[aggid];

	if (histable(ag))
		print_agghist(t->p, v, n, t->fp);
	else if (packable(ag))
		print_aggpack(t->p, v, n, t->fp);
	else
		return 0;
	return 1;
}

/* The default layout: the keys, then the value (dt_print_datum) */
static int text_entry(void *ctx, const struct dt_aggent *e)
{
	struct text_sink *t = ctx;
	const struct agg *ag = &t->p->aggs[e->e->aggid];
	struct agg tmp;

	print_key(agg_laid(ag, e->e, e->key, t->p->strsize, &tmp), e->key,
		  t->p->strsize, t->fp);
	print_aggval(ag, e->vals, e->e->nvals, t->fp);
	fputc('\n', t->fp);
	return 0;
}

void print_aggs(const struct prog *p, const struct dt_aggsort *o,
		const char *buf, size_t size, unsigned count, FILE *fp)
{
	static const struct dt_aggsink sink = {
		.agg_begin = text_agg, .entry = text_entry,
	};
	struct text_sink t = { .p = p, .fp = fp };

	draw_opts(o);
	/* no line between aggregations: dt_print_aggs ends each entry alone */
	agg_walk(p, buf, size, count, o, NULL, 0, &sink, &t);
}

struct printa_line {
	const struct prog *p;
	const int *ids;
	const __s64 *vals[DT_MAXPRINTA];
	unsigned nvals[DT_MAXPRINTA];
};

static int is_dist(int func)
{
	return func == XDT_AGG_QUANTIZE || func == XDT_AGG_LQUANTIZE ||
	       func == XDT_AGG_LLQUANTIZE;
}

/* %@ of a distribution draws it, after a newline (dt_print_quanthdr's) */
static int printa_dist(FILE *fp, int j, void *ctx)
{
	struct printa_line *l = ctx;
	const struct agg *ag = &l->p->aggs[l->ids[j]];

	if (!is_dist(ag->func))
		return 0;
	if (l->vals[j]) {
		print_dist(ag, l->vals[j], l->nvals[j], agg_normal(ag), fp);
	} else {
		/* a key this aggregation lacks: an empty distribution */
		__s64 *z = xzalloc(xdt_agg_nvals((__u32)ag->func, ag->arg) * 8 + 8);

		print_dist(ag, z, xdt_agg_nvals((__u32)ag->func, ag->arg),
			   agg_normal(ag), fp);
		free(z);
	}
	return 1;
}

/*
 * printa() without a format starts on a new line, and with one
 * aggregation under agghist or aggpack draws it whole.
 */
static int printa_begin(void *ctx, int aggid, const struct dt_aggent *v,
			unsigned n)
{
	struct text_sink *t = ctx;

	if (t->pf)
		return 0;
	fputc('\n', t->fp);
	return t->nids == 1 && n && text_agg(ctx, aggid, v, n);
}

/*
 * A printa() line.  With a format, the key's values are the format's
 * arguments and %@ conversions print the aggregations' values; without,
 * the default layout (keys, then each value).
 */
static void printa_row(void *ctx, const struct dt_aggrow *r)
{
	struct text_sink *t = ctx;
	const struct prog *p = t->p;
	const int *ids = t->ids;
	int nids = t->nids;
	FILE *fp = t->fp;
	const struct agg *a0 = &p->aggs[ids[0]];
	static const __s64 zero[4];
	struct pfval kv[DT_MAXKEYS], av[DT_MAXPRINTA];
	__s64 shown[DT_MAXPRINTA];
	struct printa_line l = { p, ids, { 0 }, { 0 } };
	struct pfaggs pa = { av, nids, printa_dist, &l };
	unsigned off = 0;
	struct agg tmp;
	const struct agg *ka = agg_laid(a0, r->k->e, r->k->key, p->strsize, &tmp);

	for (int j = 0; j < nids; j++) {
		const struct agg *ag = &p->aggs[ids[j]];
		const __s64 *vals = r->e[j] ? r->e[j]->vals : zero;

		l.vals[j] = r->e[j] ? r->e[j]->vals : NULL;
		l.nvals[j] = r->e[j] ? r->e[j]->e->nvals : 0;
		if (ag->func == XDT_AGG_AVG)
			shown[j] = vals[0] ? vals[1] / agg_normal(ag) / vals[0] : 0;
		else if (ag->func == XDT_AGG_STDDEV)
			shown[j] = vals == zero ? 0 :
				(__s64)agg_stddev(vals, agg_normal(ag));
		else
			shown[j] = vals[0] / agg_normal(ag);
		av[j] = (struct pfval){ NULL, &shown[j], 8 };
	}
	if (!t->pf) {
		print_key(ka, r->k->key, p->strsize, fp);
		for (int j = 0; j < nids; j++) {
			if (!printa_dist(fp, j, &l))
				fprintf(fp, " %16lld", (long long)shown[j]);
		}
		fputc('\n', fp);
		return;
	}
	for (int q = 0; q < a0->nkeys; q++) {
		if (a0->keytype[q] == XDT_TYPE_STRING) {
			kv[q] = (struct pfval){ NULL, r->k->key + off, p->strsize };
			off += (p->strsize + 7) & ~7u;
		} else if (a0->keytype[q] == DT_TYPE_KSYM) {
			/* its address, after the tag word (lower_printa) */
			kv[q] = (struct pfval){ NULL, r->k->key + off + 8, 8 };
			off += 16;
		} else if (DT_IS_STACK(a0->keytype[q])) {
			kv[q] = (struct pfval){ NULL, r->k->key + off,
						a0->keyframes[q] };
			off += 8 * a0->keyframes[q];
		} else if (a0->keytype[q] == DT_TYPE_MEM) {
			kv[q] = (struct pfval){ a0->keyt[q], r->k->key + off,
						a0->keyframes[q] };
			off += agg_keyslot(a0, q, p->strsize);
		} else {
			kv[q] = (struct pfval){ ka->keyt[q], r->k->key + off, 8 };
			off += 8;
		}
	}
	pf_format(fp, t->pf, kv, a0->nkeys, &pa);
}

/* printa(): the aggregations @ids[0..nids-1] joined on their keys. */
void print_printa(const struct prog *p, const struct dt_aggsort *o,
		  const struct pformat *pf, const int *ids, int nids,
		  const char *buf, size_t size, unsigned count, FILE *fp)
{
	static const struct dt_aggsink sink = {
		.agg_begin = printa_begin, .row = printa_row,
	};
	struct text_sink t = { p, fp, pf, ids, nids };

	draw_opts(o);
	agg_walk_joined(p, buf, size, count, o, ids, nids, &sink, &t);
}
