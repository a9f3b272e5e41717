// SPDX-License-Identifier: GPL-2.0
/*
 * libxdt's compile half as a library user sees it: errors are values
 * (file, line, column, DTrace's tag), the process goes on, and a handle
 * compiles again after an error.  Prints one line per check; the host test
 * (qemu-tests/test_compiler.py) compares them.
 */
#include <stdio.h>
#include <string.h>
#include "libxdt.h"

int main(void)
{
	xdt_hdl_t *h = xdt_open();
	struct xdt_cerror e;
	int r;

	r = xdt_compile(h, "BEGIN\n{\n\tx = 1 +;\n}\n", "bad.d", 1, &e);
	printf("bad: %d %s %s:%d:%d: %s | %s\n", r, e.tagname, e.file, e.line,
	       e.col, e.msg, e.srcline);
	r = xdt_compile(h, "BEGIN { trace(nosuch); }", "<cmdline>", 0, &e);
	printf("undef: %d %s %d:%d %s\n", r, e.tagname, e.line, e.col, e.msg);
	r = xdt_compile(h, "#pragma D option nosuchopt\nBEGIN {}", "p.d", 1, &e);
	printf("pragma: %d %s %d %s\n", r, e.tagname, e.line, e.msg);
	r = xdt_setopt(h, "bufsize", "0");
	printf("setopt: %d %s\n", r, xdt_errmsg(h));
	r = xdt_setopt(h, "dynvarsize", "2m");
	printf("setopt ok: %d\n", r);
	r = xdt_compile(h, "int x; BEGIN { x = 2; self->y = x * 3; }", "a", 0, &e);
	printf("good: %d\n", r);
	r = xdt_compile(h, "END /x == 2/ { trace(self->y); exit(0); }", "b", 0, &e);
	printf("second: %d\n", r);
	/* the failed texts left nothing behind: 2 clauses, 2 variables */
	printf("program: %d clauses\n", xdt_nclauses(h));
	xdt_close(h);
	return 0;
}
