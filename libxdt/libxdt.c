// SPDX-License-Identifier: GPL-2.0
/*
 * libxdt.c - the library's front half: handles, DTrace's options (-x and
 * #pragma D option), compiling with errors as values.  The execution half
 * (go, work, stop, aggregation walks) is consumer.c.  See libxdt.h.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <setjmp.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <dirent.h>
#include <unistd.h>
#include "dt_consumer.h"
#include "libxdt.h"

#define HERR(h, ...) (snprintf((h)->errmsg, sizeof((h)->errmsg), __VA_ARGS__), -1)

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
	case 't':
		if (n >> 23)
			return 0;	/* past 2^63 */
		n <<= 10; /* fall through */
	case 'g': n <<= 10; /* fall through */
	case 'm': n <<= 10; /* fall through */
	case 'k': n <<= 10; end++; break;
	case 0: break;
	default: return 0;
	}
	return *end ? 0 : n;
}

/*
 * A rate option's suffixes, as DTrace's dt_opt_rate() takes them (either
 * case): nanoseconds per unit, or 0 for a frequency (hz).  A number alone
 * is nanoseconds, as DTrace's.
 */
static const struct { const char *name; unsigned long long ns; } rate_units[] = {
	{ "ns", 1 }, { "nsec", 1 }, { "us", 1000 }, { "usec", 1000 },
	{ "ms", 1000000 }, { "msec", 1000000 },
	{ "s", 1000000000ULL }, { "sec", 1000000000ULL },
	{ "m", 60 * 1000000000ULL }, { "min", 60 * 1000000000ULL },
	{ "h", 3600 * 1000000000ULL }, { "hour", 3600 * 1000000000ULL },
	{ "d", 86400 * 1000000000ULL }, { "day", 86400 * 1000000000ULL },
	{ "hz", 0 }, { "", 1 },
};

/*
 * A rate or an interval -> microseconds between buffer reads (at least
 * 1); 0 on error.  An integer, as DTrace reads it (strtoull, base 0: no
 * fractions); 0 is refused (xdt has no "as fast as it can").
 */
static long parse_rate(const char *v)
{
	unsigned long long n, ns;
	char *end;

	if (!isdigit((unsigned char)*v))
		return 0;
	errno = 0;
	n = strtoull(v, &end, 0);
	if (errno || !n)
		return 0;
	for (size_t i = 0; i < sizeof(rate_units) / sizeof(rate_units[0]); i++) {
		if (strcasecmp(end, rate_units[i].name))
			continue;
		if (!rate_units[i].ns)
			ns = 1000000000ULL / n;
		else if (n > (unsigned long long)LONG_MAX / rate_units[i].ns)
			return 0;
		else
			ns = n * rate_units[i].ns;
		return ns < 1000 ? 1 : (long)(ns / 1000);
	}
	return 0;
}

/*
 * The options -x and `#pragma D option` take: DTrace's names.  Each
 * knows how its value is read; the ones xdt does not act on yet are
 * accepted (scripts set them routinely) and named on stderr once, so
 * nothing is ignored silently.
 */
enum optkind { OPT_FLAG, OPT_SIZE, OPT_RATE, OPT_COUNT, OPT_ANY };
static void opt_apply(const char *name, const char *val, unsigned long long n,
		      long us, struct xdt_hdl *c);

/* -x fbtmode=NAME: XDT_FBTMODE_*, or -1 */
static int fbtmode_of(const char *val)
{
	static const char *const names[] = XDT_FBTMODE_NAMES;
	unsigned i;

	for (i = 0; val && i < XDT_FBTMODE_NMODES; i++)
		if (!strcmp(val, names[i]))
			return (int)i;
	return -1;
}

static const struct { const char *name; enum optkind kind; int implemented; } options[] = {
	{ "quiet", OPT_FLAG, 1 }, { "bufsize", OPT_SIZE, 1 },
	{ "switchrate", OPT_RATE, 1 }, { "strsize", OPT_SIZE, 1 },
	{ "dynvarsize", OPT_SIZE, 1 }, { "cleanrate", OPT_RATE, 1 },
	{ "errtags", OPT_FLAG, 1 }, { "defaultargs", OPT_FLAG, 1 },
	{ "stackframes", OPT_COUNT, 1 }, { "zdefs", OPT_FLAG, 1 },
	{ "aggrate", OPT_RATE, 1 }, { "aggsize", OPT_SIZE, 1 },
	{ "bufpolicy", OPT_ANY, 1 }, { "bufresize", OPT_ANY, 1 },
	{ "cpu", OPT_COUNT, 1 }, { "destructive", OPT_FLAG, 1 },
	{ "flowindent", OPT_FLAG, 1 }, { "grabanon", OPT_FLAG, 1 },
	{ "jstackframes", OPT_COUNT, 1 }, { "jstackstrsize", OPT_SIZE, 0 },
	{ "nspec", OPT_COUNT, 1 }, { "specsize", OPT_SIZE, 1 },
	{ "stackindent", OPT_COUNT, 1 }, { "statusrate", OPT_RATE, 1 },
	{ "ustackframes", OPT_COUNT, 1 }, { "aggsortkey", OPT_FLAG, 1 },
	{ "aggsortkeypos", OPT_COUNT, 1 }, { "aggsortpos", OPT_COUNT, 1 },
	{ "aggsortrev", OPT_FLAG, 1 }, { "aggpack", OPT_FLAG, 1 },
	{ "aggzoom", OPT_FLAG, 1 }, { "agghist", OPT_FLAG, 1 }, { "rawbytes", OPT_FLAG, 1 },
	{ "droptags", OPT_FLAG, 1 }, { "linkmode", OPT_ANY, 0 },
	{ "temporal", OPT_FLAG, 1 }, { "oformat", OPT_ANY, 1 },
	{ "encoding", OPT_ANY, 1 }, { "version", OPT_ANY, 0 },
	{ "fbtmode", OPT_ANY, 1 },
	{ "strip", OPT_FLAG, 0 }, { "amin", OPT_ANY, 1 },
	{ "argref", OPT_FLAG, 1 }, { "core", OPT_ANY, 0 },
	{ "cpphdrs", OPT_FLAG, 0 }, { "cpppath", OPT_ANY, 0 },
	{ "ctypes", OPT_ANY, 0 }, { "dtypes", OPT_ANY, 0 },
	{ "evaltime", OPT_ANY, 0 }, { "iregs", OPT_COUNT, 1 },
	{ "knodefs", OPT_FLAG, 0 }, { "ldpath", OPT_ANY, 0 },
	{ "lazyload", OPT_FLAG, 0 }, { "late", OPT_ANY, 0 },
	{ "modpath", OPT_ANY, 0 }, { "nolibs", OPT_FLAG, 1 },
	{ "pgmax", OPT_COUNT, 0 }, { "pspec", OPT_FLAG, 0 },
	{ "stdc", OPT_ANY, 1 }, { "syslibdir", OPT_ANY, 1 },
	{ "tree", OPT_COUNT, 0 }, { "tregs", OPT_COUNT, 0 },
	{ "udefs", OPT_FLAG, 0 }, { "verbose", OPT_FLAG, 0 },
	{ "incdir", OPT_ANY, 1 }, { "define", OPT_ANY, 1 },
	{ "undef", OPT_ANY, 1 }, { "libdir", OPT_ANY, 1 },
	{ "cpp", OPT_FLAG, 1 },
	/* the -c command's environment (DTrace's dt_opt_setenv) */
	{ "setenv", OPT_ANY, 1 }, { "unsetenv", OPT_ANY, 1 },
	/* xdt's own: run BEGIN/END/ERROR programs in libxdt's host VM */
	{ "hostvm", OPT_FLAG, 1 },
	/* xdt's own: kernel types from this vmlinux's BTF (compiler/btf.c) */
	{ "vmlinux", OPT_ANY, 1 },
};

_Static_assert(sizeof(options) / sizeof(options[0]) <= DT_NOPTIONS, "DT_NOPTIONS");

static void warn_unimplemented(struct xdt_hdl *h)
{
	for (size_t i = 0; i < sizeof(options) / sizeof(options[0]); i++)
		if (h->unimplemented[i])
			fprintf(stderr, "dtrace: option %s is not implemented yet; ignored\n",
				options[i].name);
}

/* Returns 0, or -1 with DTrace's message in @why. */
static int set_one(const char *opt, const char *val, struct xdt_hdl *c,
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
	/*
	 * setenv/unsetenv change the environment commands are started with:
	 * by the time a program's pragmas are read that may be too late, so
	 * DTrace refuses them there (EDT_BADOPTCTX).  xdt's -c child inherits
	 * dtrace's own environment, so that is what they change.
	 */
	if (!strcmp(opt, "setenv") || !strcmp(opt, "unsetenv")) {
		int set = opt[0] == 's', r;
		char *eq;

		if (c->in_pragma) {
			snprintf(why, len, "Option cannot be used from within a D program");
			return -1;
		}
		if (!val || !*val || (!set && strchr(val, '='))) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		if (set && (eq = strchr(val, '='))) {
			char *name = xstrdup(val);

			name[eq - val] = 0;
			r = setenv(name, eq + 1, 1);
			xfree(name);
		} else {
			r = set ? setenv(val, "", 1) : unsetenv(val);
		}
		if (r) {
			snprintf(why, len, "failed to set -x %s=%s: %s", opt, val,
				 strerror(errno));
			return -1;
		}
		return 0;
	}
	switch (options[i].kind) {
	case OPT_FLAG: {
		/* DTrace's spellings of on and off, in any case */
		static const char *const on[] = { "", "1", "set", "yes", "true",
			"on", "enable", "enabled" };
		static const char *const off[] = { "0", "unset", "no", "false",
			"off", "disable", "disabled" };
		int k = -1;

		for (size_t j = 0; val && k < 0 && j < sizeof(on) / sizeof(on[0]); j++)
			if (!strcasecmp(val, on[j]))
				k = 1;
		for (size_t j = 0; val && k < 0 && j < sizeof(off) / sizeof(off[0]); j++)
			if (!strcasecmp(val, off[j]))
				k = 0;
		if (val && k < 0) {
			snprintf(why, len, "failed to set -x %s=%s: Invalid value for specified option",
				 opt, val);
			return -1;
		}
		n = val ? (unsigned long long)k : 1;
		break;
	}
	case OPT_SIZE:
	case OPT_COUNT:
		if (!val || !*val) {
			snprintf(why, len, "failed to set -x %s: Invalid value for specified option", opt);
			return -1;
		}
		n = parse_size(val);
		/* bufsize may ask for more than there is: bufresize decides */
		/*
		 * strsize past what the kernel takes (load.c) is refused
		 * here, with the option's name, not at enabling.
		 */
		/* -x cpu=0 is CPU 0 */
		if ((!n && strcmp(opt, "cpu")) ||
		    (n > (1ULL << 31) && strcmp(opt, "bufsize")) ||
		    (!strcmp(opt, "strsize") && (n < 2 || n > XDT_STRSIZE_MAX)) ||
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
		if (!strcmp(opt, "encoding") &&
		    (!val || (strcmp(val, "ascii") && strcmp(val, "utf8")))) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		if (!strcmp(opt, "bufpolicy") &&
		    (!val || (strcmp(val, "switch") && strcmp(val, "fill") &&
			      strcmp(val, "ring")))) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		/* DTrace's -X: a, c, s or t (compiler/cpp.c, stdc_modes) */
		if (!strcmp(opt, "stdc") &&
		    (!val || !val[0] || val[1] || !strchr("acst", val[0]))) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		/* DTrace's attribute triple (its parts left out: Standard, Common) */
		if (!strcmp(opt, "amin")) {
			struct dattr a;

			if (!val || dt_str2attr(val, &a)) {
				snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
					 opt, val ? "=" : "", val ? val : "");
				return -1;
			}
		}
		if (!strcmp(opt, "fbtmode") && fbtmode_of(val) < 0) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		if (!strcmp(opt, "bufresize") &&
		    (!val || (strcmp(val, "auto") && strcmp(val, "manual")))) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		/* FreeBSD's oformat: text or json here (no xml, html) */
		if (!strcmp(opt, "oformat") &&
		    (!val || (strcmp(val, "text") && strcmp(val, "json")))) {
			snprintf(why, len, "failed to set -x %s%s%s: Invalid value for specified option",
				 opt, val ? "=" : "", val ? val : "");
			return -1;
		}
		break;
	}
	if (!options[i].implemented) {
		/* said once, after compiling: a compile error comes first */
		c->unimplemented[i] = 1;
		return 0;
	}
	opt_apply(opt, val, n, us, c);
	return 0;
}

static void opt_apply(const char *name, const char *val, unsigned long long n,
		      long us, struct xdt_hdl *c)
{
	(void)val;
	if (!strcmp(name, "quiet")) {
		c->o.quiet = (int)n;
	} else if (!strcmp(name, "destructive")) {
		c->o.destructive = (int)n;
	} else if (!strcmp(name, "rawbytes")) {
		c->pr.rawbytes = (int)n;
	} else if (!strcmp(name, "hostvm")) {
		c->o.hostvm = (int)n;
	} else if (!strcmp(name, "vmlinux")) {
		btf_use(val);
	} else if (!strcmp(name, "libdir")) {	/* -L */
		if (val && c->nlibdirs < (int)(sizeof(c->libdirs) / sizeof(c->libdirs[0])))
			c->libdirs[c->nlibdirs++] = xstrdup(val);
	} else if (!strcmp(name, "syslibdir")) {
		xfree(c->syslibdir);
		c->syslibdir = val ? xstrdup(val) : NULL;
	} else if (!strcmp(name, "nolibs")) {
		c->nolibs = (int)n;
	} else if (!strcmp(name, "zdefs")) {	/* -Z */
		c->zdefs = (int)n;
	} else if (!strcmp(name, "grabanon")) {	/* -a: xdt_go() claims */
		c->grabanon = (int)n;
	} else if (!strcmp(name, "flowindent")) {	/* -F */
		c->pr.flow.on = (int)n;
	} else if (!strcmp(name, "errtags")) {
		dt_errtags = (int)n;
	} else if (!strcmp(name, "defaultargs")) {
		c->env.defaultargs = (int)n;
	} else if (!strcmp(name, "argref")) {
		c->env.argref = (int)n;
	} else if (!strcmp(name, "amin")) {	/* checked: a valid triple */
		c->env.eattr = dt_str2attr(val, &c->env.amin) == 0;
	} else if (!strcmp(name, "bufsize")) {
		/*
		 * More than the kernel gives one CPU (64 MiB): bufresize=auto
		 * (DTrace's default) lowers it and says so, as DTrace does
		 * when it halves a buffer it cannot allocate; manual refuses.
		 */
		if (n > XDT_BUFSIZE_MAX) {
			if (c->bufresize_manual) {
				c->bufsize_toobig = 1;
			} else {
				fprintf(stderr, "dtrace: buffer size lowered to %um\n",
					XDT_BUFSIZE_MAX >> 20);
				n = XDT_BUFSIZE_MAX;
			}
		}
		if (n)
			c->o.bufsize = (size_t)n;
		c->bufsize_set = 1;
	} else if (!strcmp(name, "bufpolicy")) {
		c->p.bufpolicy = !strcmp(val, "fill") ? XDT_BUFPOLICY_FILL :
				 !strcmp(val, "ring") ? XDT_BUFPOLICY_RING :
				 XDT_BUFPOLICY_SWITCH;
	} else if (!strcmp(name, "cpu")) {
		/* xdt.ko refuses a CPU the machine does not have */
		if (n < 65536)
			c->p.onecpu = (unsigned)n + 1;
	} else if (!strcmp(name, "fbtmode")) {
		c->p.fbtmode = (unsigned)fbtmode_of(val);
	} else if (!strcmp(name, "bufresize")) {
		c->bufresize_manual = val && !strcmp(val, "manual");
	} else if (!strcmp(name, "aggsize")) {
		/* the kernel rounds it up to a page and refuses above 64 MiB */
		c->aggsize = n > UINT_MAX ? UINT_MAX : (unsigned)n;
	} else if (!strcmp(name, "oformat")) {
		c->pr.json = val && !strcmp(val, "json");
	} else if (!strcmp(name, "define") || !strcmp(name, "undef") ||
		   !strcmp(name, "incdir")) {
		/*
		 * DTrace's -D, -U and -I are these options (its dtrace.c
		 * sets them): mcpp's -D/-U/-I, after the CLI's own.
		 */
		char *a = xzalloc(strlen(val ? val : "") + 3);

		sprintf(a, "-%c%s", name[0] == 'd' ? 'D' : name[0] == 'u' ?
			'U' : 'I', val ? val : "");
		c->xcpp = xrealloc(c->xcpp, (c->nxcpp + 1) * sizeof(*c->xcpp));
		c->xcpp[c->nxcpp++] = a;
	} else if (!strcmp(name, "cpp")) {
		c->cpp = (int)n;	/* DTrace's name for -C */
	} else if (!strcmp(name, "stdc")) {
		c->stdc[2] = val[0];	/* "-Xa": mcpp's mode, __STDC__ */
	} else if (!strcmp(name, "stackindent")) {
		print_stackindent = n > 256 ? 256 : (unsigned)n;
	} else if (!strcmp(name, "temporal")) {
		c->p.temporal = (int)n;
	} else if (!strcmp(name, "droptags")) {
		c->o.droptags = (int)n;
	} else if (!strcmp(name, "nspec")) {
		c->p.nspec = (unsigned)n;
	} else if (!strcmp(name, "specsize")) {
		c->p.specsize = (unsigned)n;
	} else if (!strcmp(name, "encoding")) {
		c->pr.sort.utf8 = !strcmp(val, "utf8") ? 1 :
				  !strcmp(val, "ascii") ? -1 : 0;
	} else if (!strcmp(name, "agghist")) {
		c->pr.sort.hist = (int)n;
	} else if (!strcmp(name, "aggpack")) {
		c->pr.sort.pack = (int)n;
	} else if (!strcmp(name, "aggzoom")) {
		c->pr.sort.zoom = (int)n;
	} else if (!strcmp(name, "aggsortkey")) {
		c->pr.sort.key = (int)n;
	} else if (!strcmp(name, "aggsortrev")) {
		c->pr.sort.rev = (int)n;
	} else if (!strcmp(name, "aggsortkeypos")) {
		c->pr.sort.keypos = (int)n;
	} else if (!strcmp(name, "aggsortpos")) {
		c->pr.sort.pos = (int)n;
	} else if (!strcmp(name, "statusrate")) {
		c->o.statusrate_us = us;
	} else if (!strcmp(name, "aggrate")) {
		c->o.aggrate_us = us;
	} else if (!strcmp(name, "switchrate")) {
		c->o.switchrate_us = us;
		/*
		 * From the new rate on: before GO the first read's rule
		 * (dt_drain_next); while tracing (setopt() in D) the next read
		 * a whole new interval on, as DTrace's -- not the first read's
		 * 100 ms and a doubling back up, which read tst.dynopt.d's
		 * aggregation before the 5 s it sets were up.
		 */
		c->drain_ns = c->running ? us * 1000LL : 0;
	} else if (!strcmp(name, "strsize")) {
		c->env.strsize = (unsigned)n;	/* 2 .. XDT_STRSIZE_MAX */
	} else if (!strcmp(name, "dynvarsize")) {
		c->env.dynvarsize = (unsigned)n;
	} else if (!strcmp(name, "cleanrate")) {
		/*
		 * In Hz, held to what the kernel takes (1 .. 10000:
		 * core/portable/vars.c's CLEAN_MAX), as DTrace holds it to
		 * dtrace_cleanrate_min/max instead of refusing it.
		 */
		long hz = us ? 1000000 / us : 0;

		c->env.cleanrate = hz < 1 ? 1 : hz > 10000 ? 10000 : (unsigned)hz;
	} else if (!strcmp(name, "stackframes")) {
		if (n >= 1 && n <= XDT_MAXSTACK)
			c->env.stackframes = (unsigned)n;
	} else if (!strcmp(name, "ustackframes")) {
		if (n >= 1 && n <= XDT_MAXSTACK)
			c->env.ustackframes = (unsigned)n;
	} else if (!strcmp(name, "iregs")) {
		/* DIF's register field is 8 bits; the kernel checks its own */
		if (n >= 2 && n <= 256)
			c->env.iregs = (unsigned)n;
	} else if (!strcmp(name, "jstackframes")) {
		if (n >= 1 && n <= XDT_MAXSTACK)
			c->env.jstackframes = (unsigned)n;
	}
}


static int pragma_err(struct xdt_cerror *err, int tag, const char *file, int line,
		      const char *ln, const char *msg)
{
	const char *e = strchr(ln, '\n');

	memset(err, 0, sizeof(*err));
	err->tag = tag;
	err->tagname = dt_errtag_name(tag);
	snprintf(err->file, sizeof(err->file), "%s", file);
	err->line = line;
	err->col = 1;
	snprintf(err->msg, sizeof(err->msg), "%s", msg);
	snprintf(err->srcline, sizeof(err->srcline), "%.*s",
		 (int)(e ? e - ln : (long)strlen(ln)), ln);
	return -1;
}

/*
 * `#pragma D option NAME[=VALUE]` lines set what -x NAME[=VALUE] sets,
 * before the source is compiled (so strsize holds for the whole program),
 * with DTrace's errors for a malformed or unknown one.
 */
static int apply_pragmas(const char *src, const char *file, struct xdt_hdl *c,
			 struct xdt_cerror *err)
{
	const char *ln;
	int line = 0;

	for (ln = src; ln && *ln; ln = strchr(ln, '\n'), ln = ln ? ln + 1 : NULL) {
		char name[256], why[300];
		const char *s = ln;
		size_t n;

		line++;
		s += strspn(s, " \t\f\v");	/* indented, as the lexer's */
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
		if (!n || n >= sizeof(name))
			return pragma_err(err, DT_D_PRAGMA_MALFORM, file, line, ln,
					  "malformed #pragma D option");
		memcpy(name, s, n);
		name[n] = 0;
		/* one word: "nspec=24 * 44" is DTrace's malformed pragma */
		s += n;
		s += strspn(s, " \t");
		if (*s && *s != '\n' && *s != '\r' && strncmp(s, "/*", 2) &&
		    strncmp(s, "//", 2))
			return pragma_err(err, DT_D_PRAGMA_MALFORM, file, line, ln,
					  "malformed #pragma D option");
		{
			char *val = strchr(name, '=');

			if (val)
				*val++ = 0;
			int r;

			c->in_pragma = 1;
			r = set_one(name, val, c, why, sizeof(why));
			c->in_pragma = 0;
			if (r) {
				char msg[400];

				snprintf(msg, sizeof(msg), "failed to set option '%s'%s%s: %s",
					 name, val ? " to " : "", val ? val : "",
					 strstr(why, "Invalid option name") ?
					 "Invalid option name" :
					 strstr(why, "within a D program") ?
					 "Option cannot be used from within a D program" :
					 "Invalid value for specified option");
				return pragma_err(err, DT_D_PRAGMA_OPTSET, file, line, ln, msg);
			}
		}
	}
	return 0;
}

/* XDT_GUARDED's landing (dt_consumer.h): dt_fatal()'s message, ENOMEM. */
void dt_guard_failed(struct xdt_hdl *h)
{
	snprintf(h->errmsg, sizeof(h->errmsg), "%s", dt_lasterr.msg);
	errno = ENOMEM;
}

xdt_hdl_t *xdt_open(void)
{
	/* calloc, not xzalloc: there is no handle to return the error in */
	struct xdt_hdl *h = calloc(1, sizeof(*h));

	if (!h)
		return NULL;
	h->zone = dt_zone_new();
	if (!h->zone) {
		free(h);
		return NULL;
	}

	h->o.bufsize = 4u << 20;
	/*
	 * DTrace's rates: buffers read every second, aggregations snapshot
	 * every second.  Status (exit(), a full fill buffer, the -c child)
	 * is asked every 100 ms where DTrace asks every second: a run ends
	 * promptly without reading its buffers more often than DTrace does
	 * -- unless they fill (consumer.c, dt_drain_next).
	 */
	h->o.switchrate_us = 1000000;
	h->o.statusrate_us = 100000;
	h->o.aggrate_us = 1000000;	/* DTrace's default, 1hz */
	h->env.pid = getpid();
	h->env.target = -1;
	h->env.strsize = 256;
	memcpy(h->stdc, "-Xa", 4);	/* DTrace's default -X */
	h->env.ids[0] = getpid();
	h->env.ids[1] = getppid();
	h->env.ids[2] = getuid();
	h->env.ids[3] = getgid();
	h->env.ids[4] = geteuid();
	h->env.ids[5] = getegid();
	h->env.ids[6] = getpgid(0);
	h->env.ids[7] = getsid(0);
	h->fd = -1;
	return h;
}

void xdt_close(xdt_hdl_t *h)
{
	if (!h)
		return;
	if (h->fd >= 0)
		close(h->fd);
	xdt_hostvm_close(h->vm);
	xfree(h->buf);
	xdt_temporal_free(h);
	aggtab_free(h->pr.aggs);
	xfree(h->eps);
	xfree(h->blob);
	xfree(h->recipe);
	xfree(h->anonimg);
	xfree(h->anonargv);
	/* the compiled program: its trees, types, strings (xdt_compile) */
	dt_zone_free(h->zone);
	xfree(h);
}

const char *xdt_version(void)
{
	return DT_VERS_STRING;
}

const char *xdt_errmsg(const xdt_hdl_t *h)
{
	return h->errmsg;
}

void xdt_set_output(xdt_hdl_t *h, FILE *fp)
{
	h->pr.orig = h->pr.out = fp;
}

int xdt_setopt(xdt_hdl_t *h, const char *name, const char *value)
{
	/* what an option keeps (-x libdir's directory) goes with the handle */
	struct dt_zone *z = dt_zone_enter(h->zone);
	volatile int ret = -1;

	XDT_GUARDED(h, ret = -1,
		    ret = set_one(name, value, h, h->errmsg, sizeof(h->errmsg));
		    if (!ret)
			    dt_recipe_pair(h, value ? "x" : "o", name, value));
	dt_zone_enter(z);
	return ret;
}

void xdt_set_macros(xdt_hdl_t *h, char **argv, int argc)
{
	h->env.macros = argv;
	h->env.nmacros = argc;
	XDT_GUARDED(h, return,
		    dt_recipe_add(h, "m", argc, (const char *const *)argv));
}

void xdt_set_target(xdt_hdl_t *h, pid_t pid)
{
	h->env.target = pid;
}

int xdt_desc_expand(xdt_hdl_t *h, const char *desc, char *out, size_t cap)
{
	switch (dt_desc_macros(&h->env, desc, out, cap, NULL)) {
	case 0:
		return 0;
	case DT_D_MACRO_UNDEF:
		return HERR(h, "invalid probe description \"%s\": $target is only "
			    "valid with -c or -p", desc);
	case DT_D_PDESC_INVAL:
		return HERR(h, "invalid probe description \"%s\": Undefined macro "
			    "variable in probe description", desc);
	default:
		return HERR(h, "invalid probe description \"%s\": too long", desc);
	}
}

/*
 * Probes in @pid, or user stacks anywhere: their frames are named from the
 * objects of the image the process runs once it has exec'd, read at GO
 * (dtrace -c's command may have exited before its records are printed).
 */
int xdt_uses_process(xdt_hdl_t *h, pid_t pid)
{
	const struct prog *p = &h->p;

	for (int i = 0; i < p->nclauses; i++) {
		const struct clause *c = &p->clauses[i];

		if (dt_uproc_pid(&c->desc) == pid)
			return 1;
		for (int r = 0; r < c->nrecs; r++)
			if (c->recs[r].type == DT_TYPE_USTACK ||
			    c->recs[r].type == DT_TYPE_USYM)
				return 1;
	}
	for (int a = 0; a < p->naggs; a++)
		for (int k = 0; k < p->aggs[a].nkeys; k++)
			if (p->aggs[a].keytype[k] == DT_TYPE_USTACK ||
			    p->aggs[a].keytype[k] == DT_TYPE_USYM)
				return 1;
	return 0;
}

int xdt_run_to_entry(xdt_hdl_t *h, pid_t pid)
{
	return dt_uproc_to_entry(pid, h->errmsg, sizeof(h->errmsg));
}

void xdt_set_cpp(xdt_hdl_t *h, int on, char **args, int nargs)
{
	h->cpp |= on;	/* or -x cpp, set before */
	h->cppargs = args;
	h->ncpp = nargs;
	XDT_GUARDED(h, return,
		    dt_recipe_add(h, on ? "C" : "c", nargs,
				  (const char *const *)args));
}

long xdt_switchrate_us(const xdt_hdl_t *h)
{
	/* how long the CLI sleeps between xdt_work() calls: until the first
	   of the three rates is due, as dtrace_sleep() does; the buffers'
	   rate is the current read interval (dt_drain_next) */
	long sw = h->drain_ns > 0 && h->drain_ns / 1000 < h->o.switchrate_us ?
		  (long)(h->drain_ns / 1000) : h->o.switchrate_us;
	long us = h->o.statusrate_us < sw ? h->o.statusrate_us : sw;

	return h->o.aggrate_us < us ? h->o.aggrate_us : us;
}

static void cerror_from(struct xdt_cerror *err, const struct dt_error *e)
{
	memset(err, 0, sizeof(*err));
	err->tag = e->tag;
	err->tagname = dt_errtag_name(e->tag);
	snprintf(err->file, sizeof(err->file), "%s", e->file);
	err->line = e->line;
	err->col = e->col;
	snprintf(err->msg, sizeof(err->msg), "%s", e->msg);
	snprintf(err->srcline, sizeof(err->srcline), "%s", e->srcline);
}

static int compile_once(xdt_hdl_t *h, const char *src, const char *name,
			int file, int cpp, struct type_mark *mark,
			struct xdt_cerror *err)
{
	jmp_buf jb;
	jmp_buf *volatile saved = dt_errjmp;
	const char *volatile text = src;

	if (cpp) {
		char why[4096];
		char **args = xzalloc((h->ncpp + h->nxcpp + 2) * sizeof(*args));
		char *out;

		/* (memcpy from NULL is undefined even for 0 bytes) */
		if (h->ncpp)
			memcpy(args, h->cppargs, h->ncpp * sizeof(*args));
		if (h->nxcpp)
			memcpy(args + h->ncpp, h->xcpp, h->nxcpp * sizeof(*args));
		args[h->ncpp + h->nxcpp] = h->stdc;
		out = dt_cpp(src, name, args, h->ncpp + h->nxcpp + 1, why, sizeof(why));
		xfree(args);

		if (!out) {
			memset(err, 0, sizeof(*err));
			err->tag = DT_D_SYNTAX;
			err->tagname = dt_errtag_name(DT_D_SYNTAX);
			snprintf(err->file, sizeof(err->file), "%s", name);
			snprintf(err->msg, sizeof(err->msg), "preprocessor: %.480s", why);
			return -1;
		}
		text = out;
	}
	if (apply_pragmas(text, name, h, err))
		return -1;
	/*
	 * Compile errors unwind here (dt_cerr), never exit the process; what
	 * the failed text added to the program is dropped, so the handle
	 * compiles on as if it had not been given.  (Types it declared stay
	 * in the handle's type table.)
	 */
	struct prog *p = &h->p;
	const int nc = p->nclauses, na = p->nacts, nd = p->ndifos, ng = p->naggs,
		  nv = p->nvars, ni = p->ninlines, nx = p->nxlators, ns = p->nsrc,
		  np = p->nproviders;

	if (setjmp(jb)) {
		dt_errjmp = saved;
		dt_zone_enter(h->zone);	/* an unwind out of btf.c has none */
		cerror_from(err, &dt_lasterr);
		if (!err->file[0])	/* dt_fatal's: no place in the source */
			snprintf(err->file, sizeof(err->file), "%s", name);
		p->nclauses = nc, p->nacts = na, p->ndifos = nd, p->naggs = ng;
		p->nvars = nv, p->ninlines = ni, p->nxlators = nx, p->nsrc = ns;
		p->nproviders = np;
		return -1;
	}
	dt_errjmp = &jb;
	if (!p->strsize) {	/* the first text: now strsize is final */
		/* (set after: an unwind out of types_init() starts it over) */
		types_init(h->env.strsize);
		p->strsize = h->env.strsize;
	}
	if (mark)
		type_mark(mark);
	dt_compile(&h->p, &h->env, name, text);
	dt_errjmp = saved;
	if (file > 0) {
		h->p.srcdesc[h->p.nsrc - 1] = xstrdup(name);
		h->p.srcfile[h->p.nsrc - 1] = 1;
	}
	prog_temporal(&h->p);
	prog_layout(&h->p);
	agg_stack_slots(&h->p);
	h->p.bufsize = h->bufsize_set ? (unsigned)h->o.bufsize : 0;
	h->p.dynvarsize = h->env.dynvarsize;
	h->p.aggsize = h->aggsize;
	h->p.cleanrate = h->env.cleanrate;
	return 0;
}

/*
 * The D library: every *.d file of the -L directories, then of the system
 * directory (-x syslibdir, default XDT_LIBDIR, which the lab installs in
 * each guest), in name order (a file after those its "#pragma D
 * depends_on library" lines name), a name found twice taken from the
 * first directory -- DTrace's /usr/lib/dtrace.  Translators to the stable types
 * (psinfo_t, bufinfo_t, ...) and their inlines (curpsinfo) live there.
 *
 * Loaded lazily: the library reads kernel types, and indexing BTF costs
 * every dtrace start-up tens of milliseconds under TCG, so a
 * program is first compiled without it.  Only if that fails -- an
 * identifier, type or translator it does not know, or a stable probe's
 * translated argument types -- is the library compiled and the program
 * compiled again.  A program the library would have made fail (one that
 * redeclares curpsinfo) is therefore accepted; DTrace would refuse it.
 */
#ifndef XDT_LIBDIR
#define XDT_LIBDIR "/usr/lib/xdt"
#endif

char *dt_readfile(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = NULL;
	size_t n = 0, cap = 0, r;

	if (!f)
		return NULL;
	do {
		if (n + 4096 + 1 > cap)
			buf = xrealloc(buf, cap = cap * 2 + 8192);
		r = fread(buf + n, 1, cap - n - 1, f);
		n += r;
	} while (r);
	/* a read that failed part-way is an error, not a shorter program */
	if (ferror(f)) {
		int e = errno;

		fclose(f);
		xfree(buf);
		errno = e ? e : EIO;
		return NULL;
	}
	fclose(f);
	buf[n] = 0;
	return buf;
}

static int d_file(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 2 && !strcmp(d->d_name + n - 2, ".d") && d->d_name[0] != '.';
}

/* One file of the D library, read, with its place in the load order. */
struct libfile {
	char *name, *path, *text;
	int state;		/* 0 not yet compiled, 1 being compiled, 2 done */
};

static void lib_error(struct xdt_cerror *err, const char *where, const char *what)
{
	memset(err, 0, sizeof(*err));
	err->tag = DT_D_SYNTAX;
	err->tagname = dt_errtag_name(DT_D_SYNTAX);
	snprintf(err->file, sizeof(err->file), "%.255s", where);
	snprintf(err->msg, sizeof(err->msg), "%s: %s", what, strerror(errno));
}

/*
 * Compile library file @i after the files it names in "#pragma D
 * depends_on library F" lines, as DTrace orders its library; a cycle is
 * broken where it closes, and a file the library lacks is the pragma's
 * own error (pragma.c) when @i compiles.
 */
static int load_lib(xdt_hdl_t *h, struct libfile *f, int nf, int i,
		    struct xdt_cerror *err)
{
	int ret;

	if (f[i].state)
		return 0;
	f[i].state = 1;
	for (const char *l = f[i].text; l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char dep[256];

		if (sscanf(l, " #pragma D depends_on library %255s", dep) != 1)
			continue;
		for (int k = 0; k < nf; k++)
			if (!strcmp(f[k].name, dep) && load_lib(h, f, nf, k, err))
				return -1;
	}
	h->env.library = 1;
	ret = compile_once(h, f[i].text, f[i].path, -1, 0, NULL, err);
	h->env.library = 0;
	f[i].state = 2;
	return ret;
}

static int load_libs(xdt_hdl_t *h, struct xdt_cerror *err)
{
	const char *dirs[9];
	struct libfile *f = NULL;
	int nd = 0, nf = 0, ret = 0;

	h->p.libloaded = 1;
	for (int i = 0; i < h->nlibdirs; i++)
		dirs[nd++] = h->libdirs[i];
	dirs[nd++] = h->syslibdir ? h->syslibdir : XDT_LIBDIR;
	for (int i = 0; i < nd && !ret; i++) {
		struct dirent **ents;
		int n = scandir(dirs[i], &ents, d_file, alphasort);

		/* no such directory is no library; one unreadable is an error */
		if (n < 0 && errno != ENOENT && errno != ENOTDIR) {
			lib_error(err, dirs[i], "cannot read D library directory");
			ret = -1;
		}

		for (int k = 0; k < n; k++) {
			char path[PATH_MAX];
			int dup = 0;
			char *text;

			for (int s = 0; s < nf; s++)
				dup |= !strcmp(f[s].name, ents[k]->d_name);
			snprintf(path, sizeof(path), "%s/%s", dirs[i], ents[k]->d_name);
			text = dup || ret ? NULL : dt_readfile(path);
			if (!dup && !ret && !text) {
				/*
				 * A library file that is there but cannot be
				 * read (ENOMEM, EIO) fails the compile: going
				 * on without it would report its translators
				 * and inlines as missing, far from the cause.
				 */
				lib_error(err, path, "cannot read D library file");
				ret = -1;
			}
			if (text) {
				f = xrealloc(f, (nf + 1) * sizeof(*f));
				f[nf++] = (struct libfile){ xstrdup(ents[k]->d_name),
							    xstrdup(path), text, 0 };
			}
			xfree(ents[k]);
		}
		if (n >= 0)
			xfree(ents);
	}
	/* in name order, each after the files it depends on */
	for (int i = 0; i < nf && !ret; i++)
		ret = load_lib(h, f, nf, i, err);
	for (int i = 0; i < nf; i++) {
		xfree(f[i].name);
		xfree(f[i].path);
		xfree(f[i].text);
	}
	xfree(f);
	return ret;
}

static int compile(xdt_hdl_t *h, const char *src, const char *name, int file,
		   struct xdt_cerror *err)
{
	int ret;

	struct type_mark mark;

	if (!h->env.name0)
		h->env.name0 = file ? name : "";
	ret = compile_once(h, src, name, file, h->cpp, &mark, err);
	/*
	 * A name the program did not know may be the D library's: load it
	 * and try once more.  Not after running out of memory, which the
	 * second try could hide (it would mostly succeed), so that the caller
	 * sees every failed allocation as the error it is.
	 */
	if (ret && err->tag != DT_FATAL && !h->p.libloaded && !h->nolibs) {
		struct xdt_cerror lerr;

		type_rollback(&mark);
		if (load_libs(h, &lerr)) {
			*err = lerr;	/* the library itself is broken */
			return -1;
		}
		ret = compile_once(h, src, name, file, h->cpp, NULL, err);
	}
	return ret;
}

/*
 * Out of memory outside compile_once()'s own unwinding (the library's
 * files, the preprocessor, the program's layout) is a compile error with
 * no place in the source, as the preprocessor's are.
 */
int xdt_compile(xdt_hdl_t *h, const char *src, const char *name, int file,
		struct xdt_cerror *err)
{
	/*
	 * What compiling allocates is the handle's zone's, freed with the
	 * handle (xdt_close); the type table is the handle's own on top of
	 * the process's base types, set aside between its compiles.
	 */
	struct dt_zone *z = dt_zone_enter(h->zone);
	volatile int ret = -1;

	if (h->p.strsize)
		type_rollback(&h->types);
	XDT_GUARDED(h, {
		dt_zone_enter(h->zone);
		cerror_from(err, &dt_lasterr);
		snprintf(err->file, sizeof(err->file), "%s", name);
		ret = -1;
	}, ret = compile(h, src, name, file, err);
	   if (!ret)
		   dt_recipe_pair(h, file ? "S" : "s", name, src));
	type_mark(&h->types);
	types_base_table();
	dt_zone_enter(z);
	return ret;
}

void xdt_dis(xdt_hdl_t *h, FILE *fp)
{
	XDT_GUARDED(h, return, dis_prog(fp, &h->p));
}

int xdt_nclauses(const xdt_hdl_t *h)
{
	return h->p.nclauses;
}

void xdt_warn_unimplemented(xdt_hdl_t *h)
{
	warn_unimplemented(h);
}

void xdt_cerror_print(const xdt_hdl_t *h, const struct xdt_cerror *e, FILE *fp)
{
	struct dt_error de;

	(void)h;
	memset(&de, 0, sizeof(de));
	de.tag = e->tag;
	snprintf(de.file, sizeof(de.file), "%s", e->file);
	de.line = e->line;
	de.col = e->col;
	snprintf(de.msg, sizeof(de.msg), "%s", e->msg);
	snprintf(de.srcline, sizeof(de.srcline), "%s", e->srcline);
	if (!e->line) {
		/* not at a place in the source (the preprocessor's) */
		fprintf(fp, "dtrace: failed to compile script %s: %s\n", e->file, e->msg);
		return;
	}
	dt_error_print(&de, fp);
}
