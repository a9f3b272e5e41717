// SPDX-License-Identifier: GPL-2.0
/*
 * Probe firing: run every clause bound to a probe, in program order.
 *
 * All of this is probe context (see xdt_impl.h).  Interrupts are off for the
 * whole firing, which pins us to this CPU's buffers and makes the per-CPU
 * busy flag a sufficient re-entrancy guard: a probe hit from inside a firing
 * (an NMI, or a probed function called by the framework) is counted and
 * skipped, never recursed into.
 *
 * A probe's ECBs may belong to several consumers; each clause runs with its
 * own consumer's buffers, aggregations and variables.  The list is an RCU
 * list (IRQs off make the firing a reader), so consumers come and go while
 * others fire.
 */
#include "xdt_impl.h"

static int run_clause(struct xdt_cpu *c, struct xdt_scpu *sc,
		      struct xdt_state *st, const struct xdt_ecb *ecb,
		      struct xdt_ctx *ctx);

/*
 * stack(): @n return addresses from where the firing context says,
 * zero-padded.  A probe the framework fires itself (BEGIN, END) has no
 * kernel context and records an empty stack.
 */
static void __xdt_probe stack(struct xdt_ctx *ctx, u64 *pcs, u32 n,
				bool user)
{
	u32 got = user ? xdt_ustack(ctx, pcs, n) : xdt_stack(ctx, pcs, n);

	memset(pcs + got, 0, (n - got) * 8);
}

/*
 * Record a fault: the clause is abandoned, an ERROR record tells the
 * consumer, and clauses enabled on dtrace:::ERROR run with DTrace's
 * arguments (arg1 EPID, arg2 action, arg3 DIF offset, arg4 fault kind,
 * arg5 address).  A fault inside an ERROR clause is recorded but does not
 * fire ERROR again.
 */
static void __xdt_probe raise_error(struct xdt_cpu *c, struct xdt_scpu *sc,
				    struct xdt_state *st,
				    const struct xdt_ecb *ecb,
				    struct xdt_ctx *ctx, u32 act)
{
	struct xdt_ctx ectx __xdt_noinit;	/* xdt_ctx_init() clears it */
	struct xdt_ecb *e;
	u64 *rec;

	/*
	 * A fault in an ERROR clause is DTrace's double error: counted, with
	 * neither a record nor another ERROR (which could fault again).
	 */
	if (c->in_error) {
		sc->dblerrors++;
		ctx->fault = XDT_FAULT_NONE;
		return;
	}
	sc->errors++;
	/* The consumer's ERROR record: epid 0, then the details. */
	rec = (u64 *)xdt_buf_reserve(sc, sizeof(struct xdt_rechdr) + 6 * 8);
	if (rec) {
		struct xdt_rechdr *h = (struct xdt_rechdr *)rec;

		h->epid = 0;
		h->size = sizeof(*h) + 6 * 8;
		rec[1] = 0;
		rec[2] = ecb->epid;
		rec[3] = act;
		rec[4] = ctx->fault_pc;
		rec[5] = ctx->fault;
		rec[6] = ctx->fault_addr;
	}
	xdt_ctx_init(&ectx, xdt_probe_error);
	ectx.args[1] = ecb->epid;
	ectx.args[2] = act;
	ectx.args[3] = ctx->fault_pc;
	ectx.args[4] = ctx->fault;
	ectx.args[5] = ctx->fault_addr;
	ctx->fault = XDT_FAULT_NONE;
	c->in_error = 1;
	for (e = READ_ONCE(xdt_probe_error->ecbs); e; e = READ_ONCE(e->next))
		if (e->st == st)
			run_clause(c, sc, st, e, &ectx);
	c->in_error = 0;
}

/* An action (not its DIF) failed: the fault, and the record abandoned. */
static void __xdt_probe act_fault(struct xdt_ctx *ctx, char *rec, int kind,
				  u64 addr)
{
	ctx->fault = kind;
	ctx->fault_addr = addr;
	ctx->fault_pc = XDT_NO_DIFOFF;
	if (rec)
		((struct xdt_rechdr *)rec)->epid = U32_MAX;
}

/*
 * One clause of one firing: predicate, record reservation, every action,
 * commit.  Longer than the house's ~150 lines on purpose: it is the
 * firing's hot path, and its locals (the record, the machine state, the
 * speculation) live across every action; split, they would go through
 * memory on each call (bench/stepprof.py counts the instructions).
 */
static int __xdt_probe run_clause(struct xdt_cpu *c, struct xdt_scpu *sc,
				  struct xdt_state *st,
				  const struct xdt_ecb *ecb,
				  struct xdt_ctx *ctx)
{
	const struct xdt_clause_k *cl = ecb->clause;
	struct xdt_mstate m = { .ctx = ctx, .ecb = ecb,
				.strsize = st->strsize, .vars = st->vars,
				.vc = &st->vcpu[raw_smp_processor_id()],
				.spec = st->spec, .sc = sc,
				.nokread = st->perfmon_only };
	char *key = sc->keybuf;
	u32 keylen = 0, i;
	int f;
	s64 incr = 1;			/* the next aggregation's increment */
	struct xdt_rechdr *h;
	char *rec = NULL;
	u64 v;

	if (cl->pred >= 0) {
		if (xdt_dif_run(&st->difos[cl->pred], &m, &v)) {
			raise_error(c, sc, st, ecb, ctx, 0);
			return -1;
		}
		if (!v)
			return 0;
	}
	/* a speculating clause's record waits for its speculate action */
	if (!(cl->flags & XDT_CLAUSE_SPEC) &&
	    (cl->recsize > sizeof(struct xdt_rechdr) ||
	     (cl->flags & XDT_CLAUSE_RECORD))) {
		rec = xdt_buf_reserve(sc, cl->recsize);
		if (!rec)
			return 0;	/* dropped; counted by the buffer */
		h = (struct xdt_rechdr *)rec;
		h->epid = ecb->epid;
		h->size = cl->recsize;
		memset(rec + sizeof(*h), 0, cl->recsize - sizeof(*h));
	}
	for (i = 0; i < cl->nacts; i++) {
		const struct xdt_act_k *a = &cl->acts[i];

		v = 0;
		if (a->difo >= 0 && xdt_dif_run(&st->difos[a->difo], &m, &v)) {
			/* A half-written record would mislead: mark it dead. */
			if (rec)
				((struct xdt_rechdr *)rec)->epid = U32_MAX;
			raise_error(c, sc, st, ecb, ctx, i + 1);
			return -1;
		}
		switch (a->kind) {
		case XDT_ACT_RECORD:
			memcpy(rec + a->off, &v, 8);
			break;
		case XDT_ACT_EXIT:
			/*
			 * DTrace's exit(): the first exit() wins; a clause on
			 * another CPU that reaches exit() after it loses and
			 * its whole record is dropped (illumos: the CAS to
			 * DRAINING fails, CPU_DTRACE_DROP), so two CPUs whose
			 * profile-N timers fire in the same tick print once.
			 * In END (after STOP) exit() just sets the status.
			 */
			if (ecb->probe != xdt_probe_end &&
			    cmpxchg(&st->exited, 0, 1) != 0) {
				if (rec)
					((struct xdt_rechdr *)rec)->epid = U32_MAX;
				return 0;
			}
			memcpy(rec + a->off, &v, 8);
			WRITE_ONCE(st->exited, 1);
			break;
		case XDT_ACT_STRING:
			f = (int)-xdt_readstr(&m, rec + a->off, v,
					      a->arg0 ?: st->strsize);
			if (f > 0) {
				act_fault(ctx, rec, f, v);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			break;
		case XDT_ACT_STACK:
			stack(ctx, (u64 *)(rec + a->off), a->arg0, a->arg1);
			break;
		case XDT_ACT_AGGKEY:
			if (a->arg0 == XDT_KEY_INT) {
				memcpy(key + keylen, &v, 8);
				keylen += 8;
			} else if (a->arg0 == XDT_KEY_STACK ||
				   a->arg0 == XDT_KEY_USTACK) {
				u32 w = XDT_KEY_WORDS(a->arg1);
				u32 slot = XDT_KEY_SLOT(a->arg1);

				stack(ctx, (u64 *)(key + keylen), w,
				      a->arg0 == XDT_KEY_USTACK);
				memset(key + keylen + 8 * w, 0, 8 * (slot - w));
				keylen += slot * 8;
			} else if (a->arg0 == XDT_KEY_MEM) {
				/* a struct's bytes, zero-padded (load.c: size) */
				memset(key + keylen + a->arg1, 0,
				       ALIGN(a->arg1, 8) - a->arg1);
				f = xdt_read(&m, key + keylen, v, a->arg1);
				if (f) {
					act_fault(ctx, rec, f, v);
					raise_error(c, sc, st, ecb, ctx, i + 1);
					return -1;
				}
				keylen += ALIGN(a->arg1, 8);
			} else {
				memset(key + keylen, 0, ALIGN(st->strsize, 8));
				f = (int)-xdt_readstr(&m, key + keylen, v,
						      st->strsize);
				if (f > 0) {
					act_fault(ctx, rec, f, v);
					raise_error(c, sc, st, ecb, ctx, i + 1);
					return -1;
				}
				keylen += ALIGN(st->strsize, 8);
			}
			break;
		case XDT_ACT_AGG:
			xdt_agg_update(sc, &st->aggs[a->arg0], a->arg0, key,
				       keylen, v, incr);
			keylen = 0;
			incr = 1;
			break;
		case XDT_ACT_AGGINCR:
			incr = v;	/* quantize(v, incr) and the like */
			break;
		case XDT_ACT_SPECULATE: {
			int err;

			/* sc's CPU: BEGIN's and END's may be another's */
			rec = xdt_spec_reserve(st->spec, sc,
					       (int)(sc - st->cpu), v,
					       cl->recsize, &err);
			if (err) {
				act_fault(ctx, NULL, XDT_FAULT_ILLOP, 0);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			/*
			 * DTrace's: with no buffer (id 0, not active, full)
			 * the rest of the clause does not run.
			 */
			if (!rec)
				return 0;
			h = (struct xdt_rechdr *)rec;
			h->epid = ecb->epid;
			h->size = cl->recsize;
			memset(rec + sizeof(*h), 0, cl->recsize - sizeof(*h));
			break;
		}
		case XDT_ACT_COMMIT:
		case XDT_ACT_DISCARD:
			if ((a->kind == XDT_ACT_COMMIT ?
			     xdt_spec_commit(st->spec, sc,
					     (int)(sc - st->cpu), v) :
			     xdt_spec_discard(st->spec,
					      (int)(sc - st->cpu), v))) {
				act_fault(ctx, rec, XDT_FAULT_ILLOP, 0);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			break;
		case XDT_ACT_DIFEXPR:
			break;		/* ran for its stores */
		case XDT_ACT_MEMREF:
			/* tracemem(), trace()/print() of a struct or array */
			f = xdt_read(&m, rec + a->off, v, a->arg0);
			if (f) {
				act_fault(ctx, rec, f, v);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			break;
		case XDT_ACT_CHILL:
			if (xdt_chill(v)) {
				act_fault(ctx, rec, XDT_FAULT_ILLOP, 0);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			/*
			 * DTrace's one exception to a firing's fixed clocks:
			 * after chill(), timestamp is read again, so it
			 * shows the time spun.
			 */
			xdt_dif_resample(ctx, DIF_VAR_TIMESTAMP);
			break;
		case XDT_ACT_RAISE:
		case XDT_ACT_STOP:
			if (xdt_raise(a->kind == XDT_ACT_STOP ? XDT_SIGSTOP : v)) {
				act_fault(ctx, rec, XDT_FAULT_ILLOP, 0);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			break;
		case XDT_ACT_BREAKPOINT:
			if (xdt_breakpoint()) {
				act_fault(ctx, rec, XDT_FAULT_ILLOP, 0);
				raise_error(c, sc, st, ecb, ctx, i + 1);
				return -1;
			}
			break;
		case XDT_ACT_PANIC:
			xdt_panic(ctx->probe);
			break;
		}
	}
	return 0;
}

/*
 * Argument @i of a firing: known ones from the context, the others from
 * the provider's getarg the first time one is read (cached, in order, so
 * a probe on the fetch's own path only nests: trapdepth).
 */
u64 __xdt_probe xdt_arg(struct xdt_ctx *ctx, unsigned int i)
{
	u64 (*get)(struct xdt_ctx *, unsigned int);

	if (i >= XDT_NARGS)
		return 0;
	if (i < ctx->nargs)
		return ctx->args[i];
	if (ctx->regargs) {
		ctx->nargs = ctx->regargs(ctx->priv, ctx->regs, ctx->args);
		ctx->regargs = NULL;
		if (i < ctx->nargs)
			return ctx->args[i];
	}
	get = ctx->probe->prov->ops->getarg;
	for (; ctx->nargs <= i; ctx->nargs++)
		ctx->args[ctx->nargs] = get ? get(ctx, ctx->nargs) : 0;
	return ctx->args[i];
}

/* The firing itself; interrupts are off. */
void __xdt_probe xdt_probe_fire_irqsoff(struct xdt_ctx *ctx)
{
	struct xdt_probe *probe = ctx->probe;
	struct xdt_state *st, *last = NULL;
	struct xdt_scpu *sc = NULL;
	struct xdt_ecb *e;
	struct xdt_cpu *c;
	int cpu;

	c = this_cpu_ptr(&xdt_cpu);
	if (c->busy)
		return;
	c->busy = 1;
	cpu = raw_smp_processor_id();
	if (ctx->only) {
		/* BEGIN, END: one consumer's, counted even without clauses. */
		last = ctx->only;
		sc = &last->cpu[xdt_buf_cpu(last, cpu)];
		sc->firings++;
		if (unlikely(last->vcpu[cpu].locals_dirty))
			xdt_vars_clear(last->vars, &last->vcpu[cpu]);
	}
	for (e = READ_ONCE(probe->ecbs); e; e = READ_ONCE(e->next)) {
		st = e->st;
		if (ctx->only ? st != ctx->only : !READ_ONCE(st->running))
			continue;
		/*
		 * -x cpu: other CPUs' firings are not this consumer's, as
		 * DTrace's, whose other CPUs have no buffer to reserve in.
		 * BEGIN and END (ctx->only: fired by the consumer's own
		 * ioctl, on whatever CPU it runs) always run.
		 */
		if (unlikely(st->onecpu) && !ctx->only &&
		    (u32)cpu != st->onecpu - 1)
			continue;
		if (st != last) {
			/* A consumer's ECBs on a probe are together. */
			last = st;
			sc = &st->cpu[cpu];
			sc->firings++;
			/* this-> values do not outlive a firing */
			if (unlikely(st->vcpu[cpu].locals_dirty))
				xdt_vars_clear(st->vars, &st->vcpu[cpu]);
		}
		if (READ_ONCE(st->exited) && probe != xdt_probe_end)
			continue;
		if ((e->clause->flags & XDT_CLAUSE_K_COUNTS) &&
		    xdt_agg_counts(sc, e->clause))
			continue;
		run_clause(c, sc, st, e, ctx);
	}
	c->busy = 0;
}

/* The fast firing (xdt_impl.h), out of line for the providers. */
bool __xdt_probe xdt_probe_fast_irqsoff(struct xdt_probe *p)
{
	return xdt_probe_fast_inline(p);
}

bool __xdt_probe xdt_probe_fast(struct xdt_probe *p)
{
	struct xdt_ecb *e = READ_ONCE(p->fast);
	unsigned long flags;
	bool done;

	if (!e)
		return false;
	local_irq_save(flags);
	done = xdt_probe_fast_ecb(e);
	local_irq_restore(flags);
	return done;
}

void __xdt_probe xdt_probe_fire(struct xdt_ctx *ctx)
{
	unsigned long flags;

	local_irq_save(flags);
	xdt_probe_fire_irqsoff(ctx);
	local_irq_restore(flags);
}
