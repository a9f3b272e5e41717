// SPDX-License-Identifier: GPL-2.0
/*
 * pragma.c - #pragma lines, which the lexer hands over whole: D's own
 * (attributes, depends_on, binding, ident, option) are checked as DTrace
 * checks them; others are ignored, as DTrace ignores them.  Options are
 * not applied here: libxdt's option pass reads `#pragma D option` lines
 * before compiling, so they take effect before the program is.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "dt_tree.h"

/*
 * #pragma D error: DTrace's D_PRAGERR, its message the directive's
 * identifiers and strings (quotes off), each followed by a space, as
 * DTrace's dt_pragma_error() joins them.  @p is what follows "error".
 */
static _Noreturn void pragma_error(struct lexer *lx, const char *p)
{
	char msg[256] = "";
	size_t n = 0;

	while (*p && *p != '\n') {
		const char *q = p + 1;

		if (isspace((unsigned char)*p)) {
			p++;
			continue;
		}
		if (*p == '"') {
			while (*q && *q != '"' && *q != '\n')
				q += *q == '\\' && q[1] ? 2 : 1;
			n += (size_t)snprintf(msg + n, n < sizeof(msg) ? sizeof(msg) - n : 0,
					      "%.*s ", (int)(q - p - 1), p + 1);
			p = *q == '"' ? q + 1 : q;
			continue;
		}
		while (*q && !isspace((unsigned char)*q) && *q != '"')
			q++;
		if (isalpha((unsigned char)*p) || *p == '_')
			n += (size_t)snprintf(msg + n, n < sizeof(msg) ? sizeof(msg) - n : 0,
					      "%.*s ", (int)(q - p), p);
		p = q;
	}
	dt_cerrt(lx, DT_D_PRAGERR, lx->line, lx->col, "#error: %s", msg);
}

/*
 * The providers xdt.ko has (providers/providers.c, and stable.c's three;
 * tests/host/test_dref.py keeps the lists together): what "#pragma D
 * depends_on provider" finds, with the USDT providers the program
 * declares.  pid's probes come per process, so "pid" is not a provider.
 */
static const char *const xdt_providers[] = {
	"dtrace", "fbt", "kinst", "profile", "syscall", "rawtp",
	"proc", "sched", "io",
};

static int provider_known(const struct lexer *lx, const char *name)
{
	for (size_t i = 0; i < sizeof(xdt_providers) / sizeof(xdt_providers[0]); i++)
		if (!strcmp(name, xdt_providers[i]))
			return 1;
	for (int i = 0; lx->prog && i < lx->prog->nproviders; i++)
		if (!strcmp(lx->prog->providers[i].name, name))
			return 1;
	return 0;
}

/*
 * "#pragma D depends_on library F", as DTrace: only a D library file may
 * say it, and F is a file of that library's own directory (libxdt's
 * load_libs compiles F first).
 */
static int depends_on_library(struct lexer *lx, const char *lib)
{
	const char *slash = strrchr(lx->name, '/');
	char path[4096];

	if (!lx->library)
		dt_cerrt(lx, DT_D_PRAGMA_DEPEND, lx->line, lx->col,
			 "main program may not explicitly depend on a library");
	snprintf(path, sizeof(path), "%.*s%s", slash ? (int)(slash - lx->name + 1) : 0,
		 lx->name, lib);
	if (access(path, R_OK))
		dt_cerrt(lx, DT_D_PRAGMA_DEPEND, lx->line, lx->col,
			 "program requires library %s", lib);
	return 1;
}

/*
 * #pragma D attributes A NAME: NAME's attributes are A (a D variable or
 * inline of the program's; one declared later gets them when it is, and
 * one never declared is D_PRAGMA_UNUSED when the program ends), and
 * "provider P provider|module|function|name|args": a part of provider
 * P's, a USDT provider the program defines above or one of xdt's own
 * (for this program), as DTrace's dt_pragma_attributes() does.
 */
static int pragma_attributes(struct lexer *lx, char (*w)[64], int nw)
{
	static const char *const parts[] = { "provider", "module", "function",
		"name", "args" };
	struct prog *p = lx->prog;
	struct dattr a;
	struct dvar *v;

	if (nw < 4)
		dt_cerrt(lx, DT_D_PRAGMA_MALFORM, lx->line, lx->col,
			 "malformed #pragma attributes <attributes> <ident>");
	if (dt_str2attr(w[2], &a))
		dt_cerrt(lx, DT_D_PRAGMA_INVAL, lx->line, lx->col,
			 "invalid attributes specified by #pragma attributes");
	if (!strcmp(w[3], "provider")) {
		const struct dpattr *known = p ? dt_provider_attr(p, w[4]) : NULL;
		struct dprovider *usdt = NULL;
		struct dpattr *pa;
		int k;

		if (nw < 6)
			dt_cerrt(lx, DT_D_PRAGMA_MALFORM, lx->line, lx->col,
				 "malformed #pragma attributes <attributes> <ident>");
		for (k = 0; p && k < p->nproviders; k++)
			if (!strcmp(p->providers[k].name, w[4]))
				usdt = &p->providers[k];
		if (p && !usdt && !provider_known(lx, w[4]))
			dt_cerrt(lx, DT_D_PRAGMA_UNUSED, lx->line, lx->col,
				 "invalid name in #pragma attributes: "
				 "provider %s is not defined", w[4]);
		for (k = 0; k < 5 && strcmp(parts[k], w[5]); k++)
			;
		if (k == 5)
			dt_cerrt(lx, DT_D_PRAGMA_INVAL, lx->line, lx->col,
				 "invalid component \"%s\" in attribute #pragma "
				 "for provider %s", w[5], w[4]);
		if (!p)
			return 1;
		if (usdt) {
			pa = &usdt->attr;
		} else {
			/* xdt's own provider: this program's copy of its row */
			int i;

			for (i = 0; i < p->npovr && strcmp(p->povr[i].name, w[4]); i++)
				;
			if (i == p->npovr) {
				p->povr = xrealloc(p->povr, (p->npovr + 1) * sizeof(*p->povr));
				snprintf(p->povr[i].name, sizeof(p->povr[i].name), "%s", w[4]);
				p->povr[i].a = *known;
				p->npovr++;
			}
			pa = &p->povr[i].a;
		}
		(&pa->prov)[k] = a;
		return 1;
	}
	if (!p)
		return 1;
	if (sema_reserved(w[3]))
		dt_cerrt(lx, DT_D_PRAGMA_SCOPE, lx->line, lx->col,
			 "#pragma attributes cannot modify entity defined "
			 "outside program scope");
	if ((v = var_lookup(p, XDT_VAR_GLOBAL, w[3]))) {
		v->attr = a;
		return 1;
	}
	for (int i = 0; i < p->ninlines; i++) {
		if (!strcmp(p->inlines[i]->name, w[3])) {
			p->inlines[i]->attr = a;
			return 1;
		}
	}
	/* not declared (yet): DTrace keeps it for the declaration */
	p->pending = xrealloc(p->pending, (p->npending + 1) * sizeof(*p->pending));
	p->pending[p->npending].name = xstrdup(w[3]);
	p->pending[p->npending].a = a;
	p->pending[p->npending].line = lx->line;
	p->pending[p->npending].col = lx->col;
	p->npending++;
	return 1;
}

int dt_pragma(struct lexer *lx, const char *p)
{
	const char *start = p;
	char w[6][64] = { "" };
	int nw = 0;

	while (nw < 6) {
		size_t k = 0;

		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p || *p == '\n')
			break;
		while (p[k] && !isspace((unsigned char)p[k]))
			k++;
		snprintf(w[nw++], sizeof(w[0]), "%.*s", (int)k, p);
		p += k;
	}
	/* #error, #pragma error and #pragma D error are all DTrace's */
	if (!strcmp(w[0], "error"))
		pragma_error(lx, strstr(start, "error") + 5);
	/*
	 * #pragma line N ["file"], illumos' directive form of #line: the
	 * next line is line N (of file), in every message after it.
	 */
	if (!strcmp(w[0], "line")) {
		char *end;
		long n = strtol(w[1], &end, 10);
		size_t k = strlen(w[2]);

		if (nw < 2 || nw > 3 || end == w[1] || *end || n <= 0 ||
		    (nw == 3 && (k < 2 || w[2][0] != '"' || w[2][k - 1] != '"')))
			dt_cerrt(lx, DT_D_PRAGMA_MALFORM, lx->line, lx->col,
				 "malformed #pragma line");
		if (nw == 3)
			lx->fname = xstrndup(w[2] + 1, k - 2);
		lx->lineoff = (int)n - (lx->line + 1);
		return 1;
	}
	if (nw == 0 || strcmp(w[0], "D"))
		return 1;	/* not D's: ignored, as DTrace does */
	if (!strcmp(w[1], "option") || !strcmp(w[1], "binding") ||
	    !strcmp(w[1], "ident"))
		return 1;
	if (!strcmp(w[1], "attributes"))
		return pragma_attributes(lx, w, nw);
	if (!strcmp(w[1], "error"))
		pragma_error(lx, strstr(strchr(start, 'D') + 1, "error") + 5);
	if (!strcmp(w[1], "depends_on")) {
		if (nw < 4)
			dt_cerrt(lx, DT_D_PRAGMA_MALFORM, lx->line, lx->col,
				 "malformed #pragma depends_on");
		if (!strcmp(w[2], "library"))
			return depends_on_library(lx, w[3]);
		if (!strcmp(w[2], "provider") && !provider_known(lx, w[3]))
			dt_cerrt(lx, DT_D_PRAGMA_DEPEND, lx->line, lx->col,
				 "program requires provider %s", w[3]);
		if (strcmp(w[2], "provider") && strcmp(w[2], "module"))
			dt_cerrt(lx, DT_D_PRAGMA_INVAL, lx->line, lx->col,
				 "invalid class %s specified by #pragma depends_on", w[2]);
		return 1;
	}
	dt_cerrt(lx, DT_D_PRAGMA_INVAL, lx->line, lx->col,
		 "invalid control directive: #pragma D %s", w[1]);
}
