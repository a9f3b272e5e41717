// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - dtrace(1), a thin wrapper of libxdt (libxdt.h): its flags,
 * macro arguments, -c/-p targets and the tracing loop with its signals;
 * compiling, options and consuming are the library's.  It sees only
 * libxdt.h, as any other consumer of the library would: the library
 * returns errors, and it is dtrace(1) that exits on them.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>
#include <signal.h>
#include <sys/prctl.h>
#include <time.h>
#include "libxdt.h"

static _Noreturn void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static _Noreturn void fatal(const char *fmt, ...)
{
	va_list ap;

	fputs("dtrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static void *zalloc(size_t n)
{
	void *p = calloc(1, n ? n : 1);

	if (!p)
		fatal("out of memory");
	return p;
}

static char *sdup(const char *s)
{
	char *d = strdup(s);

	if (!d)
		fatal("out of memory");
	return d;
}

static void usage(void)
{
	fprintf(stderr,
		"Usage: dtrace [-64] [-aAeFGhSlqvVwZ] [-b bufsz] [-n program] [-s script] [-c cmd]\n"
		"\t[-p pid] [-o output] [-P provider] [-m module] [-f function]\n"
		"\t[-i probe-id] [-x opt[=val]] [args ...]\n"
		"\t-n  enable the probes described by program (repeatable)\n"
		"\t-s  enable the probes of a D script file\n"
		"\t-P -m -f  enable a provider's, module's, function's probes (as -n)\n"
		"\t-i  enable the probe with this ID (dtrace -l shows them; as -n)\n"
		"\t-l  list probes (filtered by -n -P -m -f)\n"
		"\t-v  report stability attributes; with -l: and argument types, refusals\n"
		"\t-e  compile only (with -a: claim, print, exit); -S show the DIF; -q quiet\n"
		"\t-A  save the program as the anonymous enabling xdt.ko starts as it\n"
		"\t    loads (-o names the file); -A alone removes it\n"
		"\t-a  claim the anonymous enabling: what it traced since load, then on\n"
		"\t    as any run, to exit() or ^C\n"
		"\t-b  set trace buffer size (-x bufsize=SIZE[k|m|g|t])\n"
		"\t-F  coalesce trace output by function (-x flowindent)\n"
		"\t-Z  permit probe descriptions that match zero probes (-x zdefs)\n"
		"\t-V  report the D language version xdt implements\n"
		"\t-h  write a C header for the script's USDT providers (-o names it)\n"
		"\t-G  accepted: xdt's USDT probes need no object file (see -h)\n"
		"\t-w  allow destructive actions; -o append traced data to output\n"
		"\t-c  run cmd and trace until it exits ($target); -p trace pid\n"
		"\t-x  bufsize=SIZE[k|m|g|t] switchrate=N[hz|s|ms|us] statusrate=... strsize=N quiet\n"
		"\t    dynvarsize=SIZE cleanrate=N errtags stackframes=N ...\n"
		"\t    fbtmode=default|breakpoint|ftrace|trampoline\n"
		"\t-C  run the C preprocessor (mcpp) first; -D -U -I -H pass to it\n"
		"\t-X  its ISO C conformance: a (default, __STDC__ 0), c (1), s (K&R, none), t (0)\n"
		"\t-L  add a D library directory (searched before " "/usr/lib/xdt" ")\n");
	exit(2);
}

/*
 * An option flag as DTrace's dtrace(1) reports a bad one: "failed to set
 * -b 1q: Invalid value for specified option" (the reason is the library's,
 * after its own "failed to set -x bufsize=1q: ").
 */
static void setopt_flag(xdt_hdl_t *h, char flag, const char *opt, const char *val)
{
	const char *why;

	if (xdt_setopt(h, opt, val) == 0)
		return;
	why = strrchr(xdt_errmsg(h), ':');
	fatal("failed to set -%c%s%s: %s", flag, val ? " " : "", val ? val : "",
	      why ? why + 2 : xdt_errmsg(h));
}

/* A whole file, NUL-terminated. */
static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL, *nb;
	size_t n = 0, cap = 0, r;

	if (!f)
		fatal("failed to open %s: %s", path, strerror(errno));
	do {
		if (n + 4096 + 1 > cap) {
			nb = realloc(buf, cap = cap * 2 + 8192);
			if (!nb)
				fatal("out of memory");
			buf = nb;
		}
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r > 0);
	fclose(f);
	buf[n] = 0;
	return buf;
}

/*
 * -l's description with its macro variables ($1, $pid, $target ...)
 * replaced as the compiler replaces them in a program's descriptions,
 * field by field (as DTrace's do): `dtrace -l -n 'pid$target::main:' -p
 * 123`, `dtrace -l -n 'syscall::$1:' read`.
 */
static void desc_macros(xdt_hdl_t *h, struct xdt_probedesc *d)
{
	char *f[4] = { d->prov, d->mod, d->func, d->name };
	size_t sz[4] = { sizeof(d->prov), sizeof(d->mod), sizeof(d->func),
			 sizeof(d->name) };
	char out[sizeof(*d)];

	for (int i = 0; i < 4; i++) {
		if (!strchr(f[i], '$'))
			continue;
		if (xdt_desc_expand(h, f[i], out, sz[i]) < 0)
			fatal("%s", xdt_errmsg(h));
		strcpy(f[i], out);
	}
}

/* "p:m:f:n" (fewer fields right-aligned) for -l -n */
static void desc_fill(struct xdt_probedesc *d, const char *s)
{
	char *f[4] = { d->prov, d->mod, d->func, d->name };
	size_t sz[4] = { sizeof(d->prov), sizeof(d->mod), sizeof(d->func),
			 sizeof(d->name) };
	const char *parts[4];
	int n = 0;

	for (;;) {
		const char *c = strchr(s, ':');

		if (n == 4)
			fatal("invalid probe description \"%s\"", s);
		parts[n++] = s;
		if (!c)
			break;
		s = c + 1;
	}
	for (int i = 0; i < n; i++) {
		const char *e = strchr(parts[i], ':');
		size_t len = e ? (size_t)(e - parts[i]) : strlen(parts[i]);
		int k = 4 - n + i;

		if (len >= sz[k])
			fatal("probe description field too long");
		memcpy(f[k], parts[i], len);
		f[k][len] = 0;
	}
}

/*
 * -c: fork now (so $target is known) and hold the child stopped before it
 * execs.  Everything the child does before the stop (parsing the command
 * line, the stop itself) happens before tracing starts.  Then, once the
 * program is compiled (hold()), one of two:
 *   - the program has pid provider probes in the child: they are made
 *     from the image it runs, so it execs first and is held at the first
 *     instruction of the new image, as DTrace's -c holds it (its exec is
 *     not traced) -- a dynamically linked one at its entry point, once
 *     the loader has mapped its libraries (DTrace's postinit); GO lets it
 *     run (PTRACE_DETACH);
 *   - otherwise it stays stopped before the exec and GO releases it with
 *     SIGCONT: after GO only the stop's return and the exec happen, so a
 *     $target predicate sees the same system calls every run.  (A pipe
 *     read as the gate raced GO: its read(2) could land on either side.)
 * The child stops as its own tracee (PTRACE_TRACEME), which is what lets
 * dtrace hold it after the exec.  Like DTrace, which kills the processes
 * it created, dtrace's exit ends the command (PR_SET_PDEATHSIG), also when
 * dtrace gives up before GO.
 */
static pid_t spawn(const char *cmd, int *gate)
{
	pid_t pid, parent = getpid();
	int status;

	pid = fork();
	if (pid < 0)
		fatal("failed to fork: %s", strerror(errno));
	if (pid == 0) {
		char *dup = sdup(cmd), *argv[64], *save = NULL;
		int n = 0;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);	/* dtrace is already gone */
		for (char *t = strtok_r(dup, " \t", &save); t && n < 63;
		     t = strtok_r(NULL, " \t", &save))
			argv[n++] = t;
		argv[n] = NULL;
		if (!n || ptrace(PTRACE_TRACEME, 0, NULL, NULL) < 0)
			_exit(127);
		raise(SIGSTOP);
		execvp(argv[0], argv);
		fprintf(stderr, "dtrace: failed to execute %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	if (waitpid(pid, &status, WUNTRACED) != pid || !WIFSTOPPED(status))
		fatal("failed to start command: %s", cmd);
	*gate = 1;
	return pid;
}

/*
 * The -c command, compiled against: see spawn().  A dynamically linked
 * command held for its probes is run on to its entry point, where the
 * loader has mapped its libraries (xdt_run_to_entry()).
 */
static void hold(xdt_hdl_t *h, pid_t child, int *gate, int exec_first,
		 const char *cmd)
{
	int status;

	if (exec_first) {
		if (ptrace(PTRACE_CONT, child, NULL, NULL) < 0 ||
		    waitpid(child, &status, 0) != child || !WIFSTOPPED(status))
			fatal("failed to start command: %s", cmd);
		*gate = 2;	/* stopped in its new image; GO detaches */
		if (xdt_run_to_entry(h, child) < 0)
			fatal("failed to start command: %s: %s", cmd,
			      xdt_errmsg(h));
		return;
	}
	if (ptrace(PTRACE_DETACH, child, NULL, (void *)(long)SIGSTOP) < 0 ||
	    waitpid(child, &status, WUNTRACED) != child || !WIFSTOPPED(status))
		fatal("failed to start command: %s", cmd);
	*gate = 1;
}

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

static void die_cerror(xdt_hdl_t *h, const struct xdt_cerror *e)
{
	xdt_cerror_print(h, e, stderr);
	exit(1);
}

/* The -c command (0: none), the -p process (0: none), and the -c
   command's gate: 1 while it waits stopped for GO. */
struct targets {
	pid_t child, target;
	int child_gate;
	FILE *out;		/* where the traced data goes (-o, or stdout) */
};

/*
 * Output that could not be written is an error, not a shorter trace: a
 * full disk, a closed pipe's reader gone (EPIPE when SIGPIPE is ignored),
 * or a pipe whose page the kernel could not allocate (ENOMEM: the soak's
 * fail_page_alloc run lost END's line and exited 0).  Tracing stops at
 * the first failed write; dtrace says so and exits 1.
 */
static int output_failed(FILE *out)
{
	int e;

	errno = 0;
	if (fflush(out) == 0 && !ferror(out))
		return 0;
	e = errno;
	fprintf(stderr, "dtrace: failed to write output%s%s\n", e ? ": " : "",
		e ? strerror(e) : "");
	clearerr(out);
	return 1;
}

/* @once: -ae, read what the anonymous enabling has and stop */
static int run(xdt_hdl_t *h, struct targets *o, int once)
{
	struct xdt_status st;
	struct sigaction sa;
	int status, lost;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (xdt_go(h) < 0)
		fatal("%s", xdt_errmsg(h));
	if (o->child_gate > 0) {
		/* the -c command runs only now, so its whole life is traced */
		if (o->child_gate == 2 ?
		    ptrace(PTRACE_DETACH, o->child, NULL, NULL) < 0 :
		    kill(o->child, SIGCONT) < 0)
			fatal("failed to start command: %s", strerror(errno));
		o->child_gate = 0;
	}
	/* like DTrace, the CPU/ID header waits for the first record */
	for (;;) {
		int r;

		if (!once)
			xdt_wait(h, -1);
		r = xdt_work(h, NULL);

		if (r == XDT_WORK_ERROR && !ferror(o->out))
			fprintf(stderr, "dtrace: %s\n", xdt_errmsg(h));
		if (r != XDT_WORK_OKAY || once)
			break;
		if (ferror(o->out) || interrupted)
			break;
		if (o->child > 0 && waitpid(o->child, &status, WNOHANG) == o->child) {
			fprintf(stderr, "dtrace: pid %d has exited\n", (int)o->child);
			break;
		}
		if (o->target > 0 && kill(o->target, 0) < 0 && errno == ESRCH) {
			fprintf(stderr, "dtrace: pid %d has exited\n", (int)o->target);
			break;
		}
	}
	if (xdt_stop(h, NULL) < 0)
		fprintf(stderr, "dtrace: %s\n", xdt_errmsg(h));
	if (xdt_aggwalk(h, NULL, NULL) < 0)
		fprintf(stderr, "dtrace: %s\n", xdt_errmsg(h));
	lost = output_failed(o->out);
	if (o->out != stdout && output_failed(stdout))
		lost = 1;
	if (xdt_status(h, &st) == 0)
		xdt_report_drops(h, &st);
	return lost ? 1 : xdt_exit_status(h);
}

/*
 * dtrace -h: the header to -o, else beside the first script as DTrace
 * names it (prov.d -> prov.h, in the current directory).
 */
struct dsrc {
	int file;		/* -s */
	const char *s;
	int spec;		/* -P -m -f: the description field it ends at */
	int id;			/* -i: s starts with a probe's ID */
};

/*
 * -i probe-id [[predicate] action]: the ID's probe, by its description
 * written out (what -n would take), then the rest of the text.
 */
static const char *id_program(xdt_hdl_t *h, const char *arg)
{
	struct xdt_probedesc d;
	char *end, *p;
	unsigned long id = strtoul(arg, &end, 10);
	size_t n;

	if (end == arg || (*end && !strchr(" \t\n{/", *end)))
		fatal("invalid probe identifier %s", arg);
	if (xdt_probe_desc(h, (unsigned)id, &d) < 0)
		fatal("%s", xdt_errmsg(h));
	n = strlen(d.prov) + strlen(d.mod) + strlen(d.func) + strlen(d.name) +
	    strlen(end) + 5;
	p = zalloc(n);
	snprintf(p, n, "%s:%s:%s:%s%s", d.prov, d.mod, d.func, d.name, end);
	return p;
}

/*
 * -P provider, -m [provider:]module, -f [[provider:]module:]function: a
 * probe description whose last part is that field (DTrace's probe
 * specs), with a clause after it or not, as -n takes one.  Outside -l
 * each is a program like -n's: the description written out in full
 * ("syscall:::" for -P syscall), the rest of the text after it.
 */
static const char *spec_program(const char *arg, int field)
{
	size_t dlen = strcspn(arg, " \t\n{/"), n = strlen(arg) + 8;
	int colons = 0;
	char *p = zalloc(n), *o = p;

	for (size_t i = 0; i < dlen; i++)
		colons += arg[i] == ':';
	if (colons > field)
		fatal("invalid probe specifier %.*s: too many components",
		      (int)dlen, arg);
	for (int i = 0; i < field - colons; i++)
		*o++ = ':';
	memcpy(o, arg, dlen);
	o += dlen;
	for (int i = field; i < 3; i++)
		*o++ = ':';
	strcpy(o, arg + dlen);
	return p;
}

static int write_header(xdt_hdl_t *h, const char *ofile,
			const struct dsrc *src, int nsrc)
{
	char name[4096];
	const char *s = NULL, *b, *dot;
	FILE *f;
	int r;

	for (int i = 0; i < nsrc && !s; i++)
		if (src[i].file)
			s = src[i].s;
	if (ofile) {
		snprintf(name, sizeof(name), "%s", ofile);
	} else {
		if (!s)
			fatal("-h with no script (-s) needs -o to name the header");
		b = strrchr(s, '/');
		b = b ? b + 1 : s;
		dot = strrchr(b, '.');
		snprintf(name, sizeof(name), "%.*s.h",
			 (int)(dot && !strcmp(dot, ".d") ? dot - b : (long)strlen(b)), b);
	}
	f = fopen(name, "w");
	if (!f)
		fatal("failed to open header file '%s': %s", name, strerror(errno));
	r = xdt_header(h, f, name);
	if (fclose(f) && !r)
		fatal("failed to write header file '%s': %s", name, strerror(errno));
	if (r < 0) {
		unlink(name);
		fatal("%s", xdt_errmsg(h));
	}
	return 0;
}

int main(int argc, char **argv)
{
	xdt_hdl_t *h = xdt_open();
	struct targets tg = { 0, 0, -1, stdout }, *o = &tg;
	struct xdt_probedesc lmatch;
	const char *cmd = NULL, *ofile = NULL;
	/* at most one per argument: no limit but the command line's */
	struct dsrc *src = zalloc(argc * sizeof(*src));
	int nsrc = 0, list = 0, verbose = 0, compile_only = 0, showdif = 0, c, i;
	int header = 0, objgen = 0, version = 0, anon = 0, grab = 0;
	char **cppargs = zalloc(argc * sizeof(*cppargs));
	int ncpp = 0, cpp = 0;
	struct xdt_cerror err;

	if (!h)
		fatal("cannot open a handle: %s", strerror(errno));
	memset(&lmatch, 0, sizeof(lmatch));
	while ((c = getopt(argc, argv, "+n:s:i:lvqwo:c:p:eSx:P:m:f:hGCD:U:I:HL:b:FVZ3:6:aAX:")) != -1) {
		switch (c) {
		case 'n':
		case 's':
			src[nsrc].file = c == 's';
			src[nsrc++].s = optarg;
			break;
		case 'i':
			src[nsrc].id = 1;
			src[nsrc++].s = optarg;
			break;
		/*
		 * -32 / -64, DTrace's data models: xdt's kernels are all
		 * LP64, so -64 is what it does anyway and -32 cannot be had.
		 */
		case '3':
			if (strcmp(optarg, "2"))
				usage();
			fatal("-32: the ILP32 data model is not supported "
			      "(xdt traces LP64 kernels only)");
			break;
		case '6':
			if (strcmp(optarg, "4"))
				usage();
			break;
		case 'l': list = 1; break;
		case 'v': verbose = 1; break;
		case 'q': xdt_setopt(h, "quiet", NULL); break;
		case 'w': xdt_setopt(h, "destructive", NULL); break;
		/* DTrace's short forms of options (its dtrace.c: the same setopt) */
		case 'b': setopt_flag(h, 'b', "bufsize", optarg); break;
		case 'F': setopt_flag(h, 'F', "flowindent", NULL); break;
		case 'Z': setopt_flag(h, 'Z', "zdefs", NULL); break;
		case 'V': version = 1; break;
		/* -a is -x grabanon: xdt_go() claims instead of enabling */
		case 'a': setopt_flag(h, 'a', "grabanon", NULL); grab = 1; break;
		case 'A': anon = 1; break;
		case 'o': ofile = optarg; break;
		case 'e': compile_only = 1; break;
		case 'h': header = 1; break;
		case 'G': objgen = 1; break;
		case 'S': showdif = 1; break;
		case 'c': cmd = optarg; break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v <= 0)
				fatal("invalid process ID: %s", optarg);
			o->target = (pid_t)v;
			xdt_set_target(h, v);
			break;
		}
		case 'x': {
			char *dup = sdup(optarg), *save = NULL, *opt;

			for (opt = strtok_r(dup, ",", &save); opt;
			     opt = strtok_r(NULL, ",", &save)) {
				char *val = strchr(opt, '=');

				if (val)
					*val++ = 0;
				if (xdt_setopt(h, opt, val) < 0)
					fatal("%s", xdt_errmsg(h));
			}
			free(dup);
			break;
		}
		case 'C': cpp = 1; break;
		case 'X': setopt_flag(h, 'X', "stdc", optarg); break;
		case 'L': xdt_setopt(h, "libdir", optarg); break;
		case 'D': case 'U': case 'I': {
			char *a = zalloc(strlen(optarg) + 3);

			sprintf(a, "-%c%s", c, optarg);
			cppargs[ncpp++] = a;
			break;
		}
		case 'H':
			cppargs[ncpp++] = "-H";
			break;
		case 'P': case 'm': case 'f':
			/* -l filters by them; else each is a program (in
			   order with -n and -s, as DTrace compiles them) */
			snprintf(c == 'P' ? lmatch.prov : c == 'm' ? lmatch.mod :
				 lmatch.func, sizeof(lmatch.prov), "%s", optarg);
			src[nsrc].spec = c == 'P' ? 0 : c == 'm' ? 1 : 2;
			src[nsrc].s = spec_program(optarg, src[nsrc].spec);
			src[nsrc++].spec++;
			break;
		default: usage();
		}
	}
	/* -V is a mode of its own, as DTrace's -A, -l, -G and -h are */
	if ((version || anon) && version + anon + list + objgen + header > 1) {
		fprintf(stderr, "dtrace: only one of the [-AGhlV] options can be "
			"specified at a time\n");
		return 2;
	}
	/*
	 * Anonymous tracing (libxdt/anonymous.c): -A saves the program for
	 * xdt.ko to start as it loads, -a claims what it started.  Neither
	 * has a process: the enabling starts before any.
	 */
	if (anon && grab)
		fatal("-a and -A cannot be used together: -A saves an "
		      "enabling for the next load of xdt.ko, -a claims the "
		      "one it started");
	if ((anon || grab) && (cmd || o->target))
		fatal("-%c cannot be used with -c or -p: an anonymous enabling "
		      "starts as xdt.ko loads, before any process it could "
		      "name", anon ? 'A' : 'a');
	if (grab && nsrc)
		fatal("-a claims the anonymous enabling: it takes no program "
		      "(-n, -s, -P, -m, -f, -i) of its own");
	if (version) {
		/* DTrace's format: the program name and the D API version */
		printf("dtrace: %s\n", xdt_version());
		return fflush(stdout) ? 1 : 0;
	}
	xdt_set_macros(h, argv + optind, argc - optind);
	xdt_set_cpp(h, cpp, cppargs, ncpp);
	for (i = 0; i < nsrc; i++)
		if (src[i].id)
			src[i].s = id_program(h, src[i].s);

	if (list) {
		/* each -n is a description of its own, listed in turn (as
		   DTrace's -l does); -P/-m/-f make one when there is no -n */
		struct xdt_probedesc ld[64];
		int r;

		if (cmd && o->target)
			fatal("-c and -p cannot be used together");
		if (cmd) {
			/*
			 * As DTrace's -l -c: the command's process, held at
			 * its new image's first instruction, is what
			 * $target's probes are listed in; it is killed after.
			 */
			o->child = spawn(cmd, &o->child_gate);
			hold(h, o->child, &o->child_gate, 1, cmd);
			o->target = o->child;
			xdt_set_target(h, o->child);
		}
		int nld = 0;

		for (int i = 0; i < nsrc; i++) {
			if (src[i].file)
				fatal("-l lists probe descriptions (-n, -P, -m, -f), "
					 "not programs (-s)");
			if (src[i].spec)
				continue;	/* in lmatch */
			ld[nld] = lmatch;
			desc_fill(&ld[nld], src[i].s);
			desc_macros(h, &ld[nld++]);
		}
		if (!nld) {
			ld[nld] = lmatch;
			desc_macros(h, &ld[nld++]);
		}
		r = xdt_list_probes(h, ld, nld, verbose);
		if (o->child > 0) {
			kill(o->child, SIGKILL);
			waitpid(o->child, NULL, 0);
		}

		if (r < 0)
			fatal("%s", xdt_errmsg(h));
		return r;
	}
	if (anon && !nsrc) {
		/* DTrace's way to remove one: -A with no program */
		int r = xdt_anon_remove(h, ofile);

		if (r < 0)
			fatal("%s", xdt_errmsg(h));
		if (r)
			fprintf(stderr, "dtrace: cleaned up old anonymous "
				"enabling in %s\n", ofile ? ofile : XDT_ANON_PATH);
		return 0;
	}
	if (grab && ofile) {
		FILE *of = fopen(ofile, "a");

		if (!of)
			fatal("failed to open output file '%s'", ofile);
		xdt_set_output(h, of);
		o->out = of;
	}
	if (grab)
		return run(h, o, compile_only);
	if (!nsrc)
		usage();
	if (header && objgen)
		fatal("-h and -G cannot be used together");
	if (header || objgen) {
		cmd = NULL;
		compile_only = 1;
	}
	if (cmd && o->target)
		fatal("-c and -p cannot be used together");
	if (cmd && !compile_only) {
		o->child = spawn(cmd, &o->child_gate);
		xdt_set_target(h, o->child);
	} else if (cmd) {
		xdt_set_target(h, 0);	/* -e: no process, any pid will do */
	}

	for (i = 0; i < nsrc; i++) {
		const char *name = src[i].file ? src[i].s : "<cmdline>";
		const char *text = src[i].file ? read_file(src[i].s) : src[i].s;

		if (xdt_compile(h, text, name, src[i].file, &err) < 0)
			die_cerror(h, &err);
	}
	xdt_warn_unimplemented(h);
	if (header)
		return write_header(h, ofile, src, nsrc);
	if (objgen) {
		/*
		 * illumos' -G rewrites the objects' probe calls and makes the
		 * DOF object to link; the notes dtrace -h's macros write are
		 * complete in the objects already (libxdt/usdt.c).
		 */
		fprintf(stderr, "dtrace: -G: nothing to do: the probes of a "
			"header from dtrace -h are complete in the program's "
			"objects (no object file is made; link without one)\n");
		return 0;
	}
	if (o->child > 0)
		hold(h, o->child, &o->child_gate, xdt_uses_process(h, o->child),
		     cmd);
	if (showdif)
		xdt_dis(h, stdout);
	/* -v: DTrace's stability report, now under -e, else as each enables */
	xdt_set_verbose(h, verbose);
	if (verbose && compile_only && !anon)
		xdt_stability_report(h);
	if (anon) {
		const char *path = ofile ? ofile : XDT_ANON_PATH;
		int replaced;

		if (xdt_anon_save(h, ofile, &replaced) < 0)
			fatal("%s", xdt_errmsg(h));
		/* on stderr, as DTrace's: -q in the program must not hide them */
		if (replaced)
			fprintf(stderr, "dtrace: cleaned up old anonymous "
				"enabling in %s\n", path);
		fprintf(stderr, "dtrace: saved anonymous enabling in %s\n", path);
		fprintf(stderr, "dtrace: reload xdt.ko or reboot to enable "
			"changes\n");
		return 0;
	}
	if (compile_only)
		return 0;
	if (ofile) {
		/* dtrace -o: traced data appended to the file, as DTrace does */
		FILE *of = fopen(ofile, "a");

		if (!of)
			fatal("failed to open output file '%s'", ofile);
		xdt_set_output(h, of);
		o->out = of;
	}
	return run(h, o, 0);
}
