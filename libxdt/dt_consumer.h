/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_consumer.h - libxdt's inside: the handle behind libxdt.h (libxdt.c:
 * options, compiling through the front end), loading the program
 * (prog.c) and running it through /dev/xdt or the host VM (consumer.c),
 * and the kernel's symbols (ksyms.c).  The front end is reached only
 * through compiler/dt_program.h.
 */
#ifndef XDT_DT_CONSUMER_H
#define XDT_DT_CONSUMER_H

#include "../compiler/dt_program.h"
#include "hostvm.h"
#include "dt_print.h"

/* ---- prog.c: the program object /dev/xdt loads (xdt_pobj.h) ----------- */
void *prog_blob(const struct prog *p, size_t *size);

/* ---- ksyms.c: kernel addresses -> module`function+0xoff ---------------- */

/* ---- uproc.c: the pid provider's probes, made in a live process ---------- */
/* @d's process when its provider is pid<PID>, else 0. */
pid_t dt_uproc_pid(const struct xdt_probedesc *d);
/*
 * Make what @d names in its process through /dev/xdt's @fd (nothing when
 * @d is not a pid provider's): 0, or -1 with why in @err, which -x errtags
 * starts with DTrace's tag and @where ("line 3:1: ", the description's
 * place, or ""); -2 (and why) when no object of the process matches its
 * module, which -Z accepts.  While tracing, the kernel binds the new
 * probes to the running clauses that match them: *@bound (if not NULL)
 * gets how many enabled probes that made.
 */
int dt_uprobes_make(int fd, const struct xdt_probedesc *d, const char *where,
		    char *err, size_t errlen, unsigned *bound);
/* @pid's executable file mappings as a hash: 0 when it is gone */
uint64_t dt_umaps_sig(pid_t pid);
/* the loader's r_brk in @pid (its _r_debug), 0: none */
uint64_t dt_uproc_rbrk(pid_t pid);
/* @name's address in @pid's objects, 0: none */
uint64_t dt_uproc_sym(pid_t pid, const char *name);
/* ECBs xdt.ko keeps room for, for probes made while tracing */
#define DT_LATE_ECBS 16384
/* Read @pid's objects and symbols now, for dt_usym_format() later. */
void dt_usyms_load(pid_t pid);
/* Read the objects @pid has mapped since (dlopen()), if it lives. */
void dt_usyms_refresh(pid_t pid);
/* Run the ptrace-stopped @pid on to its entry point if it is dynamically
   linked (see uproc.c): 0, or -1 with why in @err. */
int dt_uproc_to_entry(pid_t pid, char *err, size_t errlen);
/* A user address of @pid as DTrace prints it: mod`func+0x1c, or 0x... */
void dt_usym_format(pid_t pid, uint64_t pc, char *buf, size_t len);
/* ... in ufunc()'s, usym()'s, umod()'s or uaddr()'s form (XDT_USYM_*). */
void dt_usym_form(pid_t pid, uint64_t pc, int form, char *buf, size_t len);
/* The address ufunc()/usym()/umod() keys aggregate @pc under. */
uint64_t dt_usym_base(pid_t pid, uint64_t pc, int form);

/* ---- consumer.c, libxdt.c: the handle ----------------------------------- */
struct dt_opts {
	int quiet;
	size_t bufsize;
	long switchrate_us;
	long aggrate_us;	/* -x aggrate: how often xdt_work() snapshots */
	long statusrate_us;	/* -x statusrate: how often it asks for status */
	int droptags;		/* -x droptags: "[DTRACEDROP_*] " before drops */
	int hostvm;		/* -x hostvm: run in the host VM, not /dev/xdt */
	int destructive;	/* -w: destructive actions allowed */
};

/*
 * Out of memory unwinds, it never exits.  The allocation helpers both
 * halves use (xzalloc, xrealloc, xstrdup: compiler/diag.c) call dt_fatal()
 * when malloc fails, and dt_fatal() longjmps to dt_errjmp as a compile
 * error does.  Every public call that allocates runs its work as
 * XDT_GUARDED(h, on_error, ret = work(...)): an unwind lands there with
 * the message in h->errmsg and errno ENOMEM, and the call returns its
 * error.  What the call had half done stays half done: after it the handle
 * may be stopped and closed, and nothing more is promised (libdtrace
 * returns EDT_NOMEM from the same places and promises no more).
 * @body must be a plain statement: a `return` in it would leave dt_errjmp
 * pointing into a frame that is gone.
 */
#define XDT_GUARDED(h, on_error, body) do {				\
	jmp_buf guard_jb_;						\
	jmp_buf *volatile guard_saved_ = dt_errjmp;			\
									\
	if (setjmp(guard_jb_)) {					\
		dt_errjmp = guard_saved_;				\
		dt_guard_failed((h));					\
		on_error;						\
	}								\
	dt_errjmp = &guard_jb_;						\
	body;								\
	dt_errjmp = guard_saved_;					\
} while (0)
struct xdt_hdl;
void dt_guard_failed(struct xdt_hdl *h);	/* errmsg, errno (libxdt.c) */

/* A whole file, NUL-terminated (malloc'd), or NULL with errno set. */
char *dt_readfile(const char *path);

#define DT_NOPTIONS	128
struct xdt_hdl {
	struct prog p;
	struct dt_zone *zone;	/* what compiling allocated (diag.c) */
	struct type_mark types;	/* its type table, between compiles */
	struct dt_env env;
	struct dt_opts o;
	int bufsize_set;
	int in_pragma;		/* set_one() called for a #pragma D option */
	int bufresize_manual;	/* -x bufresize=manual */
	int bufsize_toobig;	/* ... and a bufsize past XDT_BUFSIZE_MAX */
	unsigned aggsize;	/* -x aggsize, 0 = the kernel's default */
	char errmsg[4096];
	int cpp;			/* -C */
	char **cppargs;
	char **xcpp;		/* -x define/undef/incdir: mcpp's -D/-U/-I */
	int nxcpp;
	int ncpp;
	char stdc[4];		/* -X / -x stdc: "-Xa" (cpp.c) */
	/* the D library: -L / -x libdir directories, -x syslibdir, -x nolibs */
	char *libdirs[8];
	int nlibdirs;
	char *syslibdir;
	int nolibs;
	int zdefs;		/* -Z: a description may match no probe */
	int verbose;		/* -v: each program's stability report */
	int grabanon;		/* -a: xdt_go() claims the anonymous enabling */
	char unimplemented[DT_NOPTIONS];	/* options named, not acted on */
	/* running (consumer.c) */
	int fd, ncpus, running, stopped;
	int outerr;		/* errno of the first output write that failed */
	/* late_probes(): pid/USDT clauses name processes; their maps' hash */
	int late, late_warned, nlsig;
	struct {
		pid_t pid;
		int changed, held;	/* held: the kernel holds it at r_brk */
		uint64_t sig;
	} lsig[8];
	struct xdt_hostvm *vm;		/* -x hostvm, instead of fd */
	struct xdt_eprobe *eps;
	__u32 neps;
	char *buf;
	size_t bufcap;
	/* -x temporal: records read but not yet printed (consumer.c) */
	struct dt_trec *tp;
	size_t ntp, tpcap;
	size_t aggcap;		/* aggregation snapshot buffer bytes */
	long long lastagg_ns;	/* CLOCK_MONOTONIC of the last snapshot */
	long long lastdrain_ns;	/* ... of GO or of the last buffer read */
	long long laststatus_ns;	/* ... of GO or of the last status */
	long long drain_ns;	/* the interval to the next read (consumer.c) */
	size_t fill;		/* the fullest CPU buffer of the last read */
	int dropped;		/* ... and whether any CPU dropped */
	struct dt_print pr;
	void *blob;
	/*
	 * Everything that makes the program, as told (anonymous.c): options,
	 * macro arguments, the preprocessor's flags and each source, in
	 * order -- what dtrace -A saves for dtrace -a to compile again.
	 */
	char *recipe;
	size_t rlen, rcap;
	int replaying;		/* anonymous.c is replaying one: record nothing */
	char *anonimg;		/* dtrace -a: the claimed file, and the */
	char **anonargv;	/* ... argument vectors replayed from it */
};
void xdt_temporal_free(struct xdt_hdl *h);	/* consumer.c */
/* consumer.c: GO's steps, which anonymous.c shares */
int dt_prepare(struct xdt_hdl *h, size_t *size);
int dt_open_dev(struct xdt_hdl *h);
int dt_enable(struct xdt_hdl *h, size_t size, int *unmatched);
int dt_running(struct xdt_hdl *h);
int dt_ioctl(struct xdt_hdl *h, unsigned long cmd, void *arg);
/* anonymous.c: what the handle was told, for dtrace -A's file */
void dt_recipe_add(struct xdt_hdl *h, const char *kind, int n,
		   const char *const *args);
/* ... @a and @b (NULL: none) */
void dt_recipe_pair(struct xdt_hdl *h, const char *kind, const char *a,
		    const char *b);
long long dt_drain_next(long long cur_ns, long long switch_ns, size_t fill,
			size_t bufsize, int dropped);	/* consumer.c */


#endif
