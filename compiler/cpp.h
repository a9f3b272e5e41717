/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cpp.h - `dtrace -C`: the C preprocessor over a D script (cpp.c).
 */
#ifndef XDT_CPP_H
#define XDT_CPP_H

#include <stddef.h>

/*
 * Run the C preprocessor (mcpp: $XDT_CPP, else `mcpp` on PATH) over the
 * script text @src, named @name in line markers and messages (NULL:
 * "<stdin>").  @argv[0..@argc) are extra preprocessor options, already in
 * preprocessor form: "-Dname", "-Dname=value", "-Uname", "-Idir" (or the
 * option and its operand as two elements), and "-H" (print the files
 * #included to stderr, one ". path" line each, a dot per nesting level),
 * and "-Xa", "-Xc", "-Xs" or "-Xt": DTrace's -X, the conformance to ISO C
 * and the value of __STDC__ (the last one given; "-Xa" by default).
 * DTrace's predefined macros come first (__linux, __SUNW_D, the machine's
 * ISA macro...); the options apply in order, so -U undoes a predefined or
 * an earlier -D, and a later -D wins over an earlier -U.
 *
 * Returns the malloc'd, NUL-terminated output, with line markers of the
 * form `#line N "file"` (file a C string literal: \" and \\ escaped) that
 * say which script line the next output line comes from; warnings go to
 * stderr.  On failure returns NULL with a one-line-per-message reason in
 * @err (the preprocessor's diagnostics as "name:line: error: ...", or
 * "mcpp not found: ...").
 */
char *dt_cpp(const char *src, const char *name, char *const *argv, int argc,
	     char *err, size_t errlen);

#endif
