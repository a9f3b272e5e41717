// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - the compile error reporter (message, source line, caret; the
 * error as a value for libxdt), and the allocation helpers both halves
 * use.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "dt_lex.h"

/*
 * Zones: what x*alloc() hands out while a zone is current (dt_zone_cur)
 * belongs to it, and dt_zone_free() frees whatever of it is left -- a
 * handle's compiled trees, which nothing frees one by one.  xfree() and
 * xrealloc() take any heap pointer and keep the zone's account of it.
 * The account is one table for every zone, open addressing keyed by the
 * block's address: a block carries no header, so memory from a zone may
 * still go to code that knows nothing of zones, as long as that code
 * frees it with xfree().  Process-wide caches (the kernel's BTF and the
 * types converted from it, ksyms) are filled with no zone current.
 */
struct dt_zone {
	size_t nblocks;		/* live blocks, for the tests' accounting */
};

struct zslot {
	void *p;		/* NULL: empty; ZDEAD: deleted */
	struct dt_zone *z;
};
#define ZDEAD ((void *)&ztab)

static struct zslot *ztab;
static size_t zcap, zused;	/* slots; slots not empty (live or dead) */
struct dt_zone *dt_zone_cur;

static size_t zhash(const void *p)
{
	uintptr_t v = (uintptr_t)p >> 4;

	v ^= v >> 17;
	v *= 0x9e3779b97f4a7c15ull;
	return (size_t)(v >> 7);
}

static struct zslot *zfind(const void *p)
{
	if (!zcap || !p)
		return NULL;
	for (size_t i = zhash(p) & (zcap - 1);; i = (i + 1) & (zcap - 1)) {
		if (ztab[i].p == p)
			return &ztab[i];
		if (!ztab[i].p)
			return NULL;
	}
}

/* room for one more block: 0, or -1 (out of memory, nothing changed) */
static int zgrow(void)
{
	size_t ncap = zcap ? zcap : 1024, live = 0;
	struct zslot *nt;

	if ((zused + 1) * 2 <= zcap)
		return 0;
	for (size_t i = 0; i < zcap; i++)
		live += ztab[i].p && ztab[i].p != ZDEAD;
	while ((live + 1) * 4 > ncap)
		ncap *= 2;
	nt = calloc(ncap, sizeof(*nt));
	if (!nt)
		return -1;
	for (size_t i = 0; i < zcap; i++) {
		size_t k;

		if (!ztab[i].p || ztab[i].p == ZDEAD)
			continue;
		for (k = zhash(ztab[i].p) & (ncap - 1); nt[k].p; k = (k + 1) & (ncap - 1))
			;
		nt[k] = ztab[i];
	}
	free(ztab);
	ztab = nt;
	zcap = ncap;
	zused = live;
	return 0;
}

/* @p (just allocated) joins zone @z; on failure @p is freed, unwinding */
static void *zadd(void *p, struct dt_zone *z)
{
	size_t i;

	if (!z)
		return p;
	if (zgrow()) {
		free(p);
		dt_fatal("out of memory");
	}
	for (i = zhash(p) & (zcap - 1); ztab[i].p && ztab[i].p != ZDEAD;
	     i = (i + 1) & (zcap - 1))
		;
	zused += !ztab[i].p;
	ztab[i] = (struct zslot){ p, z };
	z->nblocks++;
	return p;
}

struct dt_zone *dt_zone_new(void)
{
	return calloc(1, sizeof(struct dt_zone));
}

struct dt_zone *dt_zone_enter(struct dt_zone *z)
{
	struct dt_zone *was = dt_zone_cur;

	dt_zone_cur = z;
	return was;
}

size_t dt_zone_blocks(const struct dt_zone *z)
{
	return z ? z->nblocks : 0;
}

void dt_zone_free(struct dt_zone *z)
{
	if (!z)
		return;
	if (dt_zone_cur == z)
		dt_zone_cur = NULL;
	for (size_t i = 0; i < zcap && z->nblocks; i++)
		if (ztab[i].p && ztab[i].p != ZDEAD && ztab[i].z == z) {
			free(ztab[i].p);
			ztab[i].p = ZDEAD;
			z->nblocks--;
		}
	free(z);
}

void xfree(void *p)
{
	struct zslot *s = zfind(p);

	if (s) {
		s->z->nblocks--;
		s->p = ZDEAD;
	}
	free(p);
}

void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		dt_fatal("out of memory");
	return zadd(p, dt_zone_cur);
}

/* a block keeps its zone (or its having none) across a move */
void *xrealloc(void *p, size_t n)
{
	struct zslot *s = zfind(p);
	struct dt_zone *z = s ? s->z : p ? NULL : dt_zone_cur;
	void *q;

	if (z && zgrow())	/* before the move: it cannot be undone */
		dt_fatal("out of memory");
	s = zfind(p);		/* (zgrow may have moved the table) */
	q = realloc(p, n ? n : 1);
	if (!q)
		dt_fatal("out of memory");
	if (s) {
		s->p = ZDEAD;
		z->nblocks--;
	}
	return zadd(q, z);
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		dt_fatal("out of memory");
	return zadd(d, dt_zone_cur);
}

char *xstrndup(const char *s, size_t n)
{
	char *d = strndup(s, n);

	if (!d)
		dt_fatal("out of memory");
	return zadd(d, dt_zone_cur);
}

/*
 * An error that is not a place in the source (out of memory): unwinds to
 * the library call that is running (dt_errjmp), as a compile error does,
 * with the message in dt_lasterr (line 0, tag DT_FATAL); with no call to
 * unwind to, the message and exit(1).
 */
_Noreturn void dt_fatal(const char *fmt, ...)
{
	struct dt_error *e = &dt_lasterr;
	va_list ap;

	memset(e, 0, sizeof(*e));
	e->tag = DT_FATAL;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	if (dt_errjmp)
		longjmp(*dt_errjmp, 1);
	fprintf(stderr, "dtrace: %s\n", e->msg);
	exit(1);
}

jmp_buf *dt_errjmp;
struct dt_error dt_lasterr;
int dt_errtags;

const char *dt_errtag_name(int tag)
{
	static const char *const names[] = {
#define DT_TAGNAME(t) #t,
		DT_ERRTAGS(DT_TAGNAME)
#undef DT_TAGNAME
	};
	return tag >= 0 && tag < DT_NERRTAGS ? names[tag] : "D_UNKNOWN";
}

/*
 * "dtrace: failed to compile script F:L:C: msg", then the source line and a
 * caret under column C (tabs copied so the caret lines up in a terminal).
 * Under -x errtags, DTrace's "F: [TAG] line L: msg" with the column kept
 * after the line ("line L:C:"), so scripts that match DTrace's form still
 * match.
 */
void dt_error_print(const struct dt_error *e, FILE *fp)
{
	const char *s = e->srcline;
	int i;

	if (dt_errtags)
		fprintf(fp, "dtrace: failed to compile script %s: [%s] line %d:%d: %s\n",
			e->file, dt_errtag_name(e->tag), e->line, e->col, e->msg);
	else
		fprintf(fp, "dtrace: failed to compile script %s:%d:%d: %s\n",
			e->file, e->line, e->col, e->msg);
	fprintf(fp, "%s\n", s);
	for (i = 1; i < e->col && s[i - 1]; i++)
		fputc(s[i - 1] == '\t' ? '\t' : ' ', fp);
	fputs("^\n", fp);
}

static _Noreturn void verr(struct lexer *lx, int tag, int line, int col,
			   const char *fmt, va_list ap)
{
	struct dt_error *e = &dt_lasterr;
	const char *s = lx->src, *end;
	int l = 1;

	memset(e, 0, sizeof(*e));
	e->tag = tag;
	snprintf(e->file, sizeof(e->file), "%s", lx->fname ? lx->fname : lx->name);
	e->line = line + lx->lineoff;
	e->col = col;
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	while (l < line && *s) {
		if (*s++ == '\n')
			l++;
	}
	end = strchr(s, '\n');
	if (!end)
		end = s + strlen(s);
	snprintf(e->srcline, sizeof(e->srcline), "%.*s", (int)(end - s), s);
	if (dt_errjmp)
		longjmp(*dt_errjmp, 1);
	dt_error_print(e, stderr);
	exit(1);
}

_Noreturn void dt_cerr(struct lexer *lx, int line, int col, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(lx, DT_D_SYNTAX, line, col, fmt, ap);
}

_Noreturn void dt_cerrt(struct lexer *lx, int tag, int line, int col,
			const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verr(lx, tag, line, col, fmt, ap);
}
