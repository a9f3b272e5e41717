// SPDX-License-Identifier: GPL-2.0
/*
 * lex.c - D tokens, with line:column for every message.  Compile errors
 * are raised through diag.c; #pragma lines are read by pragma.c.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "dt_lex.h"

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

/*
 * Only blanks before @lx's position on its line?  A control line is
 * DTrace's ^[\f\t\v ]*# (dt_lex.l's RGX_CTL): indented ones too.
 */
static int line_start(struct lexer *lx)
{
	for (size_t i = lx->pos; i > 0; i--) {
		char ch = lx->src[i - 1];

		if (ch == '\n')
			return 1;
		if (ch != ' ' && ch != '\t' && ch != '\f' && ch != '\v')
			return 0;
	}
	return 1;
}

/* the control line's directive word, after '#' and blanks */
static const char *directive(struct lexer *lx, size_t *n)
{
	const char *p = lx->src + lx->pos + 1;

	while (*p == ' ' || *p == '\t')
		p++;
	*n = 0;
	while (isalnum((unsigned char)p[*n]) || p[*n] == '_')
		(*n)++;
	return p;
}

/*
 * Control lines D reads without a preprocessor: line markers, #pragma,
 * #ident, #error, and #! on the first line, indented or not; anything else
 * (#define, #include) needs -C.  #pragma lines are pragma.c's.
 */
static int control_ok(struct lexer *lx)
{
	size_t n;
	const char *d = directive(lx, &n);

	if (lx->pos == 0 && lx->src[1] == '!')
		return 1;
	if (n == 0 || isdigit((unsigned char)*d))
		return 1;		/* "# 12 "file"" or a lone '#' */
	if ((n == 4 && !strncmp(d, "line", 4)) || (n == 5 && !strncmp(d, "ident", 5)))
		return 1;
	if (n == 6 && !strncmp(d, "pragma", 6))
		return dt_pragma(lx, d + 6);
	if (n == 5 && !strncmp(d, "error", 5))
		return dt_pragma(lx, d);	/* D_PRAGERR, as "#pragma error" */
	return 0;
}

static _Noreturn void control_err(struct lexer *lx)
{
	size_t n;
	const char *d = directive(lx, &n);

	dt_cerrt(lx, DT_D_PRAGCTL_INVAL, lx->line, lx->col,
		 "invalid control directive: #%.*s", (int)n, d);
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
		} else if (c == '#' && line_start(lx)) {
			if (!control_ok(lx))
				control_err(lx);
			/*
			 * "# N "file"" / "#line N "file"": a preprocessor's line
			 * marker (dtrace -C); #! and #pragma lines are read by
			 * the option pass and skipped here.
			 */
			const char *p = lx->src + lx->pos + 1;
			char *end;
			long n;

			while (*p == ' ' || *p == '\t')
				p++;
			if (!strncmp(p, "line", 4))
				p += 4;
			n = strtol(p, &end, 10);
			if (end != p && n > 0) {
				const char *q = end;

				while (*q == ' ' || *q == '\t')
					q++;
				if (*q == '"') {
					const char *e = strchr(q + 1, '"');

					if (e && e - q - 1 > 0 && memchr(q, '\n', (size_t)(e - q)) == NULL)
						lx->fname = xstrndup(q + 1, (size_t)(e - q - 1));
				}
				/* the next line is line n */
				lx->lineoff = (int)n - (lx->line + 1);
			}
			while (cur(lx) && cur(lx) != '\n')
				adv(lx);
		} else if (c == '/' && at(lx, 1) == '/') {
			while (cur(lx) && cur(lx) != '\n')
				adv(lx);
		} else {
			return;
		}
	}
}

/*
 * The escapes of C, as DTrace's lexer takes them: X(letter, byte).
 * Octal (\0 .. \377, up to three digits) and hex (\x and every hex digit
 * after it, the low byte kept) are read by escape() itself.
 */
#define LEX_ESCAPES(X) \
	X('n', '\n') X('t', '\t') X('r', '\r') X('a', '\a') X('b', '\b')	\
	X('f', '\f') X('v', '\v') X('\\', '\\') X('"', '"') X('\'', '\'')	\
	X('?', '?')

static int hexval(int c)
{
	return isdigit(c) ? c - '0' : isxdigit(c) ? tolower(c) - 'a' + 10 : -1;
}

/*
 * The bytes one escape (after its backslash) stands for, stored at @out:
 * returns how many (1, or 2 for an escape C does not have, which keeps
 * its backslash as DTrace's stresc2chr() does: "\q" is two bytes).
 */
static int escape(struct lexer *lx, char *out)
{
	static const char from[] = {
#define X(c, b) c,
		LEX_ESCAPES(X)
#undef X
	}, to[] = {
#define X(c, b) b,
		LEX_ESCAPES(X)
#undef X
	};
	int c = cur(lx), v;

	adv(lx);
	for (size_t i = 0; i < sizeof(from); i++)
		if (c == from[i]) {
			out[0] = to[i];
			return 1;
		}
	if (c >= '0' && c <= '7') {
		v = c - '0';
		for (int i = 0; i < 2 && cur(lx) >= '0' && cur(lx) <= '7'; i++) {
			v = v * 8 + cur(lx) - '0';
			adv(lx);
		}
		out[0] = (char)v;
		return 1;
	}
	if (c == 'x') {
		for (v = 0; hexval(cur(lx)) >= 0; adv(lx))
			v = v * 16 + hexval(cur(lx));
		out[0] = (char)v;
		return 1;
	}
	out[0] = '\\';
	out[1] = (char)c;
	return 2;
}

static const struct { const char *s; enum tok t; } puncts[] = {
	{ "<<=", T_SHLEQ }, { ">>=", T_SHREQ }, { "...", T_ELLIPSIS },
	{ "++", T_INC }, { "--", T_DEC }, { "->", T_ARROW }, { "+=", T_ADDEQ },
	{ "-=", T_SUBEQ }, { "*=", T_MULEQ }, { "/=", T_DIVEQ }, { "%=", T_MODEQ },
	{ "&=", T_ANDEQ }, { "|=", T_OREQ }, { "^=", T_XOREQ }, { ".", T_DOT },
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
	} else if (isalpha(c) || c == '_' || c == '$' || c == '@' || c == '`') {
		/*
		 * identifiers, $macros ($1 $$1 $pid $target), @aggs, and
		 * scoped names: D`record, vmlinux`jiffies, `jiffies
		 */
		t->t = c == '@' ? T_AGG : T_IDENT;
		adv(lx);
		if (c == '$' && cur(lx) == '$')
			adv(lx);
		for (;;) {
			while (isalnum(cur(lx)) || cur(lx) == '_')
				adv(lx);
			if (c == '@' || c == '$' || cur(lx) != '`' ||
			    !(isalpha(at(lx, 1)) || at(lx, 1) == '_'))
				break;
			adv(lx);
		}
		t->s = xstrndup(lx->src + start + (c == '@'),
				lx->pos - start - (c == '@'));
	} else if (isdigit(c)) {
		char *end;

		errno = 0;
		t->ival = (long long)strtoull(lx->src + start, &end, 0);
		t->radix = c != '0' ? 10 : (lx->src[start + 1] == 'x' ||
					    lx->src[start + 1] == 'X') ? 16 : 8;
		if (errno == ERANGE)
			dt_cerrt(lx, DT_D_INT_OFLOW, t->line, t->col,
				 "integer constant \"%.*s\" is too large",
				 (int)(end - (lx->src + start)), lx->src + start);
		if (t->radix == 8) {
			for (const char *q = lx->src + start; q < end; q++)
				if (*q == '8' || *q == '9')
					dt_cerrt(lx, DT_D_INT_DIGIT, t->line, t->col,
						 "invalid digit '%c' in octal constant", *q);
			if (isdigit((unsigned char)*end))
				dt_cerrt(lx, DT_D_INT_DIGIT, t->line, t->col,
					 "invalid digit '%c' in octal constant", *end);
		}
		if (isalpha((unsigned char)*end) || *end == '_') {
			/* integer suffixes u, l, ul, ll, ull */
			while (*end && strchr("uUlL", *end)) {
				if (*end == 'u' || *end == 'U')
					t->isuns = 1;
				else
					t->islong++;
				end++;
			}
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
				dt_cerrt(lx, DT_D_STR_NL, t->line, t->col,
					 "newline encountered in string literal");
			adv(lx);
			if (n + 3 > cap)
				s = xrealloc(s, cap *= 2);
			if (ch == '\\')
				n += escape(lx, s + n);
			else
				s[n++] = (char)ch;
		}
		adv(lx);
		s[n] = 0;
		t->t = T_STR;
		t->s = s;
		t->len = n;
	} else if (c == '\'') {
		/*
		 * A character constant is an int of its bytes, the first the
		 * most significant ('ab' is 0x6162), as DTrace packs them: up
		 * to the 8 bytes of its 64-bit value.
		 */
		unsigned char b[10];
		int n = 0;

		adv(lx);
		while (cur(lx) != '\'') {
			int ch = cur(lx);
			char e[2];
			int k = 1;

			if (!ch || ch == '\n')
				dt_cerrt(lx, DT_D_CHR_NL, t->line, t->col,
					 "newline encountered in character constant");
			adv(lx);
			if (ch == '\\')
				k = escape(lx, e);
			else
				e[0] = (char)ch;
			for (int i = 0; i < k; i++) {
				if (n == 8)
					dt_cerrt(lx, DT_D_CHR_OFLOW, t->line, t->col,
						 "character constant is too long");
				b[n++] = (unsigned char)e[i];
			}
		}
		adv(lx);
		if (!n)
			dt_cerrt(lx, DT_D_CHR_NULL, t->line, t->col,
				 "empty character constant");
		t->t = T_INT;
		t->radix = 10;
		for (int i = 0; i < n; i++)
			t->ival = (long long)((unsigned long long)t->ival << 8 | b[i]);
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
