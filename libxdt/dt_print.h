/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_print.h - the consumer's output: the walkers over records (rec.c)
 * and aggregations (agg.c, with the totals the consumer keeps across
 * snapshots), and their sinks: DTrace's text (print.c), -x oformat=json
 * (json.c) and the structured API (consumer.c).
 */
#ifndef XDT_DT_PRINT_H
#define XDT_DT_PRINT_H

#include "../compiler/dt_program.h"

struct dt_print {
	int quiet;
	int rawbytes;		/* -x rawbytes: every byte range as a hex dump */
	FILE *orig;		/* -o's file, NULL: stdout */
	FILE *out;		/* where records go now (freopen()), NULL: orig */
	int header_done;
	int last_nl;		/* the last character printed was '\n' */
	int exit_status;	/* the value exit() recorded */
	struct dt_aggtab *aggs;	/* the aggregation totals (agg.c) */
	/* setopt(): the consumer sets the option; nonzero if it cannot */
	int (*setopt)(void *ctx, const char *name, const char *val);
	void *ctx;
	struct dt_aggsort {	/* aggsortkey, aggsortrev, aggsortkeypos, aggsortpos;
				   agghist, aggzoom, aggpack (they print, too) */
		int key, rev, keypos, pos;
		int hist, zoom, pack;
		int utf8;	/* -x encoding: 1 utf8, -1 ascii, 0 unset */
		int none;	/* not sorted: as the snapshot has them */
	} sort;			/* sorting: agg.c's; drawing: print.c's */
	int json;		/* -x oformat=json (docs/json.md) */
	/*
	 * -F / -x flowindent (DTrace's dt_flowindent): the indentation, the
	 * last record's EPID and probe, and the record after this one in its
	 * buffer (0: none), which a return looks at before unindenting.
	 */
	struct dt_flow {
		int on, indent;
		__u32 last_epid, last_probe;
		__u32 next_epid, next_probe;
	} flow;
};

/* ---- print.c: DTrace's text, the walkers' text sinks --------------------- */
void print_header(struct dt_print *pr);
/* a record as dtrace(1) prints it (JSON's under -x oformat=json) */
void print_record(struct dt_print *pr, const struct prog *p, int cl,
		  const struct xdt_eprobe *ep, int cpu, const char *data);
/* ... and its text without the CPU/ID/probe columns (xdt_record_consume) */
char *print_record_text(struct dt_print *pr, const struct prog *p, int cl,
			const char *data, size_t *len);
/* one output of the record's data (a dt_recsink's datum) as text */
void print_datum(struct dt_print *pr, const struct prog *p,
		 const struct clause *c, const struct outst *o,
		 const char *data, FILE *fp);
void print_printf(const struct pformat *pf, const struct prog *p,
		  const struct clause *c, int rec0, const char *data, FILE *fp);
/* the end's aggregations, and printa()'s */
void print_aggs(const struct prog *p, const struct dt_aggsort *o,
		const char *buf, size_t size, unsigned count, FILE *fp);
void print_printa(const struct prog *p, const struct dt_aggsort *o,
		  const struct pformat *pf, const int *ids, int nids,
		  const char *buf, size_t size, unsigned count, FILE *fp);
void print_stack(const __u64 *pcs, unsigned nframes, FILE *fp);
extern unsigned print_stackindent;	/* -x stackindent: 14, DTrace's */
void print_bytes(struct dt_print *pr, const char *c, size_t n, int width,
		 int raw, FILE *fp);

/* ---- rec.c: the record walker ------------------------------------------ */
struct dt_recsink {
	/* an output that prints the record's data: trace(), printf(),
	   stack(), tracemem(), print() (@o: which, its format, its values) */
	void (*datum)(void *ctx, const struct clause *c, const struct outst *o,
		      const char *data);
	/* printa(): the totals of @o's aggregations now (aggtab_layout()'s) */
	void (*printa)(void *ctx, const struct outst *o, const char *buf,
		       size_t size, unsigned count);
	/* system(), freopen(), ftruncate() act next: what was printed so far
	   goes out first (NULL: it stays the sink's) */
	void (*flush)(void *ctx);
};
void rec_walk(struct dt_print *pr, const struct prog *p, int cl,
	      const char *data, const struct dt_recsink *s, void *ctx);
struct xdt_value;
void rec_value(const struct prog *p, const struct recval *r,
	       const char *data, struct xdt_value *v);
FILE *rec_out(const struct dt_print *pr);

/* ---- json.c: -x oformat=json, one object a line ------------------------ */
struct jw {
	FILE *fp;
	int depth;
	int n[16];		/* members so far, per open level */
};
void jw_strn_raw(FILE *fp, const char *s, size_t n);
void jw_obj(struct jw *w, const char *k);
void jw_arr(struct jw *w, const char *k);
void jw_end(struct jw *w, int arr);
void jw_str(struct jw *w, const char *k, const char *s);
void jw_strn(struct jw *w, const char *k, const char *s, size_t n);
void jw_int(struct jw *w, const char *k, long long v);
void jw_uint(struct jw *w, const char *k, unsigned long long v);
void jw_stack(struct jw *w, const char *k, const char *p, unsigned nframes);
/* a record, and aggregations (those of @ids, printa()'s; else all) */
void json_record(struct dt_print *pr, const struct prog *p, int cl,
		 const struct xdt_eprobe *ep, int cpu, const char *data);
void json_aggs(const struct prog *p, const struct dt_aggsort *o,
	       const char *buf, size_t size, unsigned count, FILE *fp,
	       const int *ids, int nids);

/* ---- agg.c: the consumer's aggregation totals --------------------------- */
struct dt_aggtab;
struct dt_aggtab *aggtab_new(void);
void aggtab_free(struct dt_aggtab *t);
void aggtab_fold(struct dt_aggtab *t, const struct prog *p, const char *buf,
		 size_t size, unsigned count);
char *aggtab_layout(const struct dt_aggtab *t, const char *want, size_t *size,
		    unsigned *count, size_t **pos);
void aggtab_clear(struct dt_aggtab *t, int aggid);
void aggtab_trunc(struct dt_aggtab *t, const struct prog *p, int aggid,
		  long long keep);

/*
 * The aggregation walker: a snapshot (aggtab_layout()'s) in DTrace's
 * order, handed to a sink.  An entry as it comes: the kernel's layout,
 * and what it sorts by.
 */
struct dt_aggent {
	const struct xdt_aggent *e;	/* aggid, keylen, nvals */
	const char *key;
	const __s64 *vals;
	long double sortval, zero;
};
/* printa()'s line: a key, and each joined aggregation's entry for it */
struct dt_aggrow {
	const struct dt_aggent *k;		/* the key's first entry */
	const struct dt_aggent *e[DT_MAXPRINTA];	/* NULL: that one lacks it */
};
struct dt_aggsink {
	/* an aggregation begins: all its entries at once, for the layouts
	   that draw them together (agghist, aggpack, JSON's object);
	   nonzero: they are done, no entry() or row() calls follow */
	int (*agg_begin)(void *ctx, int aggid, const struct dt_aggent *v,
			 unsigned n);
	/* one entry (agg_walk()); nonzero stops the walk */
	int (*entry)(void *ctx, const struct dt_aggent *e);
	void (*agg_end)(void *ctx, int aggid);
	/* one joined line (agg_walk_joined()) */
	void (*row)(void *ctx, const struct dt_aggrow *r);
};
int agg_walk(const struct prog *p, const char *buf, size_t size,
	     unsigned count, const struct dt_aggsort *sort, const int *ids,
	     int nids, const struct dt_aggsink *s, void *ctx);
void agg_walk_joined(const struct prog *p, const char *buf, size_t size,
		     unsigned count, const struct dt_aggsort *sort,
		     const int *ids, int nids, const struct dt_aggsink *s,
		     void *ctx);
/* what a sink needs of an entry: values as DTrace computes them */
struct xdt_aggentry;
struct xdt_aggbucket;
void agg_decode(const struct prog *p, const struct dt_aggent *e,
		struct xdt_aggentry *d, struct xdt_aggbucket *b);
unsigned long long agg_stddev(const __s64 *v, long long normal);
long long agg_normal(const struct agg *ag);
long long agg_bucket_value(int b);
__u64 agg_llq_value(__u64 arg, int i);
const struct agg *agg_laid(const struct agg *ag, const struct xdt_aggent *e,
			   const char *key, unsigned strsize, struct agg *tmp);
unsigned long long agg_key_uint(const struct agg *ag, int i, const char *p);
/* Key @i's bytes in an entry's key: the kernel's slot, a multiple of 8 */
unsigned agg_keyslot(const struct agg *ag, int i, unsigned strsize);
long long dt_typed_int(const struct dtype *t, const char *p, int *uns);

#endif
