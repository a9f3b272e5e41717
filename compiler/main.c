// SPDX-License-Identifier: GPL-2.0
/*
 * main.c - dtrace(1): options, macro arguments, -c/-p targets, then
 * compile (parse.c), show (-S), and run (consumer.c) or list (-l).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "dt.h"
#include "cpp.h"

static void usage(void)
{
	fprintf(stderr,
		"Usage: dtrace [-eSlqv] [-n program] [-s script] [-c cmd] [-p pid]\n"
		"\t[-P provider] [-m module] [-f function] [-x opt=val] [args ...]\n"
		"\t-n  enable the probes described by program (repeatable)\n"
		"\t-s  enable the probes of a D script file\n"
		"\t-l  list probes (filtered by -n -P -m -f); -v shows refusals\n"
		"\t-e  compile only; -S show the DIF; -q quiet\n"
		"\t-c  run cmd and trace until it exits ($target); -p trace pid\n"
		"\t-x  bufsize=SIZE[k|m|g] switchrate=N[hz|s|ms|us] strsize=N quiet\n"
		"\t    dynvarsize=SIZE cleanrate=N errtags stackframes=N ...\n"
		"\t-C  run the C preprocessor (mcpp) first; -D -U -I -H pass to it\n");
	exit(2);
}

/* "4m" -> 4194304; 0 on error */
static unsigned long long parse_size(const char *v)
{
	char *end;
	unsigned long long n;

	if (!isdigit((unsigned char)*v))
		return 0;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno)
		return 0;
	switch (tolower((unsigned char)*end)) {
	case 'g': n <<= 10; /* fall through */
	case 'm': n <<= 10; /* fall through */
	case 'k': n <<= 10; end++; break;
	case 0: break;
	default: return 0;
	}
	return *end ? 0 : n;
}

/* a rate or an interval -> microseconds between buffer reads; 0 on error */
static long parse_rate(const char *v)
{
	char *end;
	double n;

	if (!isdigit((unsigned char)*v))
		return 0;
	n = strtod(v, &end);
	if (n <= 0)
		return 0;
	if (!*end || !strcasecmp(end, "hz"))
		return (long)(1e6 / n);
	if (!strcmp(end, "s") || !strcmp(end, "sec"))
		return (long)(n * 1e6);
	if (!strcmp(end, "ms") || !strcmp(end, "msec"))
		return (long)(n * 1e3);
	if (!strcmp(end, "us") || !strcmp(end, "usec"))
		return (long)n;
	if (!strcmp(end, "ns") || !strcmp(end, "nsec"))
		return n >= 1000 ? (long)(n / 1e3) : 1;
	return 0;
}

/*
 * The options -x and `#pragma D option` take: DTrace's names.  Each
 * knows how its value is read; the ones xdt does not act on yet are
 * accepted (scripts set them routinely) and named on stderr once, so
 * nothing is ignored silently.
 */
enum optkind { OPT_FLAG, OPT_SIZE, OPT_RATE, OPT_COUNT, OPT_ANY };
struct option_ctx {
	struct dt_opts *o;
	struct dt_env *env;
	int *bufsize_set;
};
static void opt_apply(const char *name, const char *val, unsigned long long n,
		      long us, struct option_ctx *c);

static const struct { const char *name; enum optkind kind; int implemented; } options[] = {
	{ "quiet", OPT_FLAG, 1 }, { "bufsize", OPT_SIZE, 1 },
	{ "switchrate", OPT_RATE, 1 }, { "strsize", OPT_SIZE, 1 },
	{ "dynvarsize", OPT_SIZE, 1 }, { "cleanrate", OPT_RATE, 1 },
	{ "errtags", OPT_FLAG, 1 }, { "defaultargs", OPT_FLAG, 1 },
	{ "stackframes", OPT_COUNT, 1 }, { "zdefs", OPT_FLAG, 0 },
	{ "aggrate", OPT_RATE, 0 }, { "aggsize", OPT_SIZE, 0 },
	{ "bufpolicy", OPT_ANY, 0 }, { "bufresize", OPT_ANY, 0 },
	{ "cpu", OPT_COUNT, 0 }, { "destructive", OPT_FLAG, 0 },
	{ "flowindent", OPT_FLAG, 0 }, { "grabanon", OPT_FLAG, 0 },
	{ "jstackframes", OPT_COUNT, 0 }, { "jstackstrsize", OPT_SIZE, 0 },
	{ "nspec", OPT_COUNT, 0 }, { "specsize", OPT_SIZE, 0 },
	{ "stackindent", OPT_COUNT, 0 }, { "statusrate", OPT_RATE, 0 },
	{ "ustackframes", OPT_COUNT, 0 }, { "aggsortkey", OPT_FLAG, 0 },
	{ "aggsortkeypos", OPT_COUNT, 0 }, { "aggsortpos", OPT_COUNT, 0 },
	{ "aggsortrev", OPT_FLAG, 0 }, { "aggpack", OPT_FLAG, 0 },
	{ "aggzoom", OPT_FLAG, 0 }, { "rawbytes", OPT_FLAG, 0 },
	{ "droptags", OPT_FLAG, 0 }, { "linkmode", OPT_ANY, 0 },
	{ "temporal", OPT_FLAG, 0 }, { "oformat", OPT_ANY, 0 },
	{ "encoding", OPT_ANY, 0 }, { "version", OPT_ANY, 0 },
	{ "strip", OPT_FLAG, 0 }, { "amin", OPT_ANY, 0 },
	{ "argref", OPT_FLAG, 0 }, { "core", OPT_ANY, 0 },
	{ "cpphdrs", OPT_FLAG, 0 }, { "cpppath", OPT_ANY, 0 },
	{ "ctypes", OPT_ANY, 0 }, { "dtypes", OPT_ANY, 0 },
	{ "evaltime", OPT_ANY, 0 }, { "iregs", OPT_COUNT, 0 },
	{ "knodefs", OPT_FLAG, 0 }, { "ldpath", OPT_ANY, 0 },
	{ "lazyload", OPT_FLAG, 0 }, { "late", OPT_ANY, 0 },
	{ "modpath", OPT_ANY, 0 }, { "nolibs", OPT_FLAG, 0 },
	{ "pgmax", OPT_COUNT, 0 }, { "pspec", OPT_FLAG, 0 },
	{ "stdc", OPT_ANY, 0 }, { "syslibdir", OPT_ANY, 0 },
	{ "tree", OPT_COUNT, 0 }, { "tregs", OPT_COUNT, 0 },
	{ "udefs", OPT_FLAG, 0 }, { "verbose", OPT_FLAG, 0 },
	{ "incdir", OPT_ANY, 0 }, { "define", OPT_ANY, 0 },
	{ "undef", OPT_ANY, 0 }, { "libdir", OPT_ANY, 0 },
};

static char unimplemented[sizeof(options) / sizeof(options[0])];

static void warn_unimplemented(void)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (unimplemented[i])
			fprintf(stderr, "dtrace: option %s is not implemented yet; ignored\n",
				options[i].name);
}

/* Returns 0, or -1 with DTrace's message in @why. */
static int set_one(const char *opt, const char *val, struct option_ctx *c,
		   char *why, size_t len)
{
	unsigned long long n = 0;
	long us = 0;
	size_t i;

	for (i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (!strcmp(opt, options[i].name))
			break;
	if (i == sizeof(options) / sizeof(options[0])) {
		snprintf(why, len, "failed to set -x %s: Invalid option name", opt);
		return -1;
	}
	switch (options[i].kind) {
	case OPT_FLAG:
		if (val && strcmp(val, "") && strcmp(val, "1") && strcmp(val, "set") &&
		    strcmp(val, "0") && strcmp(val, "unset")) {
			snprintf(why, len, "failed to set -x %s=%s: Invalid value for specified option",
				 opt, val);
			return -1;
		}
		n = !(val && (!strcmp(val, "0") || !strcmp(val, "unset")));
		break;
	case OPT_SIZE:
	case OPT_COUNT:
		if (!val || !*val) {
			snprintf(why, len, "failed to set -x %s: Invalid value for specified option", opt);
			return -1;
		}
		n = parse_size(val);
		if (!n || n > (1ULL << 31) ||
		    (options[i].kind == OPT_COUNT && !isdigit((unsigned char)val[strlen(val) - 1]))) {
			snprintf(why, len, "failed to set -x %s=%s: Invalid value for specified option",
				 opt, val);
			return -1;
		}
		break;
	case OPT_RATE:
		us = val ? parse_rate(val) : 0;
		if (us <= 0) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		break;
	case OPT_ANY:
		break;
	}
	if (!options[i].implemented) {
		/* said once, after compiling: a compile error comes first */
		unimplemented[i] = 1;
		return 0;
	}
	opt_apply(opt, val, n, us, c);
	return 0;
}

static void opt_apply(const char *name, const char *val, unsigned long long n,
		      long us, struct option_ctx *c)
{
	(void)val;
	if (!strcmp(name, "quiet")) {
		c->o->quiet = (int)n;
	} else if (!strcmp(name, "errtags")) {
		dt_errtags = (int)n;
	} else if (!strcmp(name, "defaultargs")) {
		c->env->defaultargs = (int)n;
	} else if (!strcmp(name, "bufsize")) {
		if (n)
			c->o->bufsize = (size_t)n;
		*c->bufsize_set = 1;
	} else if (!strcmp(name, "switchrate")) {
		c->o->switchrate_us = us;
	} else if (!strcmp(name, "strsize")) {
		/* the kernel copies strsize bytes per string; keep it sane */
		if (n && n <= 65536)
			c->env->strsize = (unsigned)n;
	} else if (!strcmp(name, "dynvarsize")) {
		c->env->dynvarsize = (unsigned)n;
	} else if (!strcmp(name, "cleanrate")) {
		c->env->cleanrate = us ? (unsigned)(1000000 / us) : 0;
	} else if (!strcmp(name, "stackframes")) {
		if (n >= 1 && n <= XDT_MAXSTACK)
			c->env->stackframes = (unsigned)n;
	}
}

static void set_option(const char *arg, struct option_ctx *c)
{
	char *dup = xstrdup(arg), *save = NULL, *opt, why[256];

	for (opt = strtok_r(dup, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *val = strchr(opt, '=');

		if (val)
			*val++ = 0;
		if (set_one(opt, val, c, why, sizeof(why)))
			dt_fatal("%s", why);
	}
	free(dup);
}

static char *read_file(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		dt_fatal("failed to open %s: %s", path, strerror(errno));
	do {
		if (n + 4096 + 1 > cap)
			buf = xrealloc(buf, cap = cap * 2 + 8192);
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	fclose(f);
	buf[n] = 0;
	return buf;
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
			dt_fatal("invalid probe description \"%s\"", s);
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
			dt_fatal("probe description field too long");
		memcpy(f[k], parts[i], len);
		f[k][len] = 0;
	}
}

/* -c: fork now (so $target is known), exec after GO releases the gate */
static pid_t spawn(const char *cmd, int *gate)
{
	int fds[2];
	pid_t pid;

	if (pipe(fds) < 0)
		dt_fatal("failed to create pipe: %s", strerror(errno));
	pid = fork();
	if (pid < 0)
		dt_fatal("failed to fork: %s", strerror(errno));
	if (pid == 0) {
		char *dup = xstrdup(cmd), *argv[64], *save = NULL, c;
		int n = 0;

		close(fds[1]);
		if (read(fds[0], &c, 1) != 1)
			_exit(127);	/* dtrace gave up before tracing */
		close(fds[0]);
		for (char *t = strtok_r(dup, " \t", &save); t && n < 63;
		     t = strtok_r(NULL, " \t", &save))
			argv[n++] = t;
		argv[n] = NULL;
		if (!n)
			_exit(127);
		execvp(argv[0], argv);
		fprintf(stderr, "dtrace: failed to execute %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	close(fds[0]);
	*gate = fds[1];
	return pid;
}

/*
 * `#pragma D option NAME[=VALUE]` lines set what -x NAME[=VALUE] sets,
 * before the source is compiled (so strsize holds for the whole program),
 * with DTrace's errors for a malformed or unknown one.
 */
static void apply_pragmas(const char *src, const char *file, struct option_ctx *c)
{
	const char *ln;
	int line = 0;

	for (ln = src; ln && *ln; ln = strchr(ln, '\n'), ln = ln ? ln + 1 : NULL) {
		char name[256], why[300];
		const char *s = ln;
		size_t n;

		line++;
		if (*s != '#')
			continue;
		s += 1 + strspn(s + 1, " \t");
		if (strncmp(s, "pragma", 6))
			continue;
		s += 6 + strspn(s + 6, " \t");
		if (strncmp(s, "D", 1) || !strchr(" \t", s[1]))
			continue;
		s += 1 + strspn(s + 1, " \t");
		if (strncmp(s, "option", 6) || !strchr(" \t\r\n", s[6]))
			continue;
		s += 6 + strspn(s + 6, " \t");
		n = strcspn(s, " \t\r\n");
		if (!n || n >= sizeof(name)) {
			fprintf(stderr, "dtrace: failed to compile script %s: %sline %d: "
				"malformed #pragma D option\n", file,
				dt_errtags ? "[D_PRAGMA_MALFORM] " : "", line);
			exit(1);
		}
		memcpy(name, s, n);
		name[n] = 0;
		{
			char *val = strchr(name, '=');

			if (val)
				*val++ = 0;
			if (set_one(name, val, c, why, sizeof(why))) {
				fprintf(stderr, "dtrace: failed to compile script %s: %sline %d: "
					"failed to set option '%s'%s%s: %s\n", file,
					dt_errtags ? "[D_PRAGMA_OPTSET] " : "", line,
					name, val ? " to " : "", val ? val : "",
					strstr(why, "Invalid option name") ?
					"Invalid option name" : "Invalid value for specified option");
				exit(1);
			}
		}
	}
}

/* dtrace -C: the script through the C preprocessor first. */
static char *preprocess(const char *src, const char *name, char **cppargs, int ncpp)
{
	char err[4096];
	char *out = dt_cpp(src, name, cppargs, ncpp, err, sizeof(err));

	if (!out) {
		fprintf(stderr, "dtrace: failed to preprocess %s: %s\n", name, err);
		exit(1);
	}
	return out;
}

int main(int argc, char **argv)
{
	struct dt_opts o = { .bufsize = 4u << 20, .switchrate_us = 100000,
			     .child_gate = -1 };
	struct dt_env env = { .pid = getpid(), .target = -1, .strsize = 256 };
	struct xdt_probedesc lmatch;
	struct prog p;
	const char *cmd = NULL, *selftest = NULL;
	struct { int file; const char *s; } src[64];
	int bufsize_set = 0, nsrc = 0, list = 0, verbose = 0, compile_only = 0, showdif = 0, c, i;
	struct option_ctx oc = { &o, &env, &bufsize_set };
	char *cppargs[128];
	int ncpp = 0, cpp = 0;

	memset(&lmatch, 0, sizeof(lmatch));
	memset(&p, 0, sizeof(p));
	while ((c = getopt(argc, argv, "+n:s:lvqc:p:eSx:P:m:f:X:hCD:U:I:H")) != -1) {
		switch (c) {
		case 'n':
		case 's':
			if (nsrc == 64)
				dt_fatal("too many -n/-s options");
			src[nsrc].file = c == 's';
			src[nsrc++].s = optarg;
			break;
		case 'l': list = 1; break;
		case 'v': verbose = 1; break;
		case 'q': o.quiet = 1; break;
		case 'e': compile_only = 1; break;
		case 'S': showdif = 1; break;
		case 'c': cmd = optarg; break;
		case 'p': {
			char *end;
			long v = strtol(optarg, &end, 10);

			if (*end || v <= 0)
				dt_fatal("invalid process ID: %s", optarg);
			o.target = (pid_t)v;
			env.target = v;
			break;
		}
		case 'x':
			set_option(optarg, &oc);
			break;
		case 'C': cpp = 1; break;
		case 'D': case 'U': case 'I': {
			char *a = xzalloc(strlen(optarg) + 3);

			if (ncpp == 128)
				dt_fatal("too many -D/-U/-I options");
			sprintf(a, "-%c%s", c, optarg);
			cppargs[ncpp++] = a;
			break;
		}
		case 'H':
			if (ncpp < 128)
				cppargs[ncpp++] = "-H";
			break;
		case 'P': snprintf(lmatch.prov, sizeof(lmatch.prov), "%s", optarg); break;
		case 'm': snprintf(lmatch.mod, sizeof(lmatch.mod), "%s", optarg); break;
		case 'f': snprintf(lmatch.func, sizeof(lmatch.func), "%s", optarg); break;
		case 'X':
			/* hidden, for tests: selftest, records, aggs, kallsyms=PATH */
			if (!strncmp(optarg, "kallsyms=", 9))
				ksyms_path(optarg + 9);
			else
				selftest = optarg;
			break;
		default: usage();
		}
	}
	if (selftest && !strcmp(selftest, "selftest")) {
		print_selftest(stdout);
		return 0;
	} else if (selftest && strcmp(selftest, "records") && strcmp(selftest, "aggs")) {
		usage();
	}
	env.macros = argv + optind;
	env.nmacros = argc - optind;
	env.ids[0] = getpid();
	env.ids[1] = getppid();
	env.ids[2] = getuid();
	env.ids[3] = getgid();
	env.ids[4] = geteuid();
	env.ids[5] = getegid();
	env.ids[6] = getpgid(0);
	env.ids[7] = getsid(0);
	env.name0 = nsrc && src[0].file ? src[0].s : "";

	if (list) {
		if (nsrc > 1 || (nsrc && src[0].file))
			dt_fatal("-l takes at most one -n probe description");
		if (nsrc)
			desc_fill(&lmatch, src[0].s);
		return list_probes(&lmatch, verbose);
	}
	if (!nsrc)
		usage();
	if (cmd && o.target)
		dt_fatal("-c and -p cannot be used together");
	if (cmd && !compile_only) {
		o.child = spawn(cmd, &o.child_gate);
		env.target = o.child;
	} else if (cmd) {
		env.target = 0;		/* -e: no process, any pid will do */
	}

	for (i = 0; i < nsrc; i++) {
		const char *name = src[i].file ? src[i].s : "<cmdline>";
		const char *text = src[i].file ? read_file(src[i].s) : src[i].s;

		if (cpp)
			text = preprocess(text, name, cppargs, ncpp);
		apply_pragmas(text, name, &oc);
		dt_compile(&p, &env, name, text);
		if (src[i].file) {
			p.srcdesc[p.nsrc - 1] = xstrdup(src[i].s);
			p.srcfile[p.nsrc - 1] = 1;
		}
	}
	prog_layout(&p);
	warn_unimplemented();
	p.bufsize = bufsize_set ? (unsigned)o.bufsize : 0;
	p.dynvarsize = env.dynvarsize;
	p.cleanrate = env.cleanrate;
	if (showdif)
		dis_prog(stdout, &p);
	if (selftest && !strcmp(selftest, "aggs")) {
		/* -X aggs: trailing operands are aggregation entries */
		print_fake_aggs(&p, argv + optind, argc - optind);
		return 0;
	}
	if (selftest) {
		/* -X records: trailing operands are record values, not macros */
		print_fake_records(&p, argv + optind, argc - optind);
		return 0;
	}
	if (compile_only)
		return 0;
	return consume(&p, &o);
}
