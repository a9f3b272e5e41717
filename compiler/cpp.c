// SPDX-License-Identifier: GPL-2.0
/*
 * cpp.c - `dtrace -C`: run the C preprocessor over a D script.
 *
 * The preprocessor is mcpp (Debian's mcpp package on the host, a static
 * build from Debian's source at /usr/bin/mcpp in every guest; $XDT_CPP
 * names another).  It runs as a child fed through pipes: the script goes to
 * its stdin, its stdout and stderr come back, all three multiplexed with
 * poll() and a non-blocking writer, so neither side can stall on a full
 * pipe whatever the sizes.
 *
 * mcpp runs in its Standard mode (-@std; -X picks another: stdc_modes),
 * which is what a traditional cpp does to D: comments become white space
 * (-k keeps the columns of what remains), D's `@`, `$1`, backquote and
 * `->` pass through untouched, and the output carries `#line N "file"`
 * markers.  mcpp names its stdin "<stdin>": markers and messages are
 * rewritten to the script's name.
 * DTrace's predefined macros come on top of mcpp's own (__unix__,
 * __linux__, its build's CPU macro, __MCPP); mcpp's -N would drop those but
 * also, applied after -D, any -D of the same names.  -e utf8 fixes the
 * source encoding, which mcpp would otherwise take from $LANG (and warn
 * about C.UTF-8).  Diagnostics keep their first line only: not -j, which
 * also makes mcpp exit 0 after errors.
 *
 * A "#!" first line (an executable D script) becomes an empty line, as
 * DTrace does, so that line numbers stay right.
 *
 * Directives start in column 1, as in the Reiser cpp that DTrace runs: a
 * `#` after white space or a comment is text there, which the D compiler
 * then takes as a control line (`#pragma` and `#line` work; anything else
 * is D_PRAGCTL_INVAL).  mcpp, like every Standard C preprocessor, has no
 * mode with that rule, so such a `#` in the script reaches mcpp as `@#`
 * (text it passes through, macros expanded as the old cpp would), and the
 * `@` goes again in its output.  Files the script #includes are mcpp's to
 * read: their indented directives stay directives.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "cpp.h"
#include "dt_version.h"

/* __SUNW_D_VERSION: the D language version xdt follows (dt_version.h) */
#define DT_CPP_VERSION DT_VERS_STR(DT_VERS_NUM)

struct buf {
	char *p;
	size_t len, cap;
};

static int buf_add(struct buf *b, const char *s, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *p;

		while (cap < b->len + n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memcpy(b->p + b->len, s, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static void seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int executable(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && S_ISREG(st.st_mode) &&
	       access(path, X_OK) == 0;
}

/* @prog itself if it has a '/', else the first match on $PATH, into @out. */
static int find_prog(const char *prog, char *out, size_t outlen)
{
	const char *path = getenv("PATH"), *p, *e;

	if (strchr(prog, '/')) {
		if (!executable(prog) || strlen(prog) >= outlen)
			return -1;
		strcpy(out, prog);
		return 0;
	}
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	for (p = path; ; p = e + 1) {
		size_t n;

		e = strchr(p, ':');
		if (!e)
			e = p + strlen(p);
		n = (size_t)(e - p);
		if (n == 0) /* an empty entry is the current directory */
			snprintf(out, outlen, "%s", prog);
		else if ((size_t)snprintf(out, outlen, "%.*s/%s", (int)n, p,
					  prog) >= outlen)
			out[0] = '\0';
		if (out[0] && executable(out))
			return 0;
		if (!*e)
			break;
	}
	return -1;
}

/*
 * -D and -U in order, resolved here: mcpp applies every -U after every
 * -D, and DTrace applies its options in order.  Each name keeps its last
 * state: a -D option string, or NULL for undefined.
 */
struct macro {
	const char *name;	/* into the option string */
	size_t namelen;
	const char *def;	/* "-Dname=value" or NULL */
	char *owned;		/* def when built here */
};

struct macros {
	struct macro *m;
	int n;
};

static int macro_set(struct macros *ms, const char *opt, const char *def,
		     char *owned)
{
	const char *name = opt + 2;	/* past "-D" / "-U" */
	size_t n = strcspn(name, "=(");
	struct macro *m;
	int i;

	for (i = 0; i < ms->n; i++) {
		if (ms->m[i].namelen == n && !memcmp(ms->m[i].name, name, n)) {
			free(ms->m[i].owned);
			ms->m[i].name = name;
			ms->m[i].def = def;
			ms->m[i].owned = owned;
			return 0;
		}
	}
	m = realloc(ms->m, (ms->n + 1) * sizeof(*m));
	if (!m) {
		free(owned);
		return -1;
	}
	ms->m = m;
	ms->m[ms->n++] = (struct macro){ name, n, def, owned };
	return 0;
}

/*
 * The ISA's own predefined macros, as its C compiler has them: the
 * Makefile builds libxdt for each ISA with that ISA's list from
 * arch/<dir>/isa.toml (XDT_CPP_ISA: "-D...", "-D...",), so adding an ISA
 * touches no line here.
 */
#ifndef XDT_CPP_ISA
#define XDT_CPP_ISA		/* a build for a machine without a port */
#endif

/*
 * DTrace's -X (-x stdc): the preprocessor's conformance to ISO C, each
 * letter as dtrace(1) documents it and with the __STDC__ DTrace passes
 * its cpp (illumos' dt_preprocess: 0 for a and t, 1 for c, none for s).
 * mcpp has a mode for each:
 *   a  ISO C with K&R's extensions (the default): Standard mode.
 *   c  strictly conforming ISO C: Standard mode, mcpp's own __STDC__ 1.
 *   s  K&R C only: mcpp's 'old_preprocessor' mode, the Reiser model of
 *      the K&R era (a comment pastes tokens, no # or ## operators), as
 *      Oracle's and FreeBSD's DTrace run cpp -traditional-cpp.
 *   t  transition, K&R's extensions without ISO C's semantic changes:
 *      Standard mode with -@compat, which rescans a macro's expansion
 *      with what follows it, as pre-Standard preprocessors did.
 */
static const struct {
	char mode;
	const char *const argv[2];	/* mcpp's mode options */
	const char *stdc;		/* a -D of __STDC__, or NULL */
} stdc_modes[] = {
	{ 'a', { "-@std" }, "-D__STDC__=0" },
	{ 'c', { "-@std" }, NULL },
	{ 's', { "-@oldprep" }, NULL },
	{ 't', { "-@std", "-@compat" }, "-D__STDC__=0" },
};

/* -X<letter>: its row of stdc_modes, or -1 if @a is none */
static int stdc_mode(const char *a)
{
	if (a[0] != '-' || a[1] != 'X' || !a[2] || a[3])
		return -1;
	for (size_t i = 0; i < sizeof(stdc_modes) / sizeof(*stdc_modes); i++)
		if (stdc_modes[i].mode == a[2])
			return (int)i;
	return -1;
}

/* DTrace's predefined macros for Linux, with the ISA's. */
static int predefine(struct macros *ms, int mode)
{
	static const char *const defs[] = {
		"-D__linux", "-D__linux__", "-D__unix", "-D__unix__",
		"-D__SUNW_D=1", "-D__SUNW_D_VERSION=" DT_CPP_VERSION,
		"-D__SUNW_D_64", "-D_LP64", "-D__LP64__",
		XDT_CPP_ISA
	};
	size_t i;

	for (i = 0; i < sizeof(defs) / sizeof(*defs); i++)
		if (macro_set(ms, defs[i], defs[i], NULL))
			return -1;
	if (stdc_modes[mode].stdc &&
	    macro_set(ms, stdc_modes[mode].stdc, stdc_modes[mode].stdc, NULL))
		return -1;
	return 0;
}

/*
 * The child's argv: mcpp's mode options, the script's directory (searched
 * for "" includes first, as a C compiler searches the including file's),
 * the resolved macros, then the caller's other options.
 */
static char **build_argv(const char *cpp, const char *name,
			 char *const *argv, int argc, struct macros *ms,
			 int *show_includes, char **dirarg)
{
	static const char *const mode[] = { "-k", "-e", "utf8" };
	size_t nmode = sizeof(mode) / sizeof(*mode);
	char **av;
	int i, n = 0, x = 0;	/* stdc_modes[0]: -Xa, DTrace's default */
	const char *slash = name ? strrchr(name, '/') : NULL;

	*dirarg = NULL;
	if (slash) {
		if (asprintf(dirarg, "-I%.*s", slash == name ? 1 :
			     (int)(slash - name), name) < 0) {
			*dirarg = NULL;
			return NULL;
		}
	}
	for (i = 0; i < argc; i++)	/* the last -X wins */
		if (stdc_mode(argv[i]) >= 0)
			x = stdc_mode(argv[i]);
	if (predefine(ms, x))
		return NULL;
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];
		char *own = NULL;

		if (!strcmp(a, "-H")) {
			*show_includes = 1;
			continue;
		}
		if (a[0] != '-' || (a[1] != 'D' && a[1] != 'U'))
			continue;
		if (!a[2]) {			/* "-D" "name=value" */
			if (++i >= argc)
				break;
			if (asprintf(&own, "-%c%s", a[1], argv[i]) < 0)
				return NULL;
			a = own;
		}
		if (macro_set(ms, a, a[1] == 'D' ? a : NULL, own))
			return NULL;
	}
	av = calloc(3 + nmode + 2 + ms->n + argc + 1, sizeof(*av));
	if (!av)
		return NULL;
	av[n++] = (char *)cpp;
	for (size_t k = 0; k < 2 && stdc_modes[x].argv[k]; k++)
		av[n++] = (char *)stdc_modes[x].argv[k];
	for (size_t k = 0; k < nmode; k++)
		av[n++] = (char *)mode[k];
	if (*dirarg)
		av[n++] = *dirarg;
	for (i = 0; i < ms->n; i++) {
		if (ms->m[i].def) {
			av[n++] = (char *)ms->m[i].def;
		} else {
			/* "-Uname": the name is the tail of its option */
			av[n++] = (char *)(ms->m[i].name - 2);
		}
	}
	for (i = 0; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "-H") || stdc_mode(a) >= 0)
			continue;
		if (a[0] == '-' && (a[1] == 'D' || a[1] == 'U')) {
			if (!a[2])
				i++;
			continue;
		}
		av[n++] = (char *)a;
	}
	av[n] = NULL;
	return av;
}

/* Dup @from onto @to in the child, without FD_CLOEXEC either way. */
static void child_fd(int from, int to)
{
	if (from == to)
		fcntl(to, F_SETFD, 0);
	else
		dup2(from, to);
}

struct stream {
	int fd;
	struct buf b;
};

/*
 * Feed @in (@inlen bytes, then "\n" if @addnl) to the child's stdin while
 * collecting its stdout and stderr; returns -1 (errno set) on a failure of
 * our own.  A child that stops reading early just has its input cut.
 */
static int pump(int wfd, const char *in, size_t inlen, int addnl,
		struct stream *out, struct stream *er)
{
	static const char nl = '\n';
	char chunk[65536];

	if (!inlen && !addnl) {
		close(wfd);
		wfd = -1;
	}
	while (wfd >= 0 || out->fd >= 0 || er->fd >= 0) {
		struct pollfd p[3];
		struct stream *rs[3];
		int n = 0, w = -1, i;

		if (wfd >= 0) {
			w = n;
			p[n++] = (struct pollfd){ wfd, POLLOUT, 0 };
		}
		if (out->fd >= 0) {
			rs[n] = out;
			p[n++] = (struct pollfd){ out->fd, POLLIN, 0 };
		}
		if (er->fd >= 0) {
			rs[n] = er;
			p[n++] = (struct pollfd){ er->fd, POLLIN, 0 };
		}
		if (poll(p, n, -1) < 0) {
			if (errno == EINTR)
				continue;
			goto fail;
		}
		for (i = 0; i < n; i++) {
			ssize_t r;

			if (!p[i].revents)
				continue;
			if (i == w) {
				const char *s = inlen ? in : &nl;
				size_t len = inlen ? inlen : 1;

				r = write(wfd, s, len);
				if (r < 0 && (errno == EAGAIN || errno == EINTR))
					continue;
				if (r < 0) {	/* EPIPE: it stopped reading */
					inlen = 0;
					addnl = 0;
				} else if (inlen) {
					in += r;
					inlen -= (size_t)r;
				} else {
					addnl = 0;
				}
				if (!inlen && !addnl) {
					close(wfd);
					wfd = -1;
				}
				continue;
			}
			r = read(p[i].fd, chunk, sizeof(chunk));
			if (r < 0 && (errno == EAGAIN || errno == EINTR))
				continue;
			if (r <= 0) {
				close(rs[i]->fd);
				rs[i]->fd = -1;
			} else if (buf_add(&rs[i]->b, chunk, (size_t)r)) {
				errno = ENOMEM;
				goto fail;
			}
		}
	}
	return 0;
fail:
	if (wfd >= 0) {
		int e = errno;

		close(wfd);
		errno = e;
	}
	return -1;
}

/* Replace every "<stdin>" in @s by @to, into @b. */
static int subst_stdin(struct buf *b, const char *s, size_t len,
		       const char *to)
{
	static const char key[] = "<stdin>";
	const char *end = s + len, *q;

	while ((q = memmem(s, (size_t)(end - s), key, sizeof(key) - 1))) {
		if (buf_add(b, s, (size_t)(q - s)) || buf_add(b, to, strlen(to)))
			return -1;
		s = q + sizeof(key) - 1;
	}
	return buf_add(b, s, (size_t)(end - s));
}

/*
 * A line marker, `#line N "file"` or `# N "file" flags...`: the span of
 * the file name between the quotes into *@f / *@flen, the number in *@num.
 */
static int marker(const char *l, const char *end, long *num, const char **f,
		  size_t *flen)
{
	const char *p = l;

	if (p >= end || *p++ != '#')
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (end - p >= 4 && !memcmp(p, "line", 4))
		p += 4;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p < '0' || *p > '9')
		return 0;
	*num = 0;
	while (p < end && *p >= '0' && *p <= '9')
		*num = *num * 10 + (*p++ - '0');
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p >= end || *p++ != '"')
		return 0;
	*f = p;
	while (p < end && *p != '"')
		p += (*p == '\\' && p + 1 < end) ? 2 : 1;
	if (p >= end)
		return 0;
	*flen = (size_t)(p - *f);
	return 1;
}

static int blank(char c)
{
	return c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r';
}

/*
 * @text with a `@` before each `#` that starts a logical line after
 * white space or comments (those are no directives to DTrace's cpp).
 * Strings, character constants and comments are skipped, so that a quote
 * or a comment's opener inside them opens nothing; a backslash-newline joins
 * lines, as in mcpp.
 */
static int mark_indented(const char *text, size_t len, struct buf *b)
{
	const char *s = text, *end = text + len, *from = text;
	int bol = 1, lead = 0, comment = 0;
	char quote = 0;

	while (s < end) {
		if (s + 1 < end && s[0] == '\\' && s[1] == '\n') {
			s += 2;
			continue;
		}
		if (comment) {
			if (s + 1 < end && s[0] == '*' && s[1] == '/') {
				comment = 0;
				s += 2;
			} else {
				s++;
			}
			continue;
		}
		if (*s == '\n') {
			bol = 1;
			lead = 0;
			quote = 0;
			s++;
			continue;
		}
		if (quote) {
			if (*s == '\\' && s + 1 < end && s[1] != '\n')
				s++;
			else if (*s == quote)
				quote = 0;
			s++;
			continue;
		}
		if (s + 1 < end && s[0] == '/' && s[1] == '*') {
			comment = 1;
			lead = 1;
			s += 2;
			continue;
		}
		if (s + 1 < end && s[0] == '/' && s[1] == '/') {
			while (s < end && *s != '\n')
				s++;
			continue;
		}
		if (bol && blank(*s)) {
			lead = 1;
			s++;
			continue;
		}
		if (bol && *s == '#' && lead) {
			if (buf_add(b, from, (size_t)(s - from)) ||
			    buf_add(b, "@", 1))
				return -1;
			from = s;
		}
		if (*s == '"' || *s == '\'')
			quote = *s;
		bol = 0;
		s++;
	}
	return buf_add(b, from, (size_t)(end - from));
}

/*
 * The output with the script's name in its markers; with @show, each
 * file entered (a marker at line 1 naming a file not on the include
 * stack) printed to stderr as gcc -H does.
 */
static char *rewrite(const struct buf *o, const char *qname, int show)
{
	struct buf b = { 0 };
	const char *s = o->p ? o->p : "", *end = s + o->len;
	const char *stack[64];
	size_t stlen[64];
	int depth = 0;

	while (s < end) {
		const char *nlp = memchr(s, '\n', (size_t)(end - s));
		const char *le = nlp ? nlp + 1 : end;
		const char *f;
		size_t flen;
		long num;

		if (*s == '#' && marker(s, le, &num, &f, &flen)) {
			if (show) {
				int d;

				for (d = depth - 1; d >= 0; d--)
					if (stlen[d] == flen &&
					    !memcmp(stack[d], f, flen))
						break;
				if (d >= 0) {
					depth = d + 1;
				} else if (num == 1 && depth < 64) {
					if (depth > 0) {
						fprintf(stderr, "%.*s %.*s\n",
							depth, "................"
							"................"
							"................"
							"................",
							(int)flen, f);
					}
					stack[depth] = f;
					stlen[depth++] = flen;
				}
			}
			if (flen == 7 && !memcmp(f, "<stdin>", 7)) {
				if (buf_add(&b, s, (size_t)(f - s)) ||
				    buf_add(&b, qname, strlen(qname)) ||
				    buf_add(&b, f + flen, (size_t)(le - f - flen)))
					goto oom;
				s = le;
				continue;
			}
		}
		if (blank(*s)) {	/* mark_indented()'s "@#" is "#" again */
			const char *p = s;

			while (p < le && blank(*p))
				p++;
			if (le - p >= 2 && p[0] == '@' && p[1] == '#') {
				if (buf_add(&b, s, (size_t)(p - s)))
					goto oom;
				s = p + 1;
			}
		}
		if (buf_add(&b, s, (size_t)(le - s)))
			goto oom;
		s = le;
	}
	if (!b.p && buf_add(&b, "", 0))
		goto oom;
	return b.p;
oom:
	free(b.p);
	return NULL;
}

/* @name as the inside of a C string literal. */
static char *quote_name(const char *name)
{
	char *q = malloc(2 * strlen(name) + 1), *d = q;

	if (!q)
		return NULL;
	for (; *name; name++) {
		if (*name == '"' || *name == '\\')
			*d++ = '\\';
		*d++ = *name;
	}
	*d = '\0';
	return q;
}

/*
 * mcpp's diagnostics for @err, "<stdin>" renamed: the "file:line: error:
 * ..." lines, without the indented source line and include chain under
 * each, nor the closing "N errors in preprocessor." tally.
 */
static void diagnostics(const struct buf *e, const char *name, struct buf *d)
{
	static const char tally[] = " in preprocessor.\n";
	const char *s = e->p ? e->p : "", *end = s + e->len;

	while (s < end) {
		const char *nlp = memchr(s, '\n', (size_t)(end - s));
		const char *le = nlp ? nlp + 1 : end;
		size_t n = (size_t)(le - s), t = sizeof(tally) - 1;

		if (*s != ' ' && *s != '\t' && *s != '\n' &&
		    !(n >= t && !memcmp(le - t, tally, t)))
			subst_stdin(d, s, n, name);
		s = le;
	}
	while (d->len && d->p[d->len - 1] == '\n')
		d->p[--d->len] = '\0';
}

char *dt_cpp(const char *src, const char *name, char *const *argv, int argc,
	     char *err, size_t errlen)
{
	const char *env = getenv("XDT_CPP");
	const char *prog = env && *env ? env : "mcpp";
	char path[4096], *dirarg = NULL, *qname = NULL, *res = NULL;
	char **av = NULL;
	struct macros ms = { 0 };
	struct stream out = { -1, { 0 } }, er = { -1, { 0 } };
	struct buf diag = { 0 }, marked = { 0 };
	struct sigaction ign, oldpipe;
	int in[2] = { -1, -1 }, op[2] = { -1, -1 }, ep[2] = { -1, -1 };
	int show = 0, st, i;
	const char *text = src ? src : "";
	size_t len;
	pid_t pid;

	if (err && errlen)
		err[0] = '\0';
	if (!name)
		name = "<stdin>";
	if (find_prog(prog, path, sizeof(path))) {
		if (env && *env)
			seterr(err, errlen, "mcpp not found: $XDT_CPP=%s is "
			       "not an executable program", env);
		else
			seterr(err, errlen, "mcpp not found: no mcpp on $PATH "
			       "(install Debian's mcpp, or set $XDT_CPP)");
		return NULL;
	}
	/* "#!..." first line: start just before its newline. */
	if (text[0] == '#' && text[1] == '!') {
		const char *nl = strchr(text, '\n');

		text = nl ? nl : text + strlen(text);
	}
	if (mark_indented(text, strlen(text), &marked)) {
		seterr(err, errlen, "preprocessor: out of memory");
		goto out;
	}
	text = marked.p ? marked.p : "";
	len = marked.len;
	qname = quote_name(name);
	av = qname ? build_argv(path, name, argv, argc, &ms, &show, &dirarg)
		   : NULL;
	if (!av) {
		seterr(err, errlen, "preprocessor: out of memory");
		goto out;
	}
	if (pipe2(in, O_CLOEXEC) || pipe2(op, O_CLOEXEC) ||
	    pipe2(ep, O_CLOEXEC)) {
		seterr(err, errlen, "preprocessor: pipe: %s", strerror(errno));
		goto out;
	}
	/* A write to a preprocessor that quit must not kill us. */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, &oldpipe);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		sigaction(SIGPIPE, &oldpipe, NULL);
		child_fd(in[0], 0);
		child_fd(op[1], 1);
		child_fd(ep[1], 2);
		execv(path, av);
		dprintf(2, "cannot execute %s: %s\n", path, strerror(errno));
		_exit(127);
	}
	if (pid < 0) {
		seterr(err, errlen, "preprocessor: fork: %s", strerror(errno));
		sigaction(SIGPIPE, &oldpipe, NULL);
		goto out;
	}
	close(in[0]);
	close(op[1]);
	close(ep[1]);
	in[0] = op[1] = ep[1] = -1;
	fcntl(in[1], F_SETFL, fcntl(in[1], F_GETFL) | O_NONBLOCK);
	out.fd = op[0];
	er.fd = ep[0];
	op[0] = ep[0] = -1;
	i = pump(in[1], text, len, len && text[len - 1] != '\n', &out, &er);
	in[1] = -1;	/* pump closed it */
	if (i) {
		int e = errno;

		seterr(err, errlen, "preprocessor: %s", strerror(e));
		if (out.fd >= 0)
			close(out.fd);
		if (er.fd >= 0)
			close(er.fd);
		kill(pid, SIGKILL);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	sigaction(SIGPIPE, &oldpipe, NULL);
	if (i)
		goto out;
	diagnostics(&er.b, name, &diag);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		if (diag.len)
			seterr(err, errlen, "%s", diag.p);
		else if (WIFSIGNALED(st))
			seterr(err, errlen, "%s killed by signal %d", path,
			       WTERMSIG(st));
		else
			seterr(err, errlen, "%s failed (exit status %d)", path,
			       WEXITSTATUS(st));
		goto out;
	}
	if (diag.len)	/* warnings */
		fprintf(stderr, "%s\n", diag.p);
	res = rewrite(&out.b, qname, show);
	if (!res)
		seterr(err, errlen, "preprocessor: out of memory");
out:
	for (i = 0; i < 2; i++) {
		if (in[i] >= 0)
			close(in[i]);
		if (op[i] >= 0)
			close(op[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	for (i = 0; i < ms.n; i++)
		free(ms.m[i].owned);
	free(ms.m);
	free(av);
	free(dirarg);
	free(qname);
	free(out.b.p);
	free(er.b.p);
	free(diag.p);
	free(marked.p);
	return res;
}
