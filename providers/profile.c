// SPDX-License-Identifier: GPL-2.0
/*
 * profile: probes that fire at a fixed rate, from a high-resolution timer.
 *
 *   profile-N   on every online CPU, N times a second (or every N units)
 *   tick-N      on one CPU only
 *
 * N takes DTrace's units: ns/nsec, us/usec, ms/msec, s/sec, m/min, h/hour,
 * d/day, hz; a bare number is hz.  The usual presets are created at load
 * (the ones illumos lists); any other rate is created on demand the first
 * time a description names it exactly, as DTrace does, and then stays.
 * Intervals under 200 us are refused (illumos' profile_interval_min): a
 * shorter period would keep a TCG guest in timer interrupts.
 *
 * arg0 is the interrupted kernel PC (0 if the CPU was in user mode), arg1
 * the interrupted user PC (0 if it was in the kernel); stack() is the
 * interrupted kernel stack, its PC first.
 *
 * Nothing of this runs while no profile probe is enabled: timers exist
 * only between a probe's enable and disable.  Per-CPU timers are pinned
 * hard-irq hrtimers; a CPU coming online while a profile probe is enabled
 * gets its timer from the hotplug callback, a CPU going offline loses it
 * (cpuhp state, registered at load).
 */
#include <linux/cpu.h>
#include <linux/cpuhotplug.h>
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/percpu.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <asm/irq_regs.h>

#include "xdt_impl.h"
#include "providers.h"

#define PROF_MIN_NS	200000ULL

struct prof;

struct prof_cpu {
	struct hrtimer timer;
	struct prof *p;
	bool on;
};

struct prof {
	struct xdt_probe *probe;
	u64 ns;				/* interval */
	bool tick;			/* one CPU, not every CPU */
	bool on;
	struct hrtimer timer;		/* tick-N */
	struct prof_cpu __percpu *pc;	/* profile-N, while enabled */
	struct list_head list;		/* all */
	struct list_head on_list;	/* enabled profile-N (hotplug) */
	char name[XDT_NAMELEN];
};

static struct xdt_provider profile_provider;
static LIST_HEAD(profs);		/* under xdt_lock */
static LIST_HEAD(profs_on);		/* under prof_lock */
static DEFINE_MUTEX(prof_lock);		/* after cpus_read_lock() */
static int prof_hp_state = -1;

/* ---- probe context -------------------------------------------------------- */
static void __xdt_probe prof_fire(struct prof *p)
{
	struct pt_regs *regs = get_irq_regs();
	struct xdt_ctx ctx __xdt_noinit;	/* xdt_ctx_init() clears it */

	if (xdt_probe_fast(p->probe))
		return;
	xdt_ctx_init(&ctx, p->probe);
	if (regs) {
		bool user = user_mode(regs);

		ctx.args[0] = user ? 0 : instruction_pointer(regs);
		ctx.args[1] = user ? instruction_pointer(regs) : 0;
		ctx.regs = regs;
		ctx.stack = XDT_STACK_REGS;
	}
	xdt_probe_fire(&ctx);
}

static enum hrtimer_restart __xdt_probe prof_cpu_timer(struct hrtimer *t)
{
	struct prof_cpu *pc = container_of(t, struct prof_cpu, timer);

	prof_fire(pc->p);
	hrtimer_forward_now(t, ns_to_ktime(pc->p->ns));
	return HRTIMER_RESTART;
}

static enum hrtimer_restart __xdt_probe prof_tick_timer(struct hrtimer *t)
{
	struct prof *p = container_of(t, struct prof, timer);

	prof_fire(p);
	hrtimer_forward_now(t, ns_to_ktime(p->ns));
	return HRTIMER_RESTART;
}

/* ---- rates ------------------------------------------------------------------ */
static const struct {
	const char *name;
	u64 mult;			/* ns per unit; 0 = hz */
} units[] = {
	{ "ns", 1 }, { "nsec", 1 },
	{ "us", NSEC_PER_USEC }, { "usec", NSEC_PER_USEC },
	{ "ms", NSEC_PER_MSEC }, { "msec", NSEC_PER_MSEC },
	{ "s", NSEC_PER_SEC }, { "sec", NSEC_PER_SEC },
	{ "m", 60 * NSEC_PER_SEC }, { "min", 60 * NSEC_PER_SEC },
	{ "h", 3600 * NSEC_PER_SEC }, { "hour", 3600 * NSEC_PER_SEC },
	{ "d", 86400 * NSEC_PER_SEC }, { "day", 86400 * NSEC_PER_SEC },
	{ "hz", 0 }, { "", 0 },
};

/*
 * "profile-997", "tick-1s", "tick-10hz": the interval in ns and which
 * kind, or false if @name is not a profile probe name xdt can time.
 */
static bool parse_name(const char *name, u64 *ns, bool *tick)
{
	const char *s;
	u64 n = 0;
	unsigned int i;

	if (!strncmp(name, "profile-", 8)) {
		*tick = false;
		s = name + 8;
	} else if (!strncmp(name, "tick-", 5)) {
		*tick = true;
		s = name + 5;
	} else {
		return false;
	}
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > U64_MAX / 10 / NSEC_PER_SEC)
			return false;
		n = n * 10 + (*s - '0');
	}
	if (!n)
		return false;
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		if (strcmp(s, units[i].name))
			continue;
		if (!units[i].mult)
			*ns = n > NSEC_PER_SEC ? 0 : NSEC_PER_SEC / n;
		else if (n > U64_MAX / units[i].mult)
			return false;
		else
			*ns = n * units[i].mult;
		return *ns >= PROF_MIN_NS;
	}
	return false;
}

/* Caller holds xdt_lock. */
static struct prof *prof_create(const char *name)
{
	struct prof *p;
	u64 ns;
	bool tick;

	if (!parse_name(name, &ns, &tick))
		return NULL;
	list_for_each_entry(p, &profs, list)
		if (!strcmp(p->name, name))
			return p;
	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	strscpy(p->name, name, sizeof(p->name));
	p->ns = ns;
	p->tick = tick;
	p->probe = xdt_probe_create(&profile_provider, "", "", p->name, p);
	if (!p->probe) {
		kfree(p);
		return NULL;
	}
	list_add_tail(&p->list, &profs);
	return p;
}

static void prof_provide(const struct xdt_probedesc *d, char *why, size_t len)
{
	char name[XDT_NAMELEN];

	strscpy(name, d->name, sizeof(name));
	/* Only an exact name makes a probe; a glob matches what exists. */
	if (!name[0] || strpbrk(name, "*?[\\"))
		return;
	if ((d->mod[0] && strcmp(d->mod, "*")) ||
	    (d->func[0] && strcmp(d->func, "*")))
		return;
	prof_create(name);
}

/* ---- enabling --------------------------------------------------------------- */
static void prof_cpu_start(void *arg)
{
	struct prof_cpu *pc = this_cpu_ptr(((struct prof *)arg)->pc);

	hrtimer_init(&pc->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_PINNED_HARD);
	pc->timer.function = prof_cpu_timer;
	pc->p = arg;
	pc->on = true;
	hrtimer_start(&pc->timer, ns_to_ktime(pc->p->ns),
		      HRTIMER_MODE_REL_PINNED_HARD);
}

static void prof_cpu_stop(struct prof *p, unsigned int cpu)
{
	struct prof_cpu *pc = per_cpu_ptr(p->pc, cpu);

	if (!pc->on)
		return;
	hrtimer_cancel(&pc->timer);
	pc->on = false;
}

static int prof_enable(struct xdt_probe *probe)
{
	struct prof *p = probe->parg;
	unsigned int cpu;

	if (p->tick) {
		hrtimer_init(&p->timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
		p->timer.function = prof_tick_timer;
		hrtimer_start(&p->timer, ns_to_ktime(p->ns),
			      HRTIMER_MODE_REL_HARD);
		p->on = true;
		return 0;
	}
	p->pc = alloc_percpu(struct prof_cpu);
	if (!p->pc)
		return -ENOMEM;
	cpus_read_lock();
	mutex_lock(&prof_lock);
	for_each_online_cpu(cpu)
		smp_call_function_single(cpu, prof_cpu_start, p, 1);
	list_add_tail(&p->on_list, &profs_on);
	p->on = true;
	mutex_unlock(&prof_lock);
	cpus_read_unlock();
	return 0;
}

static void prof_disable(struct xdt_probe *probe)
{
	struct prof *p = probe->parg;
	unsigned int cpu;

	if (!p->on)
		return;
	p->on = false;
	if (p->tick) {
		hrtimer_cancel(&p->timer);
		return;
	}
	cpus_read_lock();
	mutex_lock(&prof_lock);
	list_del(&p->on_list);
	for_each_possible_cpu(cpu)
		prof_cpu_stop(p, cpu);
	mutex_unlock(&prof_lock);
	cpus_read_unlock();
	free_percpu(p->pc);
	p->pc = NULL;
}

/* Hotplug: runs on the CPU coming up / going down, cpu_hotplug_lock held. */
static int prof_cpu_online(unsigned int cpu)
{
	struct prof *p;

	mutex_lock(&prof_lock);
	list_for_each_entry(p, &profs_on, on_list)
		if (!per_cpu_ptr(p->pc, cpu)->on)
			prof_cpu_start(p);
	mutex_unlock(&prof_lock);
	return 0;
}

static int prof_cpu_offline(unsigned int cpu)
{
	struct prof *p;

	mutex_lock(&prof_lock);
	list_for_each_entry(p, &profs_on, on_list)
		prof_cpu_stop(p, cpu);
	mutex_unlock(&prof_lock);
	return 0;
}

static const struct xdt_provider_ops profile_ops = {
	.provide = prof_provide,
	.enable = prof_enable,
	.disable = prof_disable,
};

static struct xdt_provider profile_provider = {
	.name = "profile",
	.ops = &profile_ops,
};

/* illumos' presets. */
static const char *const presets[] = {
	"profile-97", "profile-199", "profile-499", "profile-997",
	"profile-1999", "profile-4001", "profile-4999",
	"tick-1", "tick-10", "tick-100", "tick-500", "tick-1000", "tick-5000",
	"tick-1s", "tick-10s",
};

int xdt_profile_init(void)
{
	unsigned int i;
	int ret;

	ret = cpuhp_setup_state_nocalls(CPUHP_AP_ONLINE_DYN, "xdt/profile:online",
					prof_cpu_online, prof_cpu_offline);
	if (ret < 0)
		return ret;
	prof_hp_state = ret;
	xdt_provider_register(&profile_provider);
	mutex_lock(&xdt_lock);
	for (i = 0; i < ARRAY_SIZE(presets); i++)
		prof_create(presets[i]);
	mutex_unlock(&xdt_lock);
	return 0;
}

void xdt_profile_exit(void)
{
	struct prof *p, *n;

	/* Nothing is enabled: the device is closed (module refcount). */
	if (prof_hp_state >= 0)
		cpuhp_remove_state_nocalls(prof_hp_state);
	xdt_provider_unregister(&profile_provider);
	list_for_each_entry_safe(p, n, &profs, list) {
		list_del(&p->list);
		kfree(p);
	}
}
