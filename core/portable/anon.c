// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous tracing, DTrace's dtrace -A and dtrace -a: an enabling no
 * consumer made, started as xdt.ko loads -- before /dev/xdt exists, so
 * from as early in boot as the module is loaded -- and owned by the
 * module until the first consumer claims it.
 *
 *   dtrace -A   compiles as any consumer does and writes the program
 *               object it would hand to XDT_IOC_ENABLE into one file,
 *               struct xdt_anon (uapi/xdt.h), with the consumer's part
 *               beside it (its sources and options).  Options that size
 *               and shape the kernel's side (bufsize, bufpolicy, strsize,
 *               dynvarsize, nspec, ...) are in the program object already.
 *   load        core/main.c reads that file (from where, and why that
 *               way, is said there) and xdt_anon_start() enables and
 *               starts it as the state of a consumer without a file:
 *               BEGIN fires then, and the buffers fill under the saved
 *               policy (switch drops once full, fill stops, ring wraps)
 *               with nobody reading them.  A file that is refused leaves
 *               the module loaded and the reason in the kernel log.
 *   dtrace -a   XDT_IOC_ANON on a fresh descriptor: xdt_anon_claim()
 *               hands the running state to it, and the file's bytes, from
 *               which the consumer rebuilds what it needs to read the
 *               records (libxdt recompiles the sources and checks that
 *               they give the very object the kernel runs).  From then
 *               on it is that descriptor's state: STOP runs END, close
 *               frees it -- the records are claimed once, as DTrace's are.
 *   unload      an unclaimed one is stopped and freed (xdt_anon_discard).
 *
 * Claiming needs CAP_SYS_ADMIN: the enabling ran with no limits (it was
 * the administrator's file), so what it read is not for a CAP_PERFMON-only
 * consumer.
 */
#include "xdt_impl.h"

static DEFINE_MUTEX(anon_lock);
static struct xdt_state *anon;		/* started, unclaimed; or NULL */
static void *anon_img;			/* the file, for the claimer */
static u32 anon_size;

#define ANON_WHY(why, len, fmt, ...) \
	({ snprintf((why), (len), fmt, ##__VA_ARGS__); -EINVAL; })

/* The header's word on where things are, every offset and size checked. */
static int anon_check(const struct xdt_anon *h, size_t size, char *why,
		      size_t len)
{
	if (size < sizeof(*h))
		return ANON_WHY(why, len, "%zu bytes: shorter than its header",
				size);
	if (h->magic != XDT_ANON_MAGIC)
		return ANON_WHY(why, len, "not an anonymous enabling (bad magic)");
	if (h->version != XDT_ABI_VERSION)
		return ANON_WHY(why, len, "made for xdt ABI %u, this xdt.ko has "
				"%u: run dtrace -A again", h->version,
				XDT_ABI_VERSION);
	if (h->size != size)
		return ANON_WHY(why, len, "header says %u bytes, the file has %zu",
				h->size, size);
	if (h->prog_off % 8 || h->prog_off < sizeof(*h) ||
	    h->prog_size > XDT_MAX_PROG || h->prog_off > size ||
	    h->prog_size > size - h->prog_off)
		return ANON_WHY(why, len, "program object at %u, %u bytes: "
				"outside the file", h->prog_off, h->prog_size);
	if (h->meta_off > size || h->meta_size > size - h->meta_off)
		return ANON_WHY(why, len, "consumer data at %u, %u bytes: "
				"outside the file", h->meta_off, h->meta_size);
	if (h->flags & ~XDT_ANON_ZDEFS)
		return ANON_WHY(why, len, "unknown flags 0x%x", h->flags);
	return 0;
}

int xdt_anon_start(const void *img, size_t size, char *why, size_t len)
{
	const struct xdt_anon *h = img;
	struct xdt_enable *req = NULL;
	struct xdt_state *st = NULL;
	void *blob = NULL, *copy = NULL;
	int ret;

	ret = anon_check(h, size, why, len);
	if (ret)
		return ret;
	ret = -ENOMEM;
	req = kzalloc(sizeof(*req), GFP_KERNEL);
	st = kzalloc(sizeof(*st), GFP_KERNEL);
	blob = kvmalloc(max_t(u32, h->prog_size, 1), GFP_KERNEL);
	copy = kvmalloc(size, GFP_KERNEL);
	if (!req || !st || !blob || !copy) {
		kvfree(blob);
		snprintf(why, len, "out of memory");
		goto out;
	}
	memcpy(blob, (const char *)img + h->prog_off, h->prog_size);
	memcpy(copy, img, size);
	req->size = h->prog_size;
	ret = xdt_state_enable(st, req, blob);	/* st owns blob now */
	if (ret) {
		snprintf(why, len, "%s", req->err[0] ? req->err :
			 "the program object was refused");
		goto out;
	}
	if (req->unmatched >= 0 && !(h->flags & XDT_ANON_ZDEFS)) {
		/* dtrace -A matched it: the probe's module is not loaded yet */
		ret = ANON_WHY(why, len, "clause %d matches no probe (is its "
			       "module loaded before xdt.ko?)", req->unmatched);
		goto out;
	}
	ret = xdt_state_go(st);
	if (ret) {
		snprintf(why, len, "could not start tracing (error %d)", ret);
		goto out;
	}
	mutex_lock(&anon_lock);
	if (anon) {		/* one module load, one call: never */
		mutex_unlock(&anon_lock);
		ret = ANON_WHY(why, len, "an anonymous enabling exists already");
		goto out;
	}
	anon = st;
	anon_img = copy;
	anon_size = (u32)size;
	mutex_unlock(&anon_lock);
	snprintf(why, len, "%u enabled probe%s", st->necbs,
		 st->necbs == 1 ? "" : "s");
	kfree(req);
	return 0;
out:
	xdt_state_free(st);
	kvfree(copy);
	kfree(req);
	return ret;
}

int xdt_anon_claim(struct xdt_state *cur, struct xdt_anon_claim *c,
		   struct xdt_state **claimed)
{
	int ret = 0;

	memset(c->err, 0, sizeof(c->err));
	mutex_lock(&anon_lock);
	if (!anon) {
		ret = -ENOENT;
	} else if (cur->perfmon_only) {
		snprintf(c->err, sizeof(c->err), "claiming the anonymous "
			 "enabling needs CAP_SYS_ADMIN; /dev/xdt was opened "
			 "with CAP_PERFMON only");
		ret = -EPERM;
	} else if (cur->state != XDT_STATE_IDLE) {
		snprintf(c->err, sizeof(c->err), "this descriptor has a "
			 "program of its own");
		ret = -EBUSY;
	} else if (c->cap < anon_size) {
		c->size = anon_size;
		ret = -ENOSPC;
	} else if (copy_to_user(u64_to_user_ptr(c->buf), anon_img,
				anon_size)) {
		ret = -EFAULT;
	} else {
		c->size = anon_size;
		*claimed = anon;
		anon = NULL;
		kvfree(anon_img);
		anon_img = NULL;
		anon_size = 0;
	}
	mutex_unlock(&anon_lock);
	return ret;
}

void xdt_anon_discard(void)
{
	mutex_lock(&anon_lock);
	xdt_state_free(anon);
	anon = NULL;
	kvfree(anon_img);
	anon_img = NULL;
	anon_size = 0;
	mutex_unlock(&anon_lock);
}
