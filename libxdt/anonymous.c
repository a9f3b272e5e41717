// SPDX-License-Identifier: GPL-2.0
/*
 * anonymous.c - anonymous tracing, the consumer's half (the kernel's:
 * core/portable/anon.c, which tells the whole story).
 *
 * dtrace -A saves the program object GO would send, and beside it the
 * recipe: every option, macro argument, preprocessor flag and source the
 * handle was given, in order.  The kernel runs the object; dtrace -a gets
 * the file back when it claims, compiles the recipe again and uses the
 * result only if it is the very object the kernel runs, byte for byte --
 * then every EPID, record layout, format and aggregation the consumer
 * reads by is the one the records were written with.
 *
 * Trade-off: DTrace's DOF carries the formats and types themselves, so
 * its -a needs nothing but the kernel.  Recompiling needs the same D
 * library, dtrace and kernel BTF as dtrace -A had; when any of them
 * changed the objects differ and -a refuses to misread the records,
 * saying so.  It keeps the file format to what the kernel already checks
 * and one compiler as the only source of what a record means.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "dt_consumer.h"
#include "libxdt.h"

#define HERR(h, ...) (snprintf((h)->errmsg, sizeof((h)->errmsg), __VA_ARGS__), -1)

/* ---- the recipe: "kind\0n\0arg1\0...argn\0", one entry after another ---- */
static void recipe_put(struct xdt_hdl *h, const char *s)
{
	size_t n = strlen(s) + 1;

	memcpy(h->recipe + h->rlen, s, n);
	h->rlen += n;
}

void dt_recipe_add(struct xdt_hdl *h, const char *kind, int n,
		   const char *const *args)
{
	size_t need;
	char num[16];

	/* what the program is made of: not setopt() actions while tracing */
	if (h->replaying || h->running || h->stopped)
		return;
	snprintf(num, sizeof(num), "%d", n);
	need = h->rlen + strlen(kind) + strlen(num) + 2;
	for (int i = 0; i < n; i++)
		need += strlen(args[i] ? args[i] : "") + 1;
	/* room for the whole entry first: an unwind out of xrealloc leaves
	   the recipe as it was, never an entry cut short */
	if (need > h->rcap) {
		size_t cap = need * 2 + 256;

		h->recipe = xrealloc(h->recipe, cap);
		h->rcap = cap;
	}
	recipe_put(h, kind);
	recipe_put(h, num);
	for (int i = 0; i < n; i++)
		recipe_put(h, args[i] ? args[i] : "");
}

void dt_recipe_pair(struct xdt_hdl *h, const char *kind, const char *a,
		    const char *b)
{
	const char *args[2] = { a, b };

	dt_recipe_add(h, kind, b ? 2 : 1, args);
}

/* ---- dtrace -A ---------------------------------------------------------- */
/* The probes an anonymous enabling cannot have, and why (NULL: it can). */
static const char *not_anonymous(const struct xdt_hdl *h,
				 const struct xdt_probedesc **bad)
{
	const struct prog *p = &h->p;

	if (h->env.target > 0)
		return "-c and -p name a process, and an anonymous enabling "
		       "starts before any process it could name";
	for (int i = 0; i < p->nclauses; i++) {
		if (dt_uproc_pid(&p->clauses[i].desc) > 0) {
			*bad = &p->clauses[i].desc;
			return "a process's probes (pid, USDT) are made in the "
			       "live process by the consumer tracing it, and an "
			       "anonymous enabling has none";
		}
	}
	return NULL;
}

/* mkdir -p @path's directory */
static int mkparent(const char *path)
{
	char *d = xstrdup(path), *s;
	int ret = 0;

	for (s = strchr(d + 1, '/'); s && !ret; s = strchr(s + 1, '/')) {
		*s = 0;
		if (mkdir(d, 0755) < 0 && errno != EEXIST)
			ret = -1;
		*s = '/';
	}
	free(d);
	return ret;
}

/* @buf (@n bytes) as @path, whole or not at all: a file beside it, renamed */
static int write_whole(const char *path, const void *buf, size_t n)
{
	size_t len = strlen(path) + 8;
	char *tmp = xzalloc(len);
	int fd, ret = -1, err;

	snprintf(tmp, len, "%s.new", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd >= 0) {
		ret = write(fd, buf, n) == (ssize_t)n && fsync(fd) == 0 ? 0 : -1;
		err = errno;
		if (close(fd) < 0 && !ret)
			ret = -1, err = errno;
		if (!ret && rename(tmp, path) < 0)
			ret = -1, err = errno;
		if (ret)
			unlink(tmp);
		errno = err;
	}
	free(tmp);
	return ret;
}

static int anon_save(xdt_hdl_t *h, const char *path, int *replaced)
{
	const struct xdt_probedesc *bad = NULL;
	const char *why = not_anonymous(h, &bad);
	struct xdt_anon hdr;
	int unmatched = 0;
	size_t size, total;
	char *img;
	int ret;

	if (why && bad)
		return HERR(h, "failed to save anonymous enabling: probe "
			    "description %s:%s:%s:%s: %s", bad->prov, bad->mod,
			    bad->func, bad->name, why);
	if (why)
		return HERR(h, "failed to save anonymous enabling: %s", why);
	if (dt_prepare(h, &size) < 0)
		return -1;
	/*
	 * The kernel's verdict now, not at the next load: the object is
	 * enabled as GO would enable it (checked, its probes matched) and
	 * dropped again without starting.
	 */
	if (dt_open_dev(h) < 0)
		return -1;
	ret = dt_enable(h, size, &unmatched);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
	xdt_hostvm_close(h->vm);
	h->vm = NULL;
	if (ret < 0)
		return -1;
	memset(&hdr, 0, sizeof(hdr));
	hdr.magic = XDT_ANON_MAGIC;
	hdr.version = XDT_ABI_VERSION;
	hdr.flags = unmatched ? XDT_ANON_ZDEFS : 0;
	hdr.prog_off = (sizeof(hdr) + 7) & ~7u;
	hdr.prog_size = (__u32)size;
	hdr.meta_off = hdr.prog_off + hdr.prog_size;
	hdr.meta_size = (__u32)h->rlen;
	total = (size_t)hdr.meta_off + h->rlen;
	if (total > XDT_ANON_MAX)
		return HERR(h, "failed to save anonymous enabling: %zu bytes "
			    "(at most %u)", total, XDT_ANON_MAX);
	hdr.size = (__u32)total;
	img = xzalloc(total);
	memcpy(img, &hdr, sizeof(hdr));
	memcpy(img + hdr.prog_off, h->blob, size);
	if (h->rlen)
		memcpy(img + hdr.meta_off, h->recipe, h->rlen);
	*replaced = access(path, F_OK) == 0;
	ret = mkparent(path) < 0 || write_whole(path, img, total) < 0 ? -1 : 0;
	free(img);
	if (ret < 0)
		return HERR(h, "failed to save anonymous enabling in %s: %s",
			    path, strerror(errno));
	return 0;
}

int xdt_anon_save(xdt_hdl_t *h, const char *path, int *replaced)
{
	int ret = -1;

	*replaced = 0;
	XDT_GUARDED(h, return -1,
		    ret = anon_save(h, path ? path : XDT_ANON_PATH, replaced));
	return ret;
}

int xdt_anon_remove(xdt_hdl_t *h, const char *path)
{
	if (!path)
		path = XDT_ANON_PATH;
	if (unlink(path) == 0)
		return 1;
	if (errno == ENOENT)
		return 0;
	return HERR(h, "failed to remove anonymous enabling %s: %s", path,
		    strerror(errno));
}

/* ---- dtrace -a ---------------------------------------------------------- */
struct step {
	char kind;
	int (*fn)(xdt_hdl_t *h, char kind, int n, char **args);
};

static int step_opt(xdt_hdl_t *h, char kind, int n, char **args)
{
	if (n < 1 || xdt_setopt(h, args[0], kind == 'x' && n > 1 ? args[1] : NULL))
		return HERR(h, "its option %s: %s", n ? args[0] : "?",
			    xdt_errmsg(h));
	return 0;
}

static int step_macros(xdt_hdl_t *h, char kind, int n, char **args)
{
	(void)kind;
	xdt_set_macros(h, args, n);
	return 0;
}

static int step_cpp(xdt_hdl_t *h, char kind, int n, char **args)
{
	xdt_set_cpp(h, kind == 'C', args, n);
	return 0;
}

static int step_compile(xdt_hdl_t *h, char kind, int n, char **args)
{
	struct xdt_cerror err;

	if (n != 2)
		return HERR(h, "a source without its text");
	if (xdt_compile(h, args[1], args[0], kind == 'S', &err) < 0)
		return HERR(h, "%s:%d:%d: %s", err.file, err.line, err.col,
			    err.msg);
	return 0;
}

/* A table, not a switch: one line per kind dt_recipe_add() writes. */
static const struct step steps[] = {
	{ 'x', step_opt }, { 'o', step_opt }, { 'm', step_macros },
	{ 'C', step_cpp }, { 'c', step_cpp }, { 'S', step_compile },
	{ 's', step_compile },
};

/*
 * The recipe at @m (@len bytes, in h->anonimg, which outlives the
 * handle's use of it), told to the handle again.  Every entry's strings
 * are checked to be NUL-terminated inside @len: the file came from disk.
 */
static int replay(xdt_hdl_t *h, char *m, size_t len)
{
	char *end = m + len, *s = m;
	size_t nstr = 0, used = 0;

	for (char *c = m; c < end; c++)
		nstr += !*c;
	if (len && end[-1])
		return HERR(h, "its recipe is cut short");
	h->anonargv = xzalloc((nstr + 1) * sizeof(char *));
	while (s < end) {
		char *kind = s, *num = s + strlen(s) + 1, *e;
		long n;
		size_t k;

		if (num >= end)
			return HERR(h, "its recipe is cut short");
		n = strtol(num, &e, 10);
		if (*e || n < 0 || (size_t)n > nstr - used)
			return HERR(h, "its recipe is damaged");
		s = num + strlen(num) + 1;
		for (long i = 0; i < n; i++) {
			if (s >= end)
				return HERR(h, "its recipe is cut short");
			h->anonargv[used + i] = s;
			s += strlen(s) + 1;
		}
		for (k = 0; k < sizeof(steps) / sizeof(steps[0]); k++)
			if (kind[0] == steps[k].kind && !kind[1])
				break;
		if (k == sizeof(steps) / sizeof(steps[0]))
			return HERR(h, "its recipe has a step \"%.16s\"", kind);
		if (steps[k].fn(h, kind[0], (int)n, h->anonargv + used) < 0)
			return -1;
		used += (size_t)n + 1;	/* and a NULL after each vector */
	}
	return 0;
}

static int grabanon(xdt_hdl_t *h)
{
	struct xdt_anon_claim c;
	const struct xdt_anon *hdr;
	size_t cap = 1 << 16, size;
	int ret;

	if (h->p.nclauses)
		return HERR(h, "-a claims the anonymous enabling: it takes no "
			    "program of its own");
	if (dt_open_dev(h) < 0)
		return -1;
	for (;;) {
		h->anonimg = xrealloc(h->anonimg, cap);
		memset(&c, 0, sizeof(c));
		c.buf = (__u64)(uintptr_t)h->anonimg;
		c.cap = (__u32)cap;
		if (dt_ioctl(h, XDT_IOC_ANON, &c) == 0)
			break;
		if (errno == ENOSPC && c.size > cap) {
			cap = c.size;
			continue;
		}
		if (errno == ENOENT)	/* DTrace's EDT_NOANON */
			return HERR(h, "could not enable tracing: No anonymous "
				    "tracing state");
		if (errno == ENOTTY)
			return HERR(h, "could not enable tracing: this xdt.ko "
				    "has no anonymous tracing (ABI %u needed)",
				    XDT_ABI_VERSION);
		return HERR(h, "could not enable tracing: %.*s",
			    (int)sizeof(c.err),
			    c.err[0] ? c.err : strerror(errno));
	}
	/*
	 * Claimed: the state is this descriptor's now, whatever follows
	 * (an error leaves it to xdt_close(), which frees it).  The kernel
	 * checked the header as it loaded; checked again, it is our input.
	 */
	hdr = (const struct xdt_anon *)h->anonimg;
	if (c.size < sizeof(*hdr) || hdr->size != c.size ||
	    hdr->meta_off > c.size || hdr->meta_size > c.size - hdr->meta_off ||
	    hdr->prog_off > c.size || hdr->prog_size > c.size - hdr->prog_off)
		return HERR(h, "could not enable tracing: the anonymous "
			    "enabling's file is damaged");
	h->replaying = 1;
	ret = replay(h, h->anonimg + hdr->meta_off, hdr->meta_size);
	h->replaying = 0;
	if (ret < 0) {
		char why[sizeof(h->errmsg) / 2];

		memcpy(why, h->errmsg, sizeof(why) - 1);
		why[sizeof(why) - 1] = 0;
		return HERR(h, "could not enable tracing: the anonymous enabling "
			    "no longer compiles: %s", why);
	}
	if (dt_prepare(h, &size) < 0)
		return -1;
	if (size != hdr->prog_size ||
	    memcmp(h->blob, h->anonimg + hdr->prog_off, size))
		return HERR(h, "could not enable tracing: the anonymous "
			    "enabling no longer compiles to the program xdt.ko "
			    "runs (dtrace, its D library or the kernel changed "
			    "since dtrace -A), so its records cannot be read; "
			    "it is discarded");
	if (dt_running(h) < 0)
		return -1;
	h->lastdrain_ns = 0;	/* what was traced since load: read it now */
	return 0;
}

int xdt_grabanon(xdt_hdl_t *h)
{
	int ret = -1;

	XDT_GUARDED(h, return -1, ret = grabanon(h));
	return ret;
}
