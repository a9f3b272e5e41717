// SPDX-License-Identifier: GPL-2.0
/*
 * attr.c - DTrace's stability attributes: every provider's five (one
 * table), the built-in variables' and subroutines', a clause's probe
 * description's and the least of what its predicate and actions use
 * (dtrace -v's report), and -x amin's check (D_ATTR_MIN), made as the
 * Dynamic Tracing Guide's "Stability" chapter describes them.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <strings.h>
#include "dt_tree.h"

const struct dattr dt_attr_max = DT_ATTR(STANDARD, STANDARD, COMMON);
const struct dattr dt_attr_def = DT_ATTR(STABLE, STABLE, COMMON);
/* DTrace's for what names no provider, or a glob of them */
static const struct dpattr unstable_pattr = {
	DT_ATTR(UNSTABLE, UNSTABLE, COMMON), DT_ATTR(UNSTABLE, UNSTABLE, COMMON),
	DT_ATTR(UNSTABLE, UNSTABLE, COMMON), DT_ATTR(UNSTABLE, UNSTABLE, COMMON),
	DT_ATTR(UNSTABLE, UNSTABLE, COMMON),
};
/* a kernel type (BTF's, as a module's CTF is to DTrace) or symbol */
static const struct dattr private_attr = DT_ATTR(PRIVATE, PRIVATE, UNKNOWN);

/*
 * Every provider xdt has, with the attributes DTrace gives it or its
 * nearest DTrace provider: provider, module, function, name, args.
 *  - dtrace, fbt, syscall, profile, pid, kinst: DTrace's own (illumos;
 *    kinst is FreeBSD's).  On Linux an fbt module is "vmlinux" or a
 *    loadable module and a syscall function a Linux system call, both
 *    as private to the kernel as on illumos.
 *  - proc, sched, io: illumos' sdt providers with stable translated
 *    arguments (its stab_attr), which xdt's translators keep.
 *  - rawtp: Linux tracepoints, as illumos' plain sdt probes: names and
 *    arguments private to the kernel version (its sdt_attr).
 *  - usdt: a USDT provider nothing describes (#pragma D attributes in
 *    its definition can): DTrace's default for a provider, Unstable.
 */
#define A(n, d, c)	DT_ATTR(n, d, c)
#define EEI	A(EVOLVING, EVOLVING, ISA)
#define EEC	A(EVOLVING, EVOLVING, COMMON)
#define PPU	A(PRIVATE, PRIVATE, UNKNOWN)
#define PPI	A(PRIVATE, PRIVATE, ISA)
#define SSC	A(STABLE, STABLE, COMMON)
#define UUC	A(UNSTABLE, UNSTABLE, COMMON)
#define UUU	A(UNSTABLE, UNSTABLE, UNKNOWN)
#define DT_PROVIDER_ATTRS(X) \
	X("dtrace",  SSC, PPU, PPU, SSC, SSC) \
	X("fbt",     EEI, PPU, PPU, EEI, PPI) \
	X("kinst",   EEC, PPU, PPI, EEC, PPI) \
	X("syscall", EEC, PPU, PPI, EEC, PPI) \
	X("profile", EEC, UUU, PPU, EEC, EEC) \
	X("proc",    EEI, PPU, PPU, EEI, EEI) \
	X("sched",   EEI, PPU, PPU, EEI, EEI) \
	X("io",      EEI, PPU, PPU, EEI, EEI) \
	X("rawtp",   EEI, PPU, PPU, PPI, PPI) \
	X("pid",     EEI, PPU, PPU, EEI, PPU) \
	X("usdt",    UUC, UUC, UUC, UUC, UUC)

static const struct { const char *name; struct dpattr a; } providers[] = {
#define DT_PROV_ROW(nm, pv, m, f, n, a) { nm, { pv, m, f, n, a } },
	DT_PROVIDER_ATTRS(DT_PROV_ROW)
#undef DT_PROV_ROW
};

/*
 * The built-in variables and subroutines below Stable/Stable/Common, as
 * DTrace's table of globals has them; every other one is Stable/Stable/
 * Common.  probeprov .. probename and args[] take their provider's.
 */
static const struct { const char *name; struct dattr a; } idents[] = {
	{ "curthread", A(STABLE, PRIVATE, COMMON) },
	{ "d_path", EEC }, { "ddi_pathname", EEC }, { "getmajor", EEC },
	{ "getminor", EEC }, { "mutex_owned", EEC }, { "mutex_owner", EEC },
	{ "mutex_type_adaptive", EEC }, { "mutex_type_spin", EEC },
	{ "rw_iswriter", EEC }, { "rw_read_held", EEC },
	{ "rw_write_held", EEC }, { "htonl", EEC }, { "htonll", EEC },
	{ "htons", EEC }, { "ntohl", EEC }, { "ntohll", EEC }, { "ntohs", EEC },
};
#undef A

static const char *const stabnames[] = { "Internal", "Private", "Obsolete",
	"External", "Unstable", "Evolving", "Stable", "Standard" };
static const char *const classnames[] = { "Unknown", "CPU", "Platform",
	"Group", "ISA", "Common" };
#define NSTAB	(int)(sizeof(stabnames) / sizeof(stabnames[0]))
#define NCLASS	(int)(sizeof(classnames) / sizeof(classnames[0]))

const char *dt_stability_name(int s)
{
	return s >= 0 && s < NSTAB ? stabnames[s] : "?";
}

const char *dt_class_name(int c)
{
	return c >= 0 && c < NCLASS ? classnames[c] : "?";
}

struct dattr dt_attr_min(struct dattr a, struct dattr b)
{
	struct dattr m = {
		a.name < b.name ? a.name : b.name,
		a.data < b.data ? a.data : b.data,
		a.cls < b.cls ? a.cls : b.cls,
	};

	return m;
}

int dt_attr_below(struct dattr a, struct dattr min)
{
	return a.name < min.name || a.data < min.data || a.cls < min.cls;
}

char *dt_attr_str(struct dattr a, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s/%s", dt_stability_name(a.name),
		 dt_stability_name(a.data), dt_class_name(a.cls));
	return buf;
}

/*
 * DTrace's reading: the parts in order, any case; the parts left out
 * stay at their most (so "Evolving" is Evolving/Standard/Common).
 */
int dt_str2attr(const char *s, struct dattr *a)
{
	const char *const *tab[3] = { stabnames, stabnames, classnames };
	const int n[3] = { NSTAB, NSTAB, NCLASS };
	unsigned char *part[3] = { &a->name, &a->data, &a->cls };

	*a = dt_attr_max;
	for (int i = 0; *s; i++) {
		size_t len = strcspn(s, "/");
		int k;

		if (i == 3)
			return -1;
		for (k = 0; k < n[i]; k++)
			if (strlen(tab[i][k]) == len && !strncasecmp(s, tab[i][k], len))
				break;
		if (k == n[i])
			return -1;
		*part[i] = (unsigned char)k;
		s += len;
		if (*s == '/')
			s++;
	}
	return 0;
}

void dt_attr_print(FILE *fp, const char *title, struct dattr a)
{
	fprintf(fp, "\n\t%s\n", title);
	fprintf(fp, "\t\tIdentifier Names: %s\n", dt_stability_name(a.name));
	fprintf(fp, "\t\tData Semantics:   %s\n", dt_stability_name(a.data));
	fprintf(fp, "\t\tDependency Class: %s\n", dt_class_name(a.cls));
}

const struct dpattr *dt_provider_attr(const struct prog *p, const char *prov)
{
	size_t n = strlen(prov);

	for (int i = 0; p && i < p->npovr; i++)
		if (!strcmp(p->povr[i].name, prov))
			return &p->povr[i].a;
	for (int i = 0; p && i < p->nproviders; i++)
		if (!strcmp(p->providers[i].name, prov))
			return &p->providers[i].attr;
	while (n && prov[n - 1] >= '0' && prov[n - 1] <= '9')
		n--;		/* pid123, myprov123: a process's provider */
	for (int i = 0; p && i < p->npovr; i++)
		if (strlen(p->povr[i].name) == n && !strncmp(p->povr[i].name, prov, n))
			return &p->povr[i].a;
	for (int i = 0; p && i < p->nproviders; i++)
		if (strlen(p->providers[i].name) == n &&
		    !strncmp(p->providers[i].name, prov, n))
			return &p->providers[i].attr;
	for (size_t i = 0; i < sizeof(providers) / sizeof(providers[0]); i++)
		if (strlen(providers[i].name) == n && !strncmp(providers[i].name, prov, n))
			return &providers[i].a;
	/* a process's provider xdt does not know: a USDT provider */
	if (n && n < strlen(prov))
		return &providers[sizeof(providers) / sizeof(providers[0]) - 1].a;
	return NULL;
}

static int isglob(const char *s)
{
	return !*s || strpbrk(s, "*?[\\") != NULL;
}

/*
 * The attributes of a clause's probe description, as DTrace's
 * dtrace_probe_info() makes them: the least of its provider's attributes
 * for the parts it names (an empty or glob part adds nothing), and
 * Unstable/Unstable/Common for no provider or a glob of them.  A
 * description matching several probes has them only if its provider
 * promises the same arguments for every one (args' data at least
 * Evolving) and no part at least Evolving is a glob; else it too is
 * Unstable.  xdt decides before it sees the kernel's probes: a
 * description is taken to match several when its function or name is
 * empty or a glob (a module alone does not multiply kernel probes).
 * @ctx gets the provider's attributes for probeprov .. args[], as DTrace
 * sets them (BEGIN, END and ERROR without a provider are dtrace's).
 */
static struct dattr desc_attr(const struct prog *p, const struct xdt_probedesc *d,
			      const struct dpattr **ctx)
{
	const struct dpattr *pa = NULL;
	struct dattr a;
	int multi = isglob(d->func) || isglob(d->name);

	if (!isglob(d->prov))
		pa = dt_provider_attr(p, d->prov);
	else if (!d->prov[0] && (!strcmp(d->name, "BEGIN") || !strcmp(d->name, "END") ||
				 !strcmp(d->name, "ERROR")))
		pa = dt_provider_attr(p, "dtrace");
	if (pa && multi &&
	    (pa->args.data < DT_STAB_EVOLVING ||
	     (pa->mod.name >= DT_STAB_EVOLVING && isglob(d->mod)) ||
	     (pa->func.name >= DT_STAB_EVOLVING && isglob(d->func)) ||
	     (pa->name.name >= DT_STAB_EVOLVING && isglob(d->name))))
		pa = NULL;
	*ctx = pa ? pa : &unstable_pattr;
	if (!pa || isglob(d->prov))
		return unstable_pattr.prov;
	a = pa->prov;
	if (!isglob(d->mod))
		a = dt_attr_min(a, pa->mod);
	if (!isglob(d->func))
		a = dt_attr_min(a, pa->func);
	if (!isglob(d->name))
		a = dt_attr_min(a, pa->name);
	return a;
}

/* ---- a clause's attributes, and -x amin ------------------------------------ */

/* What DTrace's messages call a node (its dt_node_name). */
static const char *node_name(const struct node *n, char *buf, size_t len)
{
	static const char *const vars[] = {
#define DIF_VNAME(name, str, slot) str,
		DIF_VARS(DIF_VNAME)
#undef DIF_VNAME
	};
	const struct dvar *v = n->dv;

	switch (n->akind ? -1 : (int)n->k) {
	case N_INT:
		snprintf(buf, len, "integer constant 0x%llx", (unsigned long long)n->ival);
		break;
	case N_STR:
		snprintf(buf, len, "string constant \"%s\"", n->s ? n->s : "");
		break;
	case N_VAR:
		snprintf(buf, len, "scalar %s", n->var >= 0 &&
			 n->var < (int)(sizeof(vars) / sizeof(vars[0])) ? vars[n->var] : "?");
		break;
	case N_ARGS:
		snprintf(buf, len, "associative array args");
		break;
	case N_DVAR: case N_SELF: case N_THIS: case N_INDEX:
		if (v)
			snprintf(buf, len, "%s %s", v->array ? "associative array" : "scalar",
				 v->name);
		else
			snprintf(buf, len, "operator [");
		break;
	case N_CALL:
		snprintf(buf, len, "%s %s( )", n->var == -2 ? "tracing function" :
			 "function", n->s);
		break;
	case N_CAST: case N_SIZEOF: case N_OFFSETOF: case N_XLATE:
		if (n->ct) {
			snprintf(buf, len, "type %s", type_str(n->ct));
			break;
		}
		/* fall through */
	default:
		snprintf(buf, len, "operator %s", sema_tokstr(n->op));
		break;
	case -1:
		if (n->akind == AK_ARGS)
			snprintf(buf, len, "associative array args");
		else if (n->akind == AK_SYM)
			snprintf(buf, len, "symbol vmlinux`%s", n->aname);
		else
			snprintf(buf, len, "scalar %s", n->aname);
		break;
	}
	return buf;
}

static struct dattr type_attr(const struct dtype *t)
{
	for (int i = 0; t && i < 64; i++) {
		if (t->kernel)
			return private_attr;
		if (t->real && t->real != t)
			t = t->real;
		else
			t = t->base;
	}
	return dt_attr_def;
}

static struct dattr ident_attr(const char *name)
{
	for (size_t i = 0; i < sizeof(idents) / sizeof(idents[0]); i++)
		if (!strcmp(idents[i].name, name))
			return idents[i].a;
	return dt_attr_def;
}

/* A node's own attributes, before its operands'. */
static struct dattr own_attr(const struct prog *p, const struct node *n)
{
	const struct dpattr *ctx = p->ctxpattr ? p->ctxpattr : &unstable_pattr;

	switch (n->akind) {
	case AK_ARGS:
		return ctx->args;
	case AK_SYM:
		return private_attr;
	case AK_INLINE:
		return n->ainl ? n->ainl->attr : dt_attr_def;
	case AK_NONE:
		break;
	}
	switch (n->k) {
	case N_VAR:
		switch (n->var) {
		case DIF_VAR_PROBEPROV: return ctx->prov;
		case DIF_VAR_PROBEMOD: return ctx->mod;
		case DIF_VAR_PROBEFUNC: return ctx->func;
		case DIF_VAR_PROBENAME: return ctx->name;
		case DIF_VAR_CURTHREAD: return ident_attr("curthread");
		}
		return dt_attr_def;
	case N_ARGS:
		return ctx->args;
	case N_DVAR: case N_SELF: case N_THIS: case N_INDEX:
		return n->dv ? n->dv->attr : dt_attr_def;
	case N_CALL:
		return n->s ? ident_attr(n->s) : dt_attr_def;
	case N_CAST: case N_SIZEOF: case N_OFFSETOF: case N_XLATE:
		return n->ct ? type_attr(n->ct) : dt_attr_def;
	default:
		return dt_attr_def;
	}
}

/*
 * @n's attributes: the least of its own and its operands', checked
 * against -x amin operands first, as DTrace cooks them (D_ATTR_MIN names
 * the first node below the minimum).  An inline, a symbol and a typed
 * args[i] are leaves: what they stand for is not the program's to see.
 */
static struct dattr walk(struct prog *p, struct lexer *lx, const struct node *n)
{
	struct dattr a;

	if (!n)
		return dt_attr_max;
	a = own_attr(p, n);
	if (!n->akind) {
		a = dt_attr_min(a, walk(p, lx, n->a));
		a = dt_attr_min(a, walk(p, lx, n->b));
		a = dt_attr_min(a, walk(p, lx, n->c));
		if (n->k != N_XLATE || n->args)
			for (int i = 0; i < n->nargs && n->args; i++)
				a = dt_attr_min(a, walk(p, lx, n->args[i]));
	}
	if (p->eattr && dt_attr_below(a, p->amin)) {
		char nm[256], s[64];

		dt_cerrt(lx, DT_D_ATTR_MIN, n->line, n->col,
			 "attributes for %s (%s) are less than predefined minimum",
			 node_name(n, nm, sizeof(nm)), dt_attr_str(a, s, sizeof(s)));
	}
	return a;
}

void dt_attr_expr(struct prog *p, struct lexer *lx, const struct node *n)
{
	if (p->inclause)
		p->stmtacc = dt_attr_min(p->stmtacc, walk(p, lx, n));
}

void dt_attr_clause_begin(struct prog *p, struct lexer *lx,
			  const struct xdt_probedesc *d, int line, int col)
{
	p->ctxattr = desc_attr(p, d, &p->ctxpattr);
	p->stmtacc = dt_attr_max;
	p->inclause = 1;
	if (p->eattr && dt_attr_below(p->ctxattr, p->amin)) {
		char s[64];

		dt_cerrt(lx, DT_D_ATTR_MIN, line, col,
			 "attributes for clause (%s) are less than predefined minimum",
			 dt_attr_str(p->ctxattr, s, sizeof(s)));
	}
}

/* The clause's pieces [first, p->nclauses) made: give them the attributes. */
void dt_attr_clause_end(struct prog *p, int first, int hasacts)
{
	for (int i = first; i < p->nclauses; i++) {
		p->clauses[i].descattr = p->ctxattr;
		/* DTrace's for a clause without actions: Stable/Stable/Common */
		p->clauses[i].stmtattr = hasacts ? p->stmtacc : dt_attr_def;
	}
	p->inclause = 0;
	p->ctxpattr = NULL;
}

struct dattr dt_attr_desc(const struct prog *p, const struct xdt_probedesc *d)
{
	const struct dpattr *ctx;

	return desc_attr(p, d, &ctx);
}

void dt_attr_pending(struct prog *p, const char *name, struct dattr *a)
{
	for (int i = 0; i < p->npending; i++) {
		if (strcmp(p->pending[i].name, name))
			continue;
		*a = p->pending[i].a;
		xfree(p->pending[i].name);
		p->pending[i] = p->pending[--p->npending];
		return;
	}
}
