/* SPDX-License-Identifier: GPL-2.0 */
/*
 * libxdt - the D compiler and /dev/xdt consumer as a library, in the
 * spirit of libdtrace: open a handle, set options, compile D (errors come
 * back as values with file:line:column and DTrace's tag), enable and go,
 * then call xdt_work() as often as the switch rate wants: each call
 * drains every CPU's buffer and hands each record, drop and error to the
 * handle's callbacks (by default DTrace's printers).  Stop, walk the
 * aggregations, close.  dtrace(1) (cmd/dtrace/main.c) is a thin wrapper of it; the
 * Lua front end and the bench tools link it too.
 *
 * One handle compiles at a time in a process (the type table is the
 * process's), and a handle is used from one thread.
 */
#ifndef LIBXDT_H
#define LIBXDT_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <linux/types.h>
#include "xdt.h"

typedef struct xdt_hdl xdt_hdl_t;

/* A compile error as a value. */
struct xdt_cerror {
	int tag;			/* DTrace's diagnostic tag (enum dt_errtag) */
	const char *tagname;		/* "D_SYNTAX", ... */
	char file[256];
	int line, col;
	char msg[512];
	char srcline[512];		/* the line it is on, for a caret */
};

/* One record of a clause that fired. */
struct xdt_record {
	int cpu;
	const struct xdt_eprobe *ep;	/* probe and EPID */
	int clause;			/* the compiled clause that ran */
	const char *data;		/* header + values (layout: the clause's) */
	__u32 size;
};

/* One dtrace:::ERROR report. */
struct xdt_fault {
	const struct xdt_eprobe *ep;	/* the ECB that faulted, or NULL */
	__u64 action;			/* 0 = predicate, n = the n-th action */
	__u64 pc;			/* DIF offset */
	__u64 kind;			/* enum xdt_fault_kind */
	__u64 addr;
	const char *what;		/* "invalid address", ... */
};

/* One aggregation entry (summed over CPUs). */
struct xdt_aggdata {
	const struct xdt_aggent *ent;	/* aggid, keylen, nvals */
	const char *name;		/* "" for @ */
	const char *key;
	const __s64 *vals;
};

/* Per-CPU drops, DTrace's two kinds (the others are counted in status) */
enum xdt_dropkind { XDT_DROP_PRINCIPAL, XDT_DROP_AGGREGATION };

/* Callbacks; NULL members get DTrace's printers. Return nonzero to stop. */
struct xdt_consumer {
	int (*record)(xdt_hdl_t *h, const struct xdt_record *r, void *arg);
	int (*fault)(xdt_hdl_t *h, const struct xdt_fault *f, void *arg);
	/* a CPU's drops since the last report (DTrace's dt_handle_cpudrop) */
	void (*drop)(xdt_hdl_t *h, enum xdt_dropkind kind, int cpu, __u64 n,
		     void *arg);
	void *arg;
};

enum { XDT_WORK_OKAY = 0, XDT_WORK_DONE = 1, XDT_WORK_ERROR = -1 };

xdt_hdl_t *xdt_open(void);
void xdt_close(xdt_hdl_t *h);
/* The D language version, as DTrace's dtrace -V names it: "Sun D 1.13" */
const char *xdt_version(void);
/* The last error of a call that returned -1 (not compile errors). */
const char *xdt_errmsg(const xdt_hdl_t *h);

/*
 * dtrace -l: the probes each of @m[0..@n) matches, in DTrace's columns on
 * stdout (@verbose: argument types and insertion mechanisms too).  0; 1
 * if a description matched nothing (said on stderr, the others are still
 * listed); -1 with xdt_errmsg() if /dev/xdt could not be asked.
 */
int xdt_list_probes(xdt_hdl_t *h, const struct xdt_probedesc *m, int n,
		    int verbose);

/* dtrace -i: the description of probe @id, 0; -1 (xdt_errmsg) if none */
int xdt_probe_desc(xdt_hdl_t *h, unsigned id, struct xdt_probedesc *d);

/* -x NAME[=VALUE] (DTrace's option names); -1 with xdt_errmsg(). */
int xdt_setopt(xdt_hdl_t *h, const char *name, const char *value);
/* $1.. macro arguments, $target, the preprocessor (-C) and its options */
void xdt_set_macros(xdt_hdl_t *h, char **argv, int argc);
void xdt_set_target(xdt_hdl_t *h, pid_t pid);
/*
 * Probe description @desc with its macro variables ($1, $$1, $pid, $target
 * ...) replaced as the compiler replaces them, into @out (@cap bytes):
 * dtrace -l -n's.  0, or -1 with xdt_errmsg().
 */
int xdt_desc_expand(xdt_hdl_t *h, const char *desc, char *out, size_t cap);
/*
 * Whether the compiled program names probes in process @pid (the pid
 * provider's pid<PID>): they are made from the image the process runs when
 * tracing starts, so dtrace -c lets its command exec first.
 */
int xdt_uses_process(xdt_hdl_t *h, pid_t pid);
/*
 * A command the caller holds ptrace-stopped at its new image's first
 * instruction (dtrace -c): if it is dynamically linked, run it on to its
 * entry point, where the loader has mapped its libraries, so that pid
 * probes and ustack()'s names see them.  0, or -1 with xdt_errmsg().
 */
int xdt_run_to_entry(xdt_hdl_t *h, pid_t pid);
void xdt_set_cpp(xdt_hdl_t *h, int on, char **args, int nargs);
/* Where the default printers write (dtrace -o): @fp, not stdout. */
void xdt_set_output(xdt_hdl_t *h, FILE *fp);

/*
 * Compile D text (@name: the file name in messages; @file: it came from
 * -s).  0, or -1 with the error in @err.  Callable several times (-n -s
 * ...), each adds clauses; its #pragma D options apply first.
 */
int xdt_compile(xdt_hdl_t *h, const char *src, const char *name, int file,
		struct xdt_cerror *err);
/* How many clauses the handle has compiled so far (xdt_record.clause
   indexes them). */
int xdt_nclauses(const xdt_hdl_t *h);
/*
 * dtrace -v: xdt_go() prints each -n/-s text's stability report after
 * its "matched" notice; xdt_stability_report() prints them all now (-e),
 * each description followed by its probe's attributes and types.
 */
void xdt_set_verbose(xdt_hdl_t *h, int on);
void xdt_stability_report(xdt_hdl_t *h);
/* Print the program's DIF (dtrace -S). */
void xdt_dis(xdt_hdl_t *h, FILE *fp);
/*
 * dtrace -h: write to @fp a C header for the compiled program's USDT
 * provider definitions (libxdt/usdt.c); @name names it (its include
 * guard).  0, or -1 (xdt_errmsg) when there are none or writing failed.
 */
int xdt_header(xdt_hdl_t *h, FILE *fp, const char *name);
/* Once everything is compiled: warn on stderr of each option named (-x,
   #pragma D option) that xdt accepts but does not act on. */
void xdt_warn_unimplemented(xdt_hdl_t *h);

/* Enable the compiled program and start tracing (BEGIN fires). */
int xdt_go(xdt_hdl_t *h);
/*
 * Anonymous tracing (dtrace -A, dtrace -a: core/portable/anon.c, libxdt/anonymous.c).
 * xdt_anon_save: the compiled program, first enabled and dropped again so
 * that the kernel checks it and matches its probes now, saved with the
 * options and sources that made it as @path (NULL: XDT_ANON_PATH), which
 * xdt.ko starts as it loads; *@replaced: one was there.  Probes of a
 * process (pid, USDT) and a target (-c, -p) are refused.
 * xdt_anon_remove: 1 removed, 0 there was none.
 * xdt_grabanon (xdt_go() under -x grabanon, dtrace -a's option): instead
 * of xdt_go(), with nothing compiled: claim the
 * enabling xdt.ko started, compile its sources again and check that they
 * give the object it runs; then xdt_work(), xdt_stop() and the rest as
 * after xdt_go(), the records traced since the load first.
 * Each: 0, or -1 with xdt_errmsg().
 */
int xdt_anon_save(xdt_hdl_t *h, const char *path, int *replaced);
int xdt_anon_remove(xdt_hdl_t *h, const char *path);
int xdt_grabanon(xdt_hdl_t *h);
/* Drain every CPU once, delivering through @c (NULL: print).  DONE once
   exit() ran. */
int xdt_work(xdt_hdl_t *h, const struct xdt_consumer *c);
/* Stop tracing (END fires) and drain what is left. */
int xdt_stop(xdt_hdl_t *h, const struct xdt_consumer *c);
/* Walk an aggregation snapshot; @fn NULL: print them as DTrace does. */
int xdt_aggwalk(xdt_hdl_t *h, int (*fn)(const struct xdt_aggdata *, void *),
		void *arg);
int xdt_status(xdt_hdl_t *h, struct xdt_status *st);
/* The end's report of drops and errors (stderr; JSON objects too) */
void xdt_report_drops(xdt_hdl_t *h, const struct xdt_status *st);
/* exit()'s value once tracing is done (dtrace(1)'s exit status) */
int xdt_exit_status(const xdt_hdl_t *h);
/* the run-time options the CLI's loop reads */
long xdt_switchrate_us(const xdt_hdl_t *h);
/*
 * Sleep until the next xdt_work() is due: the switch rate (or @max_us if
 * that is shorter and not negative), or sooner when the kernel holds a
 * traced process for the consumer (a pid$target program whose process
 * dlopen()s an object: its probes are made in the next xdt_work(), before
 * the process goes on) or a signal comes.  0, or -1 (errno).
 */
int xdt_wait(xdt_hdl_t *h, long max_us);

/*
 * Structured consumers (the Lua bindings, lua/): a record's values and the
 * aggregations as typed values instead of DTrace's text.  The same
 * decoding -x oformat=json writes (docs/json.md).
 */
enum xdt_vkind {
	XDT_VAL_INT,		/* an integer (i; uns: of an unsigned type) */
	XDT_VAL_STRING,		/* a D string: s, len bytes (no NUL) */
	XDT_VAL_STACK,		/* stack()/%k: pcs[0..nframes), innermost
				   first, up to the first 0 */
	XDT_VAL_MEMORY,		/* tracemem(), a struct traced: s, len bytes */
};
struct xdt_value {
	enum xdt_vkind kind;
	const char *name;	/* the D expression recorded, as written
				   (blanks folded); NULL for keys and stack() */
	const char *type;	/* its D type: "int", "uint64_t", "string", ... */
	long long i;
	int uns;
	const char *s;
	size_t len;
	const void *pcs;	/* 8-byte frames, unaligned-safe: memcpy them */
	unsigned nframes;
};
/* How many values a record carries, and the @i-th (0.. ; -1 if none). */
int xdt_record_nvalues(xdt_hdl_t *h, const struct xdt_record *r);
int xdt_record_value(xdt_hdl_t *h, const struct xdt_record *r, int i,
		     struct xdt_value *v);
/*
 * What DTrace's consumer does with a record besides printing it: printa()
 * (into the text), clear(), trunc(), normalize(), setopt(), system(),
 * freopen(), exit()'s status.  Call it once for every record a callback
 * takes; it returns the text DTrace would print for the record, without
 * the CPU/ID/probe columns (malloc'd, @len bytes; NUL-terminated).
 */
char *xdt_record_consume(xdt_hdl_t *h, const struct xdt_record *r, size_t *len);
/* A kernel address as DTrace prints a frame: module`symbol+0xoff */
void xdt_ksym(__u64 pc, char *buf, size_t len);
/*
 * Frame @i of an XDT_VAL_STACK value, a stack()'s (type "stack") or a
 * ustack()'s (type "ustack": pcs[0] is XDT_USTACK_TAG | the pid, so its
 * frames are pcs[1..]), as DTrace prints it; 0 past the last frame.
 */
int xdt_frame(const struct xdt_value *v, unsigned i, char *buf, size_t len);
/* A compile error as dtrace(1) prints it (with -x errtags' tag, a caret) */
void xdt_cerror_print(const xdt_hdl_t *h, const struct xdt_cerror *e, FILE *fp);

/* An aggregation entry, decoded, as DTrace prints it */
struct xdt_aggbucket {
	long long value;	/* the row DTrace prints (its lower bound) */
	long long count;
	int bound;		/* -1: values below value, 1: value and above */
};
#define XDT_AGG_MAXKEYS 10
struct xdt_aggentry {
	int aggid;
	const char *name;	/* without @; "" for @ */
	const char *func;	/* "count", "sum", ..., "llquantize" */
	int nkeys;
	struct xdt_value keys[XDT_AGG_MAXKEYS];
	long long value;	/* count, sum, min, max, avg, stddev, as printed
				   (normalize()'s factor applied) */
	long long count, sum;	/* avg, stddev: what the value comes from */
	int nbuckets;		/* distributions: buckets that hold anything */
	const struct xdt_aggbucket *buckets;
};
/*
 * A snapshot of every aggregation now (the kernel's data folded in first),
 * each entry in DTrace's print order (the aggsort* options apply); @fn
 * returns nonzero to stop.  0, or -1 with xdt_errmsg().
 */
int xdt_aggsnapshot(xdt_hdl_t *h, int (*fn)(const struct xdt_aggentry *, void *),
		    void *arg);

/*
 * Kernel function @func's BTF id in the running kernel's BTF: vmlinux's,
 * else a loaded module's (its name, or "vmlinux", into @module).  1 found,
 * 0 no FUNC of that name, -1 the kernel has no BTF.  (The bench's fentry
 * attach uses it: one BTF reader for xdt.)
 */
int xdt_btf_func(const char *func, unsigned *id, char *module, size_t len);

#endif
