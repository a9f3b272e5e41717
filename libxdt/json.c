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
 */
#include <stdio.h>
#include <string.h>
#include "dt_print.h"

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
