// SPDX-License-Identifier: GPL-2.0
/*
 * DIF verifier and interpreter.  The instruction set is defined once, in
 * uapi/dif.h; both the tables here and the consumer's disassembler are
 * generated from that list.
 *
 * The verifier makes the interpreter's job simple: after it, every opcode is
 * known, every register index is in range, %r0 is never written, every
 * table index is in bounds, every string operand in the string table is
 * NUL-terminated inside it, and every branch goes forward to an instruction
 * that exists -- so a program runs at most ninsns instructions and ends in a
 * RET.  What the verifier cannot know (memory addresses, divisors) is checked
 * at run time and raised as a fault for dtrace:::ERROR.
 */
#include "xdt_impl.h"

static const u8 dif_form[256] = {
#define X(name, val, form, mn, use) [val] = (form) + 1,
	DIF_OPS(X)
#undef X
};

static const char *const dif_mnemonic[256] = {
#define X(name, val, form, mn, use) [val] = mn,
	DIF_OPS(X)
#undef X
};

/* Which operands each op reads and writes (DIF_U_*): the list's 5th column. */
static const u8 dif_use[256] = {
#define X(name, val, form, mn, use) [val] = (use),
	DIF_OPS(X)
#undef X
};

/*
 * The scope and kind of variable each variable op names (+1, so 0 = not a
 * variable op).  The ops come in load/store pairs, one pair per
 * (scope, kind).
 */
#define VAR_OP(scope, kind)	((scope) << 4 | (kind) | 0x80)
static const u8 dif_varop[256] = {
	[DIF_OP_LDGS] = VAR_OP(XDT_VAR_GLOBAL, XDT_VAR_SCALAR),
	[DIF_OP_STGS] = VAR_OP(XDT_VAR_GLOBAL, XDT_VAR_SCALAR),
	[DIF_OP_LDTS] = VAR_OP(XDT_VAR_THREAD, XDT_VAR_SCALAR),
	[DIF_OP_STTS] = VAR_OP(XDT_VAR_THREAD, XDT_VAR_SCALAR),
	[DIF_OP_LDLS] = VAR_OP(XDT_VAR_LOCAL, XDT_VAR_SCALAR),
	[DIF_OP_STLS] = VAR_OP(XDT_VAR_LOCAL, XDT_VAR_SCALAR),
	[DIF_OP_LDGAA] = VAR_OP(XDT_VAR_GLOBAL, XDT_VAR_ARRAY),
	[DIF_OP_STGAA] = VAR_OP(XDT_VAR_GLOBAL, XDT_VAR_ARRAY),
	[DIF_OP_LDTAA] = VAR_OP(XDT_VAR_THREAD, XDT_VAR_ARRAY),
	[DIF_OP_STTAA] = VAR_OP(XDT_VAR_THREAD, XDT_VAR_ARRAY),
};

static const char *const scope_name[] = { "global", "thread-local",
					  "clause-local" };

#define VERR(fmt, ...) \
	({ snprintf(err, errlen, "insn %u (%s): " fmt, pc, \
		    dif_mnemonic[op] ? dif_mnemonic[op] : "?", ##__VA_ARGS__); \
	   -EINVAL; })

/* Check what an I-form index names (a table entry, a variable). */
static int verify_index(const struct xdt_difo_k *d, const struct xdt_var *vars,
			u32 nvars, bool destructive, u32 pc, u32 op, u32 idx,
			char *err, size_t errlen)
{
	const struct xdt_var *x;

	if (op == DIF_OP_SETX && idx >= d->nints)
		return VERR("integer index %u beyond table of %u", idx,
			    d->nints);
	if (op == DIF_OP_SETS &&
	    (idx >= d->strlen || !memchr(d->strtab + idx, 0, d->strlen - idx)))
		return VERR("string offset %u not a string in table of %u "
			    "bytes", idx, d->strlen);
	if (op == DIF_OP_LDV && idx >= DIF_NVARS)
		return VERR("unknown variable %u", idx);
	if (op == DIF_OP_CALL && idx >= DIF_NSUBRS)
		return VERR("unknown subroutine %u", idx);
	if (op == DIF_OP_CALL && !destructive && xdt_subr_destructive(idx))
		return VERR("destructive subroutine %u without -w", idx);
	if (!(dif_use[op] & DIF_U_VAR))
		return 0;
	if (idx >= nvars)
		return VERR("variable %u beyond table of %u", idx, nvars);
	x = &vars[idx];
	if (dif_varop[op] != VAR_OP(x->scope, x->kind))
		return VERR("variable %u (%.32s) is a %s %s", idx, x->name,
			    scope_name[x->scope],
			    x->kind == XDT_VAR_ARRAY ? "array" : "scalar");
	return 0;
}

/*
 * @vars: the program's variable table, already checked (xdt_vars_check):
 * every scope and kind in it is known.
 */
int xdt_dif_verify(const struct xdt_difo_k *d, const struct xdt_var *vars,
		   u32 nvars, bool destructive, char *err, size_t errlen)
{
	u32 pc, op = 0;
	int ret;

	if (d->ninsns == 0 || d->ninsns > 8192) {
		snprintf(err, errlen, "program of %u instructions (1..8192)",
			 d->ninsns);
		return -EINVAL;
	}
	if (d->rtype != XDT_TYPE_INT && d->rtype != XDT_TYPE_STRING) {
		snprintf(err, errlen, "unknown return type %u", d->rtype);
		return -EINVAL;
	}
	for (pc = 0; pc < d->ninsns; pc++) {
		u32 in = d->insns[pc], form, use;

		op = DIF_OP(in);
		form = dif_form[op];
		use = dif_use[op];
		if (!form) {
			snprintf(err, errlen, "insn %u: invalid opcode 0x%02x",
				 pc, op);
			return -EINVAL;
		}
		switch (form - 1) {
		case DIF_F_R:
			if (DIF_R1(in) >= DIF_NREGS || DIF_R2(in) >= DIF_NREGS ||
			    DIF_RD(in) >= DIF_NREGS)
				return VERR("register out of range");
			if ((use & DIF_U_WD) && DIF_RD(in) == 0)
				return VERR("writes %%r0");
			if (!(use & DIF_U_R1) && DIF_R1(in))
				return VERR("stray r1 operand");
			if (!(use & DIF_U_R2) && DIF_R2(in))
				return VERR("stray r2 operand");
			if (!(use & (DIF_U_WD | DIF_U_RD)) && DIF_RD(in))
				return VERR("stray rd operand");
			break;
		case DIF_F_I:
			if (DIF_RD(in) >= DIF_NREGS ||
			    ((use & DIF_U_WD) && DIF_RD(in) == 0))
				return VERR("bad destination register");
			ret = verify_index(d, vars, nvars, destructive, pc, op,
					   DIF_INDEX(in), err, errlen);
			if (ret)
				return ret;
			break;
		case DIF_F_B:
			if (DIF_R1(in) >= DIF_NREGS)
				return VERR("register out of range");
			if (DIF_TARGET(in) <= pc)
				return VERR("branch backwards to %u",
					    DIF_TARGET(in));
			if (DIF_TARGET(in) >= d->ninsns)
				return VERR("branch to %u beyond the end (%u)",
					    DIF_TARGET(in), d->ninsns);
			break;
		}
	}
	if (DIF_OP(d->insns[d->ninsns - 1]) != DIF_OP_RET) {
		pc = d->ninsns - 1;
		op = DIF_OP(d->insns[pc]);
		return VERR("program does not end in ret");
	}
	return 0;
}

/* ---- probe context -------------------------------------------------------- */

void __xdt_probe xdt_dif_fault(struct xdt_mstate *m, int kind, u64 addr,
			      u32 pc)
{
	m->ctx->fault = kind;
	m->ctx->fault_addr = addr;
	/* DTrace's "DIF offset": a byte offset, 4 per instruction */
	m->ctx->fault_pc = pc * sizeof(u32);
}

/* A load: through xdt_read, which holds a CAP_PERFMON consumer to its own. */
/*
 * caller, stackdepth, ucaller, ustackdepth: from the walks stack() and
 * ustack() record (xdt_env.h), so they agree with what those show; a
 * depth counts at most XDT_MAXSTACK frames.  Out of line: its buffer is
 * on the stack only when a clause reads one of them.
 */
static noinline u64 __xdt_probe stack_var(u32 v, struct xdt_mstate *m)
{
	u64 pcs[XDT_MAXSTACK + 1];
	unsigned int n;

	switch (v) {
	case DIF_VAR_CALLER:
		return xdt_stack(m->ctx, pcs, 1) ? pcs[0] : 0;
	case DIF_VAR_STACKDEPTH:
		return xdt_stack(m->ctx, pcs, XDT_MAXSTACK);
	case DIF_VAR_UCALLER:
		/* the pid's word, the PC, then the caller */
		n = xdt_ustack(m->ctx, pcs, 3);
		return n > 2 ? pcs[2] : 0;
	default:
		n = xdt_ustack(m->ctx, pcs, XDT_MAXSTACK + 1);
		return n ? n - 1 : 0;
	}
}

/* Each built-in variable's slot in its firing's clocks (DIF_VARS), or 0. */
static const u8 firing_slot[DIF_NVARS] = {
#define X(name, str, slot) [DIF_VAR_##name] = (slot),
	DIF_VARS(X)
#undef X
};

/*
 * A built-in variable (LDV; the verifier keeps @v below DIF_NVARS).  A
 * clock is read from the environment once per firing and then from the
 * firing's context, so every clause of the firing sees one instant.
 */
static inline u64 __xdt_probe ldv(u32 v, struct xdt_mstate *m)
{
	struct xdt_ctx *ctx = m->ctx;
	u32 s = firing_slot[v];

	if (v >= DIF_VAR_CALLER && v <= DIF_VAR_USTACKDEPTH)
		return stack_var(v, m);
	if (!s)
		return xdt_dif_var(v, m);
	if (!(ctx->sampled & (1u << s))) {
		ctx->clocks[s - 1] = xdt_dif_var(v, m);
		ctx->sampled |= 1u << s;
	}
	return ctx->clocks[s - 1];
}

/* The next read of built-in clock @v in this firing samples it again. */
void __xdt_probe xdt_dif_resample(struct xdt_ctx *ctx, u32 v)
{
	ctx->sampled &= ~(1u << firing_slot[v]);
}

static int __xdt_probe load(struct xdt_mstate *m, u64 addr, void *dst,
			    size_t n, u32 pc)
{
	int f;

	if (!XDT_UNALIGNED_LOADS && (addr & (n - 1))) {
		xdt_dif_fault(m, XDT_FAULT_BADALIGN, addr, pc);
		return -EINVAL;
	}
	f = xdt_read(m, dst, addr, n);
	if (f) {
		xdt_dif_fault(m, f, addr, pc);
		return -EFAULT;
	}
	return 0;
}

/*
 * strcmp over two strings in memory, each bounded by @max bytes, with
 * DTrace's dtrace_strncmp() rules: a NULL string reads as the empty one
 * (its bytes are never loaded, so NULL == "" and NULL == NULL, no fault),
 * and a string is equal to itself without being read.
 */
static int __xdt_probe scmp(struct xdt_mstate *m, u64 a, u64 b, u32 max,
			    u32 pc, int *res)
{
	u32 i;

	*res = 0;
	if (a == b)
		return 0;
	for (i = 0; i < max; i++) {
		u8 x = 0, y = 0;

		if ((a && load(m, a + i, &x, 1, pc)) ||
		    (b && load(m, b + i, &y, 1, pc)))
			return -EFAULT;
		if (x != y) {
			*res = x < y ? -1 : 1;
			return 0;
		}
		if (!x)
			break;
	}
	*res = 0;
	return 0;
}

/*
 * The DIF interpreter: one loop over one switch with a case per op of
 * DIF_OPS (core/uapi/dif.h), so it is as long as the instruction set;
 * cutting it up would put a call between an instruction and the next.
 */
int __xdt_probe xdt_dif_run(const struct xdt_difo_k *d, struct xdt_mstate *m,
			    u64 *rv)
{
	u64 r[DIF_NREGS] = { 0 };
	struct xdt_tuple t;
	u32 pc = 0;

	t.n = 0;

	while (pc < d->ninsns) {
		u32 in = d->insns[pc];
		/*
		 * In I- and B-form words the r1/r2 bytes are index or target
		 * bits, up to 255: mask so they never index past r[].
		 */
		u64 a = r[DIF_R1(in) & (DIF_NREGS - 1)];
		u64 b = r[DIF_R2(in) & (DIF_NREGS - 1)], v = 0;
		u32 op = DIF_OP(in), rd = DIF_RD(in);
		int cmp;

		switch (op) {
		case DIF_OP_NOP:
			pc++;
			continue;
		case DIF_OP_RET:
			*rv = r[rd];
			return 0;
		case DIF_OP_MOV:  v = a; break;
		case DIF_OP_ADD:  v = a + b; break;
		case DIF_OP_SUB:  v = a - b; break;
		case DIF_OP_MUL:  v = a * b; break;
		case DIF_OP_SDIV:
		case DIF_OP_UDIV:
		case DIF_OP_SREM:
		case DIF_OP_UREM:
			if (!b) {
				xdt_dif_fault(m, XDT_FAULT_DIVZERO, 0, pc);
				return -EINVAL;
			}
			if (op == DIF_OP_SDIV)
				v = (b == -1ULL) ? -a : (u64)((s64)a / (s64)b);
			else if (op == DIF_OP_SREM)
				v = (b == -1ULL) ? 0 : (u64)((s64)a % (s64)b);
			else if (op == DIF_OP_UDIV)
				v = a / b;
			else
				v = a % b;
			break;
		case DIF_OP_AND:  v = a & b; break;
		case DIF_OP_OR:   v = a | b; break;
		case DIF_OP_XOR:  v = a ^ b; break;
		case DIF_OP_SLL:  v = a << (b & 63); break;
		case DIF_OP_SRL:  v = a >> (b & 63); break;
		case DIF_OP_SRA:  v = (u64)((s64)a >> (b & 63)); break;
		case DIF_OP_NOT:  v = ~a; break;
		case DIF_OP_NEG:  v = -a; break;
		case DIF_OP_SEQ:  v = a == b; break;
		case DIF_OP_SNE:  v = a != b; break;
		case DIF_OP_SLT:  v = (s64)a < (s64)b; break;
		case DIF_OP_SLTU: v = a < b; break;
		case DIF_OP_SLE:  v = (s64)a <= (s64)b; break;
		case DIF_OP_SLEU: v = a <= b; break;
		case DIF_OP_SCMP:
			if (scmp(m, a, b, m->strsize, pc, &cmp))
				return -EFAULT;
			v = (u64)(s64)cmp;
			break;
		case DIF_OP_BA:
			pc = DIF_TARGET(in);
			continue;
		case DIF_OP_BZ:
		case DIF_OP_BNZ:
			if ((a == 0) == (op == DIF_OP_BZ))
				pc = DIF_TARGET(in);
			else
				pc++;
			continue;
		case DIF_OP_SETX:
			v = d->ints[DIF_INDEX(in)];
			break;
		case DIF_OP_SETS:
			v = (unsigned long)(d->strtab + DIF_INDEX(in));
			break;
		case DIF_OP_LDV:
			v = ldv(DIF_INDEX(in), m);
			break;
		case DIF_OP_LDSB: { s8 x;  if (load(m, a, &x, 1, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDSH: { s16 x; if (load(m, a, &x, 2, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDSW: { s32 x; if (load(m, a, &x, 4, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDUB: { u8 x;  if (load(m, a, &x, 1, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDUH: { u16 x; if (load(m, a, &x, 2, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDUW: { u32 x; if (load(m, a, &x, 4, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDX:  { u64 x; if (load(m, a, &x, 8, pc)) return -EFAULT; v = x; break; }
		case DIF_OP_LDGS: case DIF_OP_LDTS: case DIF_OP_LDLS:
		case DIF_OP_LDGAA: case DIF_OP_LDTAA:
			if (xdt_var_load(m, &t, op, DIF_INDEX(in), &v, r[rd] != 0,
					 pc))
				return -EFAULT;
			break;
		case DIF_OP_STGS: case DIF_OP_STTS: case DIF_OP_STLS:
		case DIF_OP_STGAA: case DIF_OP_STTAA:
			if (xdt_var_store(m, &t, op, DIF_INDEX(in), r[rd], pc))
				return -EFAULT;
			break;
		case DIF_OP_PUSHTV:
		case DIF_OP_PUSHTS:
		case DIF_OP_PUSHTR:
			if (t.n == DIF_MAXTUPLE) {
				xdt_dif_fault(m, XDT_FAULT_TUPOFLOW, 0, pc);
				return -EINVAL;
			}
			t.e[t.n].v = a;
			t.e[t.n].str = op == DIF_OP_PUSHTS;
			t.e[t.n].ref = op == DIF_OP_PUSHTR;
			t.n++;
			break;
		case DIF_OP_FLUSHTS:
			t.n = 0;
			break;
		case DIF_OP_CALL:
			if (xdt_subr_call(m, &t, DIF_INDEX(in), &v, pc))
				return -EFAULT;
			break;
		case DIF_OP_ALLOCS:
			if (xdt_scratch_alloc(m, a, &v, pc))
				return -EFAULT;
			break;
		case DIF_OP_COPYS:
			if (xdt_mem_copy(m, r[rd], a, b, pc))
				return -EFAULT;
			break;
		case DIF_OP_COPYSTR:
			if (xdt_mem_copystr(m, r[rd], a, b, pc))
				return -EFAULT;
			break;
		case DIF_OP_STB:
		case DIF_OP_STH:
		case DIF_OP_STW:
		case DIF_OP_STX:
			if (xdt_mem_store(m, r[rd], a, 1u << (op - DIF_OP_STB),
					  pc))
				return -EFAULT;
			break;
		case DIF_OP_LDARG:
			if (a >= XDT_NARGS) {
				xdt_dif_fault(m, XDT_FAULT_ILLOP, a, pc);
				return -EINVAL;
			}
			v = xdt_arg(m->ctx, a);
			break;
		case DIF_OP_LDUREG:
			if (xdt_ureg(m->ctx, a, &v)) {
				xdt_dif_fault(m, XDT_FAULT_ILLOP, a, pc);
				return -EINVAL;
			}
			break;
		default:
			/* The verifier makes this unreachable. */
			xdt_dif_fault(m, XDT_FAULT_ILLOP, 0, pc);
			return -EINVAL;
		}
		if (dif_use[op] & DIF_U_WD)
			r[rd] = v;
		pc++;
	}
	xdt_dif_fault(m, XDT_FAULT_ILLOP, 0, pc);
	return -EINVAL;
}
