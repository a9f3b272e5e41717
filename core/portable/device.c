// SPDX-License-Identifier: GPL-2.0
/*
 * The ioctls of /dev/xdt on one consumer's state: what xdt.ko's device
 * (core/main.c: open, the gate, one ioctl at a time) and the host VM
 * (core/host/machine.c) both answer with, so a consumer meets the same
 * interface, replies and errors in a guest and under `-x hostvm`.
 */
#include "xdt_impl.h"

/*
 * dtrace -w from a CAP_PERFMON-only opener: refused whole, before the
 * program is loaded, with the reason in the reply (the consumer prints
 * it).  @blob is the kernel's own copy, the one the loader goes on to use,
 * so the flags checked are the flags loaded.
 */
static int check_destructive(struct xdt_state *st, struct xdt_enable *req,
			     const void *blob)
{
	const struct xdt_prog *p = blob;

	if (!st->perfmon_only || req->size < sizeof(*p) ||
	    !(p->flags & XDT_PROG_DESTRUCTIVE))
		return 0;
	snprintf(req->err, sizeof(req->err),
		 "destructive actions (dtrace -w) need CAP_SYS_ADMIN; "
		 "/dev/xdt was opened with CAP_PERFMON only");
	return -EPERM;
}

static long ioc_enable(struct xdt_state *st, void __user *uarg)
{
	struct xdt_enable *req;
	void *blob = NULL;
	long ret;

	if (st->state != XDT_STATE_IDLE)
		return -EBUSY;
	req = kmalloc(sizeof(*req), GFP_KERNEL);
	if (!req)
		return -ENOMEM;
	ret = -EFAULT;
	if (copy_from_user(req, uarg, sizeof(*req)))
		goto out;
	memset(req->err, 0, sizeof(req->err));
	ret = -E2BIG;
	if (req->size > XDT_MAX_PROG) {
		snprintf(req->err, sizeof(req->err),
			 "program object of %u bytes (at most %u)", req->size,
			 XDT_MAX_PROG);
		goto reply;
	}
	ret = -ENOMEM;
	blob = kvmalloc(max(req->size, 1u), GFP_KERNEL);
	if (!blob)
		goto out;
	ret = -EFAULT;
	if (copy_from_user(blob, u64_to_user_ptr(req->prog), req->size)) {
		kvfree(blob);
		goto out;
	}
	ret = check_destructive(st, req, blob);
	if (ret) {
		kvfree(blob);
		goto reply;
	}
	ret = xdt_state_enable(st, req, blob);	/* st owns blob now */
	if (ret)
		xdt_state_reset(st);	/* refused: idle again, nothing kept */
reply:
	if (copy_to_user(uarg, req, sizeof(*req)))
		ret = -EFAULT;
out:
	kfree(req);
	return ret;
}

static long ioc_eprobes(struct xdt_state *st, void __user *uarg)
{
	struct xdt_eprobe_query q;
	struct xdt_eprobe __user *out;
	struct xdt_eprobe e;
	u32 i;

	if (copy_from_user(&q, uarg, sizeof(q)))
		return -EFAULT;
	out = u64_to_user_ptr(q.buf);
	for (i = 0; i < st->necbs && i < q.cap; i++) {
		struct xdt_ecb *ecb = &st->ecbs[i];
		struct xdt_probe *p = ecb->probe;

		memset(&e, 0, sizeof(e));
		e.epid = ecb->epid;
		e.clause = ecb->clause->index;
		e.probe = p->id;
		strscpy(e.desc.prov, p->prov->name, sizeof(e.desc.prov));
		strscpy(e.desc.mod, p->mod ?: "", sizeof(e.desc.mod));
		strscpy(e.desc.func, p->func ?: "", sizeof(e.desc.func));
		strscpy(e.desc.name, p->name ?: "", sizeof(e.desc.name));
		if (copy_to_user(&out[i], &e, sizeof(e)))
			return -EFAULT;
	}
	q.count = st->necbs;
	return copy_to_user(uarg, &q, sizeof(q)) ? -EFAULT : 0;
}

long xdt_ioctl_state(struct xdt_state *st, unsigned int cmd, void __user *uarg)
{
	long ret;

	switch (cmd) {
	case XDT_IOC_VERSION:
		return put_user((u32)XDT_ABI_VERSION, (u32 __user *)uarg);
	case XDT_IOC_PROBES: {
		struct xdt_probe_query q;

		if (copy_from_user(&q, uarg, sizeof(q)))
			return -EFAULT;
		ret = xdt_probe_query(&q);
		if (!ret && copy_to_user(uarg, &q, sizeof(q)))
			ret = -EFAULT;
		return ret;
	}
	case XDT_IOC_ENABLE:
		return ioc_enable(st, uarg);
	case XDT_IOC_EPROBES:
		return ioc_eprobes(st, uarg);
	case XDT_IOC_GO:
		return xdt_state_go(st);
	case XDT_IOC_STOP:
		if (st->state != XDT_STATE_RUNNING)
			return -EINVAL;
		xdt_state_stop(st);
		return 0;
	case XDT_IOC_BUFSNAP: {
		struct xdt_bufsnap b;

		if (copy_from_user(&b, uarg, sizeof(b)))
			return -EFAULT;
		if (st->state < XDT_STATE_RUNNING)
			return -EINVAL;
		ret = xdt_buf_snap(st, b.cpu, u64_to_user_ptr(b.buf), &b.size,
				   &b.drops);
		if ((!ret || ret == -ENOSPC) && copy_to_user(uarg, &b, sizeof(b)))
			ret = -EFAULT;
		return ret;
	}
	case XDT_IOC_AGGSNAP: {
		struct xdt_aggsnap a;

		if (copy_from_user(&a, uarg, sizeof(a)))
			return -EFAULT;
		if (st->state < XDT_STATE_RUNNING)
			return -EINVAL;
		ret = xdt_agg_snap(st, &a);
		if ((!ret || ret == -ENOSPC) && copy_to_user(uarg, &a, sizeof(a)))
			ret = -EFAULT;
		return ret;
	}
	case XDT_IOC_STATUS: {
		struct xdt_status s;

		xdt_state_status(st, &s);
		return copy_to_user(uarg, &s, sizeof(s)) ? -EFAULT : 0;
	}
	}
	return -ENOTTY;
}
