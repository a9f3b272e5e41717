// SPDX-License-Identifier: GPL-2.0
/*
 * Reclaiming dynamic variables (the kernel's half of vars.c): the cleaner,
 * which returns dirty chunks to the free list a grace period after they
 * were freed, and the sched_process_exit hook, which frees an exiting
 * thread's self-> variables.  Why each is safe: vars.c, "Freeing" and
 * "Threads".
 */
#include <linux/tracepoint.h>
#include <linux/workqueue.h>

#include "vars.h"
#include "xdt_tp.h"

/*
 * Process context taking the locks firings take: IRQs off and this CPU's
 * busy guard set, so nothing (not even a firing from an NMI) can try the
 * same lock on this CPU while it is held.
 */
static __always_inline int dv_guard(unsigned long *flags)
{
	struct xdt_cpu *c;
	int was;

	local_irq_save(*flags);
	c = this_cpu_ptr(&xdt_cpu);
	was = c->busy;
	c->busy = 1;
	return was;
}

static __always_inline void dv_unguard(unsigned long flags, int was)
{
	this_cpu_ptr(&xdt_cpu)->busy = was;
	local_irq_restore(flags);
}

static void dv_clean(struct work_struct *w)
{
	struct xdt_vars *v = container_of(to_delayed_work(w), struct xdt_vars,
					  cleaner);
	unsigned long flags;
	u32 head, tail;
	int was;

	was = dv_guard(&flags);
	dv_lock(&v->poollock);
	head = v->dirtyhead;
	v->dirtyhead = 0;
	dv_unlock(&v->poollock);
	dv_unguard(flags, was);
	if (head) {
		/* No firing that could still read these values is left. */
		synchronize_rcu();
		for (tail = head; dv_meta(v, tail)->next;
		     tail = dv_meta(v, tail)->next)
			;
		was = dv_guard(&flags);
		dv_lock(&v->poollock);
		dv_meta(v, tail)->next = v->freehead;
		v->freehead = head;
		dv_unlock(&v->poollock);
		dv_unguard(flags, was);
	}
	if (READ_ONCE(v->running))
		schedule_delayed_work(&v->cleaner, v->period);
}

/* sched_process_exit, in the exiting thread: free its variables. */
static void __xdt_probe dv_thread_exit(void *data, struct task_struct *p)
{
	struct xdt_vars *v = data;
	struct dv_bucket *b = dv_tbucket(v, (unsigned long)p);
	unsigned long flags;
	u32 *link, n;
	int was;

	was = dv_guard(&flags);
	dv_lock(&b->lock);
	for (link = &b->head; (n = *link);) {
		struct dv_meta *e = dv_meta(v, n);

		if (e->thread == (unsigned long)p) {
			*link = e->next;
			dv_dirty(v, n);
		} else {
			link = &e->next;
		}
	}
	dv_unlock(&b->lock);
	dv_unguard(flags, was);
}

int xdt_vars_start(struct xdt_vars *v)
{
	int ret;

	if (!v->valmax)
		return 0;
	if (v->has_thread) {
		v->exit_tp = xdt_tracepoint_find("sched_process_exit");
		if (!v->exit_tp)
			return -ENOENT;
		ret = tracepoint_probe_register(v->exit_tp, dv_thread_exit, v);
		if (ret) {
			v->exit_tp = NULL;
			return ret;
		}
	}
	INIT_DELAYED_WORK(&v->cleaner, dv_clean);
	WRITE_ONCE(v->running, true);
	schedule_delayed_work(&v->cleaner, v->period);
	return 0;
}

/*
 * STOP, once its probes are disabled and before its grace period: no
 * thread exits into the hook after this.  sched_process_exit is not an
 * rcuidle tracepoint, so STOP's synchronize_rcu covers a hook still
 * running; and no task_struct freed from now on can be reused by a thread
 * that fires (only END fires, in the consumer, which was alive before).
 */
void xdt_vars_unhook(struct xdt_vars *v)
{
	if (v && v->exit_tp) {
		tracepoint_probe_unregister(v->exit_tp, dv_thread_exit, v);
		v->exit_tp = NULL;
	}
}

/* After STOP: nothing fires any more; stop the cleaner. */
void xdt_vars_stop(struct xdt_vars *v)
{
	if (!v)
		return;
	if (v->exit_tp) {		/* not through STOP: wait for the hook */
		tracepoint_probe_unregister(v->exit_tp, dv_thread_exit, v);
		tracepoint_synchronize_unregister();
		v->exit_tp = NULL;
	}
	if (!v->running)
		return;
	WRITE_ONCE(v->running, false);
	cancel_delayed_work_sync(&v->cleaner);
}

/* ---- the speculations' cleaner (core/portable/spec.c), at cleanrate ------------- */
static void spec_clean_work(struct work_struct *w)
{
	struct xdt_spec *sp = container_of(to_delayed_work(w), struct xdt_spec,
					   cleaner);

	xdt_spec_clean(sp->st);
	if (READ_ONCE(sp->running))
		schedule_delayed_work(&sp->cleaner, sp->period);
}

void xdt_spec_start(struct xdt_state *st, unsigned long period)
{
	struct xdt_spec *sp = st->spec;

	if (!sp)
		return;
	sp->period = period;
	INIT_DELAYED_WORK(&sp->cleaner, spec_clean_work);
	WRITE_ONCE(sp->running, true);
	schedule_delayed_work(&sp->cleaner, sp->period);
}

void xdt_spec_stop(struct xdt_state *st)
{
	struct xdt_spec *sp = st->spec;

	if (!sp || !sp->running)
		return;
	WRITE_ONCE(sp->running, false);
	cancel_delayed_work_sync(&sp->cleaner);
}
