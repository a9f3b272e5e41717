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
		"\t-x  bufsize=SIZE[k|m|g] switchrate=N[hz|s|ms|us] strsize=N quiet\n");
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

static void set_option(const char *arg, struct dt_opts *o, struct dt_env *env)
{
	char *dup = xstrdup(arg), *save = NULL, *opt;

	for (opt = strtok_r(dup, ",", &save); opt; opt = strtok_r(NULL, ",", &save)) {
		char *val = strchr(opt, '=');
		unsigned long long n;

		if (val)
			*val++ = 0;
		if (!strcmp(opt, "quiet") && !val) {
			o->quiet = 1;
			continue;
		}
		if (strcmp(opt, "bufsize") && strcmp(opt, "switchrate") &&
		    strcmp(opt, "strsize"))
			dt_fatal("failed to set -x %s: Invalid option name", opt);
		if (!val || !*val)
			dt_fatal("failed to set -x %s: Invalid value for specified option", opt);
		if (!strcmp(opt, "bufsize")) {
			n = parse_size(val);
			if (!n || n > (1ULL << 31))
				dt_fatal("failed to set -x %s=%s: Invalid value for specified option",
					 opt, val);
			o->bufsize = (size_t)n;
		} else if (!strcmp(opt, "switchrate")) {
			long us = parse_rate(val);

			if (us <= 0)
				dt_fatal("failed to set -x %s=%s: Invalid value for specified option",
					 opt, val);
			o->switchrate_us = us;
		} else {
			n = parse_size(val);
			/* the kernel copies strsize bytes per string; keep it sane */
			if (!n || n > 65536)
				dt_fatal("failed to set -x %s=%s: Invalid value for specified option",
					 opt, val);
			env->strsize = (unsigned)n;
		}
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
 * `#pragma D option NAME[=VALUE]` lines set what -x NAME[=VALUE] sets, for
 * the options xdt has (quiet, bufsize, switchrate, strsize); other
 * options are still ignored, as every #pragma line was before (the lexer
 * skips them all).  Applied before the source is compiled, so strsize
 * holds for the whole program.
 */
static void apply_pragmas(const char *src, struct dt_opts *o,
			  struct dt_env *env, int *bufsize_set)
{
	const char *ln;

	for (ln = src; ln && *ln; ln = strchr(ln, '\n'), ln = ln ? ln + 1 : NULL) {
		char name[128];
		const char *s = ln;
		size_t n;

		if (*s != '#')
			continue;
		s += 1 + strspn(s + 1, " \t");
		if (strncmp(s, "pragma", 6))
			continue;
		s += 6 + strspn(s + 6, " \t");
		if (strncmp(s, "D", 1) || !strchr(" \t", s[1]))
			continue;
		s += 1 + strspn(s + 1, " \t");
		if (strncmp(s, "option", 6) || !strchr(" \t", s[6]))
			continue;
		s += 6 + strspn(s + 6, " \t");
		n = strcspn(s, " \t\r\n");
		if (!n || n >= sizeof(name))
			continue;
		memcpy(name, s, n);
		name[n] = 0;
		n = strcspn(name, "=");
		if (!strcmp(name, "quiet") ||
		    ((n == 7 && !strncmp(name, "bufsize", 7)) ||
		     (n == 10 && !strncmp(name, "switchrate", 10)) ||
		     (n == 7 && !strncmp(name, "strsize", 7)))) {
			set_option(name, o, env);
			*bufsize_set |= !strncmp(name, "bufsize", 7);
		}
	}
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

	memset(&lmatch, 0, sizeof(lmatch));
	memset(&p, 0, sizeof(p));
	while ((c = getopt(argc, argv, "+n:s:lvqc:p:eSx:P:m:f:X:h")) != -1) {
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
			set_option(optarg, &o, &env);
			bufsize_set |= strstr(optarg, "bufsize") != NULL;
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
		if (src[i].file) {
			const char *text = read_file(src[i].s);

			apply_pragmas(text, &o, &env, &bufsize_set);
			dt_compile(&p, &env, src[i].s, text);
			p.srcdesc[p.nsrc - 1] = xstrdup(src[i].s);
			p.srcfile[p.nsrc - 1] = 1;
		} else {
			apply_pragmas(src[i].s, &o, &env, &bufsize_set);
			dt_compile(&p, &env, "<cmdline>", src[i].s);
		}
	}
	prog_layout(&p);
	p.bufsize = bufsize_set ? (unsigned)o.bufsize : 0;
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
