// SPDX-License-Identifier: GPL-2.0
/*
 * diag.c - the compile error reporter (message, source line, caret; the
 * error as a value for libxdt), and the allocation helpers both halves
 * use.
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "dt_lex.h"

void *xzalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		dt_fatal("out of memory");
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		dt_fatal("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		dt_fatal("out of memory");
	return d;
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
