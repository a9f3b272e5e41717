// SPDX-License-Identifier: GPL-2.0
/*
 * rawtp: one probe per tracepoint of the kernel and of loaded modules,
 * named as Oracle's DTrace names them:
 *
 *   rawtp:<system>::<tracepoint>     e.g. rawtp:sched::sched_switch
 *
 * <system> is the tracepoint's trace-event system (TRACE_SYSTEM, the
 * directory under tracefs events/); a bare tracepoint that has no trace
 * event (DECLARE_TRACE only, e.g. sched's pelt_*_tp) has an empty module
 * field.  The function field is empty.  Module tracepoints appear when the
 * module comes and go with it; an enabled one holds the module.
 *
 * Arguments are the tracepoint's own, untranslated: arg0 is its first
 * prototype argument and so on, as BPF's raw_tp sees them -- pointers as
 * addresses, integers as 64-bit values whose bits above the C type's width
 * are whatever the ISA's calling convention leaves there.  Arguments past
 * the tracepoint's arity (from the kernel's bpf_raw_event_map) read 0;
 * a tracepoint with more than ten shows its first ten.
 *
 * Mechanism: the kernel's exported tracepoint_probe_register(), one xdt
 * callback per enabled tracepoint, registered at enable and removed at
 * disable, so a tracepoint no probe has enabled costs nothing (its static
 * key stays off).  stack() starts at the function that hit the tracepoint.
 */
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/trace_events.h>
#include <linux/tracepoint.h>

#include "xdt_impl.h"
#include "providers.h"
#include "xdt_tp.h"

struct rawtp {
	struct xdt_probe *probe;
	struct tracepoint *tp;
	void *fire;			/* rawtp_fires[its arity] */
	bool on;			/* registered */
	struct module *mod;		/* NULL: vmlinux */
	unsigned long lo, hi;		/* its iterator, left out of stack() */
	struct list_head list;
};

static struct xdt_provider rawtp_provider;
static LIST_HEAD(rawtps);		/* under xdt_lock */
static bool registered, notifier;

/* ---- probe context -------------------------------------------------------- */
/*
 * A tracepoint calls its probes with its own prototype, so the callback
 * must take exactly as many arguments as the tracepoint passes: one that
 * declared ten would read the ones past the argument registers from the
 * caller's stack, and a tracepoint hit at the top of an IRQ stack then
 * reads past its end (seen: an oops in the first x86_64 run).  The arity
 * comes from the kernel (the bpf_raw_event_map BPF's raw_tp uses), and
 * one callback per arity 0..10 is registered accordingly.
 */
static void __xdt_probe rawtp_fire(struct rawtp *rt, const u64 *a)
{
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	if (xdt_probe_fast(rt->probe))
		return;
	xdt_ctx_init(&ctx, rt->probe);
	memcpy(ctx.args, a, sizeof(ctx.args));
	ctx.stack = XDT_STACK_HERE;
	ctx.skip_lo = rt->lo;
	ctx.skip_hi = rt->hi;
	xdt_probe_fire(&ctx);
}

#define P0
#define P1 P0, u64 a0
#define P2 P1, u64 a1
#define P3 P2, u64 a2
#define P4 P3, u64 a3
#define P5 P4, u64 a4
#define P6 P5, u64 a5
#define P7 P6, u64 a6
#define P8 P7, u64 a7
#define P9 P8, u64 a8
#define P10 P9, u64 a9
#define V0 0
#define V1 a0
#define V2 V1, a1
#define V3 V2, a2
#define V4 V3, a3
#define V5 V4, a4
#define V6 V5, a5
#define V7 V6, a6
#define V8 V7, a7
#define V9 V8, a8
#define V10 V9, a9
#define RAWTP_FIRE(n)							\
static void __xdt_probe rawtp_fire##n(void *data P##n)			\
{									\
	u64 a[XDT_NARGS] = { V##n };					\
									\
	rawtp_fire(data, a);						\
}
RAWTP_FIRE(0) RAWTP_FIRE(1) RAWTP_FIRE(2) RAWTP_FIRE(3) RAWTP_FIRE(4)
RAWTP_FIRE(5) RAWTP_FIRE(6) RAWTP_FIRE(7) RAWTP_FIRE(8) RAWTP_FIRE(9)
RAWTP_FIRE(10)

static void *const rawtp_fires[XDT_NARGS + 1] = {
	rawtp_fire0, rawtp_fire1, rawtp_fire2, rawtp_fire3, rawtp_fire4,
	rawtp_fire5, rawtp_fire6, rawtp_fire7, rawtp_fire8, rawtp_fire9,
	rawtp_fire10,
};

/* ---- enabling ------------------------------------------------------------- */
static int rawtp_enable(struct xdt_probe *probe)
{
	struct rawtp *rt = probe->parg;
	int ret;

	if (rt->on)
		return 0;
	ret = tracepoint_probe_register(rt->tp, rt->fire, rt);
	rt->on = !ret;
	return ret;
}

static void rawtp_disable(struct xdt_probe *probe)
{
	struct rawtp *rt = probe->parg;

	/* (STOP after a failed GO disables probes never enabled.) */
	if (!rt->on)
		return;
	rt->on = false;
	tracepoint_probe_unregister(rt->tp, rt->fire, rt);
}

static const struct xdt_provider_ops rawtp_ops = {
	.enable = rawtp_enable,
	.disable = rawtp_disable,
	.quiesce = xdt_tracepoint_quiesce,
};

static struct xdt_provider rawtp_provider = {
	.name = "rawtp",
	.ops = &rawtp_ops,
};

/* ---- the tracepoints ------------------------------------------------------- */
/* The system of @tp among a module's @calls, or "" for a bare tracepoint. */
static const char *tp_system(struct tracepoint *tp,
			     struct trace_event_call **calls, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		struct trace_event_call *c = calls[i];

		if (c && (c->flags & TRACE_EVENT_FL_TRACEPOINT) &&
		    c->tp == tp && c->class && c->class->system)
			return c->class->system;
	}
	return "";
}

/* Caller holds xdt_lock. */
static int add_tp(struct tracepoint *tp, struct module *mod,
		  const char *system, const struct bpf_raw_event_map *raw,
		  unsigned int nraw)
{
	unsigned int i, nargs = 0;
	struct rawtp *rt;

	/*
	 * Arity unknown (no map entry): no arguments, which is always safe.
	 * More than ten: the first ten (reading fewer than passed is safe).
	 */
	for (i = 0; i < nraw; i++)
		if (raw[i].tp == tp)
			nargs = min_t(u32, raw[i].num_args, XDT_NARGS);
	rt = kzalloc(sizeof(*rt), GFP_KERNEL);
	if (!rt)
		return -ENOMEM;
	rt->fire = rawtp_fires[nargs];
	rt->tp = tp;
	rt->mod = mod;
	xdt_tracepoint_iterator(tp, &rt->lo, &rt->hi);
	rt->probe = xdt_probe_create(&rawtp_provider, system, "", tp->name,
				     rt);
	if (!rt->probe) {
		kfree(rt);
		return -ENOMEM;
	}
	rt->probe->owner = mod;
	list_add_tail(&rt->list, &rawtps);
	return 0;
}

/*
 * Which trace-event system each vmlinux tracepoint belongs to.  No exported
 * interface maps a tracepoint to its system: the trace_event_call that
 * knows it is on ftrace's event list (kernel/trace/trace_events.c,
 * ftrace_events under event_mutex, neither exported), and the
 * _ftrace_events section that points at vmlinux's calls is init data,
 * freed after boot.  So the list and its mutex are found through kallsyms
 * and walked once, read-only, under the mutex, at load -- before xdt_lock
 * is taken, so xdt never holds both.  Module tracepoints use the module's
 * own trace_events array, which lives as long as the module.
 */
struct tpsys {
	struct tracepoint *tp;
	const char *system;
};

struct kscan {
	struct tpsys *map;
	unsigned int nmap;
	int err;
};

static unsigned long ev_list, ev_mutex, raw_start, raw_stop;

static int find_events(void *data, const char *name, struct module *mod,
		       unsigned long addr)
{
	if (mod)
		return 0;
	if (!strcmp(name, "ftrace_events"))
		ev_list = addr;
	else if (!strcmp(name, "event_mutex"))
		ev_mutex = addr;
	else if (!strcmp(name, "__start__bpf_raw_tp"))
		raw_start = addr;
	else if (!strcmp(name, "__stop__bpf_raw_tp"))
		raw_stop = addr;
	return ev_list && ev_mutex && raw_start && raw_stop;
}

static void map_systems(struct kscan *ks)
{
	struct list_head *head = (struct list_head *)ev_list;
	struct trace_event_call *c;
	unsigned int n = 0;

	if (!ev_list || !ev_mutex)
		return;
	mutex_lock((struct mutex *)ev_mutex);
	list_for_each_entry(c, head, list)
		n++;
	ks->map = kvcalloc(max(n, 1u), sizeof(*ks->map), GFP_KERNEL);
	if (ks->map) {
		list_for_each_entry(c, head, list) {
			if (ks->nmap == n)
				break;
			if (!(c->flags & TRACE_EVENT_FL_TRACEPOINT) || !c->tp ||
			    !c->class || !c->class->system)
				continue;
			ks->map[ks->nmap].tp = c->tp;
			ks->map[ks->nmap++].system = c->class->system;
		}
	}
	mutex_unlock((struct mutex *)ev_mutex);
}

static void kernel_tp(struct tracepoint *tp, void *priv)
{
	struct kscan *ks = priv;
	const char *system = "";
	unsigned int i;

	if (ks->err)
		return;
	for (i = 0; i < ks->nmap; i++) {
		if (ks->map[i].tp == tp) {
			system = ks->map[i].system;
			break;
		}
	}
	ks->err = add_tp(tp, NULL, system,
			 (const struct bpf_raw_event_map *)raw_start,
			 raw_stop > raw_start ? (raw_stop - raw_start) /
			 sizeof(struct bpf_raw_event_map) : 0);
}

static void forget_module(struct module *mod)
{
	struct rawtp *rt, *n;

	list_for_each_entry_safe(rt, n, &rawtps, list) {
		if (rt->mod != mod)
			continue;
		list_del(&rt->list);
		xdt_probe_destroy(rt->probe);
		kfree(rt);
	}
}

static int rawtp_module_notify(struct notifier_block *nb, unsigned long action,
			       void *data)
{
	struct tp_module *tm = data;
	struct module *mod = tm->mod;
	unsigned int i;
	int err = 0;

	mutex_lock(&xdt_lock);
	if (action == MODULE_STATE_COMING) {
		for (i = 0; i < mod->num_tracepoints && !err; i++) {
			struct tracepoint *tp =
				tracepoint_ptr_deref(&mod->tracepoints_ptrs[i]);

			err = add_tp(tp, mod, tp_system(tp, mod->trace_events,
							mod->num_trace_events),
				     mod->bpf_raw_events,
				     mod->num_bpf_raw_events);
		}
		if (err)
			pr_warn("xdt: rawtp: %s: out of memory, its tracepoints "
				"are incomplete\n", mod->name);
	} else if (action == MODULE_STATE_GOING) {
		forget_module(mod);
	}
	mutex_unlock(&xdt_lock);
	return NOTIFY_OK;
}

static struct notifier_block rawtp_module_nb = {
	.notifier_call = rawtp_module_notify,
};

int xdt_rawtp_init(void)
{
	struct kscan ks = { 0 };
	unsigned int n = 0;
	struct rawtp *rt;
	int ret;

	kallsyms_on_each_symbol(find_events, NULL);
	map_systems(&ks);
	if (!ks.nmap)
		pr_warn("xdt: rawtp: ftrace's event list not found: every "
			"tracepoint's module field is empty\n");
	xdt_provider_register(&rawtp_provider);
	registered = true;
	mutex_lock(&xdt_lock);
	for_each_kernel_tracepoint(kernel_tp, &ks);
	mutex_unlock(&xdt_lock);
	kvfree(ks.map);
	ret = ks.err;
	if (!ret) {
		/* Replays MODULE_STATE_COMING for the modules already here. */
		ret = register_tracepoint_module_notifier(&rawtp_module_nb);
		notifier = !ret;
	}
	if (ret) {
		xdt_rawtp_exit();
		return ret;
	}
	mutex_lock(&xdt_lock);
	list_for_each_entry(rt, &rawtps, list)
		n++;
	mutex_unlock(&xdt_lock);
	pr_info("xdt: rawtp: %u tracepoints\n", n);
	return 0;
}

void xdt_rawtp_exit(void)
{
	struct rawtp *rt, *n;

	/* Nothing is enabled: the device is closed (module refcount). */
	if (notifier)
		unregister_tracepoint_module_notifier(&rawtp_module_nb);
	notifier = false;
	if (registered)
		xdt_provider_unregister(&rawtp_provider);
	registered = false;
	list_for_each_entry_safe(rt, n, &rawtps, list) {
		list_del(&rt->list);
		kfree(rt);
	}
}
