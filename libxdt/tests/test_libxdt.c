// SPDX-License-Identifier: GPL-2.0
/*
 * libxdt's compile half as a library user sees it: errors are values
 * (file, line, column, DTrace's tag), the process goes on, and a handle
 * compiles again after an error.  Then a run on the host VM: the
 * aggregations through xdt_aggwalk() (raw) and xdt_aggsnapshot()
 * (decoded, in DTrace's order).  Prints one line per check; the host test
 * (tests/host/test_compiler.py) compares them.
 */
#define _POSIX_C_SOURCE 200809L	/* strnlen */
#include <stdio.h>
#include <string.h>
#include "libxdt.h"

static int discard(xdt_hdl_t *h, const struct xdt_record *r, void *arg)
{
	(void)h, (void)r, (void)arg;
	return 0;
}

/* a raw entry: its aggregation, its string key (if any), its first value */
static int raw(const struct xdt_aggdata *d, void *arg)
{
	(void)arg;
	printf("raw: @%s %.*s %u %lld\n", d->name, (int)strnlen(d->key, d->ent->keylen),
	       d->key, d->ent->nvals, (long long)d->vals[0]);
	return 0;
}

static int decoded(const struct xdt_aggentry *e, void *arg)
{
	(void)arg;
	printf("entry: @%s %s %d %s %lld\n", e->name, e->func, e->nkeys,
	       e->nkeys ? e->keys[0].s : "-", e->value);
	return 0;
}

static void hostvm_aggs(void)
{
	xdt_hdl_t *h = xdt_open();
	struct xdt_consumer c = { .record = discard };
	struct xdt_cerror e;

	if (!h) {
		printf("hostvm: no handle\n");
		return;
	}
	xdt_setopt(h, "hostvm", NULL);
	xdt_setopt(h, "quiet", NULL);
	if (xdt_compile(h, "BEGIN { @a[\"x\"] = count(); @a[\"y\"] = count(); "
			"@a[\"y\"] = count(); @b = sum(5); exit(0); }", "c", 0, &e) ||
	    xdt_go(h)) {
		printf("hostvm: %s\n", xdt_errmsg(h));
		return;
	}
	while (xdt_work(h, &c) == XDT_WORK_OKAY)
		;
	if (xdt_stop(h, &c) || xdt_aggwalk(h, raw, NULL) ||
	    xdt_aggsnapshot(h, decoded, NULL))
		printf("hostvm: %s\n", xdt_errmsg(h));
	xdt_close(h);
}

/*
 * The buffer read interval under load (consumer.c's dt_drain_next, an
 * internal of the library, declared here as dt_consumer.h has it): at 1 s
 * and 256 KiB, the first read 100 ms after GO; reads that find a buffer
 * half full or dropping come 4x closer down to 10 ms; reads that find
 * every buffer under an eighth full go back up, doubling, to the
 * switchrate and no further.
 */
long long dt_drain_next(long long cur_ns, long long switch_ns, size_t fill,
			size_t bufsize, int dropped);

static void drain_interval(void)
{
	const long long sw = 1000000000LL;
	const size_t buf = 256 << 10;
	long long t = 0;
	int i;

	printf("drain:");
	/* the first read, then a light load */
	t = dt_drain_next(t, sw, 0, buf, 0);
	printf(" %lld", t / 1000000);
	t = dt_drain_next(t, sw, 1000, buf, 0);
	printf(" %lld", t / 1000000);
	/* half full, twice, then drops while at the floor */
	for (i = 0; i < 5; i++) {
		t = dt_drain_next(t, sw, i < 2 ? buf / 2 : 0, buf, i >= 2);
		printf(" %lld", t / 1000000);
	}
	/* between an eighth and a half: kept */
	t = dt_drain_next(t, sw, buf / 4, buf, 0);
	printf(" %lld", t / 1000000);
	/* quiet: back up, doubling, to the switchrate */
	for (i = 0; i < 8; i++) {
		t = dt_drain_next(t, sw, buf / 8 - 1, buf, 0);
		printf(" %lld", t / 1000000);
	}
	/* a switchrate under the floor, or under the first read's, is kept */
	printf(" | %lld %lld\n", dt_drain_next(0, 5000000, 0, buf, 0) / 1000000,
	       dt_drain_next(5000000, 5000000, buf, buf, 1) / 1000000);
}

int main(void)
{
	xdt_hdl_t *h = xdt_open();
	struct xdt_cerror e;
	int r;

	if (!h) {
		printf("no handle\ndone\n");
		return 0;
	}
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
	hostvm_aggs();
	drain_interval();
	/* the end, reached whatever failed on the way (no call exits) */
	printf("done\n");
	return 0;
}
