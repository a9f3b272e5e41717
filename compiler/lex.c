// SPDX-License-Identifier: GPL-2.0
/*
 * lex.c - D tokens, with line:column for every message, and the compile
 * error reporter (message, source line, caret).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "dt.h"

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

_Noreturn void dt_fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

/*
 * "dtrace: failed to compile script F:L:C: msg", then the source line and a
 * caret under column C (tabs copied so the caret lines up in a terminal).
 */
_Noreturn void dt_cerr(struct lexer *lx, int line, int col, const char *fmt, ...)
{
	const char *s = lx->src, *e;
	va_list ap;
	int l = 1, i;

	fprintf(stderr, "dtrace: failed to compile script %s:%d:%d: ", lx->name,
		line, col);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	while (l < line && *s) {
		if (*s++ == '\n')
			l++;
	}
	e = strchr(s, '\n');
	if (!e)
		e = s + strlen(s);
	fprintf(stderr, "%.*s\n", (int)(e - s), s);
	for (i = 1; i < col && s + i - 1 < e; i++)
		fputc(s[i - 1] == '\t' ? '\t' : ' ', stderr);
	fputs("^\n", stderr);
	exit(1);
}

void lex_init(struct lexer *lx, const char *name, const char *src)
{
	memset(lx, 0, sizeof(*lx));
	lx->name = name;
	lx->src = src;
	lx->line = 1;
	lx->col = 1;
}

static int cur(struct lexer *lx)
{
	return (unsigned char)lx->src[lx->pos];
}

static int at(struct lexer *lx, size_t off)
{
	size_t i;

	for (i = 0; i < off; i++)
		if (!lx->src[lx->pos + i])
			return 0;
	return (unsigned char)lx->src[lx->pos + off];
}

static void adv(struct lexer *lx)
{
	if (!lx->src[lx->pos])
		return;
	if (lx->src[lx->pos] == '\n') {
		lx->line++;
		lx->col = 1;
	} else {
		lx->col++;
	}
	lx->pos++;
}

void lex_skipspace(struct lexer *lx)
{
	for (;;) {
		int c = cur(lx);

		if (c && isspace(c)) {
			adv(lx);
		} else if (c == '/' && at(lx, 1) == '*') {
			int line = lx->line, col = lx->col;

			adv(lx);
			adv(lx);
			while (cur(lx) && !(cur(lx) == '*' && at(lx, 1) == '/'))
				adv(lx);
			if (!cur(lx))
				dt_cerr(lx, line, col, "end-of-file encountered before the end of a comment");
			adv(lx);
			adv(lx);
		} else if ((c == '/' && at(lx, 1) == '/') ||
			   (c == '#' && lx->col == 1)) {
			/* // comments, and #! / #pragma lines we ignore */
			while (cur(lx) && cur(lx) != '\n')
				adv(lx);
		} else {
			return;
		}
	}
}

static int escape(struct lexer *lx)
{
	int c = cur(lx), v;

	adv(lx);
	switch (c) {
	case 'n': return '\n';
	case 't': return '\t';
	case 'r': return '\r';
	case 'a': return '\a';
	case 'b': return '\b';
	case 'f': return '\f';
	case 'v': return '\v';
	case '0': case '1': case '2': case '3':
	case '4': case '5': case '6': case '7':
		v = c - '0';
		for (int i = 0; i < 2 && cur(lx) >= '0' && cur(lx) <= '7'; i++) {
			v = v * 8 + cur(lx) - '0';
			adv(lx);
		}
		return v & 0xff;
	default:
		return c;	/* \\ \" \' and anything else stands for itself */
	}
}

static const struct { const char *s; enum tok t; } puncts[] = {
	{ "||", T_OROR }, { "&&", T_ANDAND }, { "==", T_EQ }, { "!=", T_NE },
	{ "<=", T_LE }, { ">=", T_GE }, { "<<", T_SHL }, { ">>", T_SHR },
	{ "(", T_LPAR }, { ")", T_RPAR }, { "{", T_LBRACE }, { "}", T_RBRACE },
	{ "[", T_LBRACK }, { "]", T_RBRACK }, { ",", T_COMMA }, { ";", T_SEMI },
	{ "?", T_QUEST }, { ":", T_COLON }, { "=", T_ASSIGN }, { "|", T_OR },
	{ "^", T_XOR }, { "&", T_AND }, { "<", T_LT }, { ">", T_GT },
	{ "+", T_PLUS }, { "-", T_MINUS }, { "*", T_STAR }, { "/", T_DIV },
	{ "%", T_MOD }, { "!", T_NOT }, { "~", T_TILDE },
};

void lex_next(struct lexer *lx)
{
	struct token *t = &lx->tok;
	size_t start;
	int c;

	lex_skipspace(lx);
	memset(t, 0, sizeof(*t));
	t->line = lx->line;
	t->col = lx->col;
	start = lx->pos;
	t->start = lx->src + start;
	c = cur(lx);
	if (!c) {
		t->t = T_EOF;
	} else if (isalpha(c) || c == '_' || c == '$' || c == '@') {
		/* identifiers, $macros ($1 $$1 $pid $target) and @aggs */
		t->t = c == '@' ? T_AGG : T_IDENT;
		adv(lx);
		if (c == '$' && cur(lx) == '$')
			adv(lx);
		while (isalnum(cur(lx)) || cur(lx) == '_')
			adv(lx);
		t->s = strndup(lx->src + start + (c == '@'),
			       lx->pos - start - (c == '@'));
	} else if (isdigit(c)) {
		char *end;

		errno = 0;
		t->ival = (long long)strtoull(lx->src + start, &end, 0);
		if (isalpha((unsigned char)*end) || *end == '_') {
			/* integer suffixes u, l, ul, ll, ull */
			while (strchr("uUlL", *end) && *end)
				end++;
		}
		while (lx->src + lx->pos < end)
			adv(lx);
		if (isalnum(cur(lx)) || cur(lx) == '_') {
			while (isalnum(cur(lx)) || cur(lx) == '_')
				adv(lx);
			t->srclen = lx->pos - start;
			dt_cerr(lx, t->line, t->col, "invalid integer constant \"%.*s\"",
				(int)t->srclen, t->start);
		}
		t->t = T_INT;
	} else if (c == '"') {
		size_t cap = 16, n = 0;
		char *s = xzalloc(cap);

		adv(lx);
		while (cur(lx) != '"') {
			int ch = cur(lx);

			if (!ch || ch == '\n')
				dt_cerr(lx, t->line, t->col, "newline encountered in string literal");
			adv(lx);
			if (ch == '\\')
				ch = escape(lx);
			if (n + 2 > cap)
				s = xrealloc(s, cap *= 2);
			s[n++] = (char)ch;
		}
		adv(lx);
		s[n] = 0;
		t->t = T_STR;
		t->s = s;
		t->len = n;
	} else if (c == '\'') {
		adv(lx);
		c = cur(lx);
		adv(lx);
		if (c == '\\')
			c = escape(lx);
		if (cur(lx) != '\'')
			dt_cerr(lx, t->line, t->col, "invalid character constant");
		adv(lx);
		t->t = T_INT;
		t->ival = (signed char)c;
	} else {
		size_t i;

		for (i = 0; i < sizeof(puncts) / sizeof(puncts[0]); i++) {
			size_t n = strlen(puncts[i].s);

			if (!strncmp(lx->src + start, puncts[i].s, n)) {
				t->t = puncts[i].t;
				while (n--)
					adv(lx);
				break;
			}
		}
		if (i == sizeof(puncts) / sizeof(puncts[0]))
			dt_cerr(lx, t->line, t->col, "invalid input character '%c'", c);
	}
	t->srclen = lx->pos - start;
}

struct token lex_peek(struct lexer *lx)
{
	struct lexer save = *lx;
	struct token t;

	lex_next(lx);
	t = lx->tok;
	*lx = save;
	return t;
}

/*
 * A probe description is not made of D tokens ("pid$target:libc.so.7::entry",
 * "syscall::*read*:"), so read it raw up to a space or one of , / { ; and
 * return its length (0 = none here).
 */
int lex_probedesc(struct lexer *lx, char *out, size_t cap, int *line, int *col)
{
	size_t n = 0;

	lex_skipspace(lx);
	*line = lx->line;
	*col = lx->col;
	while (cur(lx) && !isspace(cur(lx)) && !strchr(",/{;", cur(lx))) {
		if (n + 1 >= cap)
			dt_cerr(lx, *line, *col, "probe description too long");
		out[n++] = (char)cur(lx);
		adv(lx);
	}
	out[n] = 0;
	return (int)n;
}
