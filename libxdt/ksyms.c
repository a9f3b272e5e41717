// SPDX-License-Identifier: GPL-2.0
/*
 * ksyms.c - kernel addresses to names for stack(), from /proc/kallsyms
 * (real addresses for root, or CAP_SYSLOG; a consumer with CAP_PERFMON
 * alone may see zeroes, which name nothing, and its stacks print as
 * numbers: docs/privileges.md), read the first time a stack is printed.  $XDT_KALLSYMS names
 * another file, so host tests can feed a fake one.
 *
 * Lines are "addr type name" with "\t[module]" after a module's symbols.
 * Only text symbols (t T w W: functions, weak ones included; not the
 * section end markers _etext and *_text_end) name an address; every symbol with an address (data
 * too; not the absolute a/A ones, nor 0) ends the extent of the function
 * before it, so a module's last function does not swallow its data or the
 * next module.  The highest symbol of all has no extent (nothing follows
 * to bound it): an address above it prints as a number.
 * Addresses print as DTrace prints them:
 *
 *   kernel`vfs_read+0x1c     in a function (vmlinux's module is "kernel")
 *   ext4`ext4_file_read_iter at its first byte (no +0x0)
 *   kernel`0xffffffff81e0012a between a module's first and last function
 *                             but in none of them
 *   0xffffffffc0201000       anywhere else
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "dt_consumer.h"

struct ksym {
	__u64 addr;
	const char *name;
	int mod;		/* index in mods[] */
	int text;
	int rank;		/* among aliases: T, W, t, w, data */
	int under;		/* then fewer leading '_' (startup_64, not _stext) */
	unsigned seq;
};

struct kmod {
	char *name;
	__u64 lo, hi;		/* first and last text symbol */
};

static int loaded;
static struct ksym *syms;
static size_t nsyms;
static struct kmod *mods;
static int nmods;

static int mod_index(const char *name)
{
	for (int i = nmods - 1; i >= 0; i--)
		if (!strcmp(mods[i].name, name))
			return i;
	mods = xrealloc(mods, (nmods + 1) * sizeof(*mods));
	mods[nmods] = (struct kmod){ xstrdup(name), 0, 0 };
	return nmods++;
}

/* _etext, __entry_text_end ...: where a text section ends, no function */
static int end_marker(const char *name)
{
	size_t n = strlen(name);

	return !strcmp(name, "_etext") ||
	       (n > 9 && !strcmp(name + n - 9, "_text_end"));
}

static int ksym_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	if (x->under != y->under)
		return x->under < y->under ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void load(void)
{
	const char *path = getenv("XDT_KALLSYMS");
	size_t cap = 0, n = 0;
	char *line = NULL;
	FILE *f;

	loaded = 1;
	if (!path || !*path)
		path = "/proc/kallsyms";
	f = fopen(path, "r");
	if (!f) {
		fprintf(stderr, "dtrace: failed to open %s: %s (stacks are not symbolized)\n",
			path, strerror(errno));
		return;
	}
	mod_index("kernel");
	while (getline(&line, &cap, f) > 0) {
		char type, name[512], mod[128];
		unsigned long long addr;
		struct ksym *s;
		int k;

		mod[0] = 0;
		k = sscanf(line, "%llx %c %511s [%127[^]]]", &addr, &type, name, mod);
		if (k < 3 || !addr || type == 'a' || type == 'A' ||
		    type == 'U' || type == 'u')
			continue;
		/*
		 * Assembler-local labels (.L*) and ELF mapping symbols ($x,
		 * $d) name no function: riscv modules keep .L labels for
		 * linker relaxation and their kallsyms lists them.  Taking one
		 * as a function would name a frame ".LPFE3+0x18".
		 */
		if (!strncmp(name, ".L", 2) || name[0] == '$')
			continue;
		if (n == nsyms) {
			nsyms = nsyms ? nsyms * 2 : 4096;
			syms = xrealloc(syms, nsyms * sizeof(*syms));
		}
		s = &syms[n];
		s->addr = addr;
		s->name = xstrdup(name);
		s->mod = k == 4 && mod[0] ? mod_index(mod) : 0;
		s->text = (type == 't' || type == 'T' || type == 'w' || type == 'W') &&
			  !end_marker(name);
		s->rank = type == 'T' ? 0 : type == 'W' ? 1 : type == 't' ? 2 :
			  type == 'w' ? 3 : 4;
		s->under = (int)strspn(name, "_");
		s->seq = (unsigned)n;
		n++;
	}
	free(line);
	fclose(f);
	nsyms = n;
	qsort(syms, nsyms, sizeof(*syms), ksym_cmp);
	for (size_t i = 0; i < nsyms; i++) {
		struct kmod *m = &mods[syms[i].mod];

		if (!syms[i].text)
			continue;
		if (!m->lo || syms[i].addr < m->lo)
			m->lo = syms[i].addr;
		if (syms[i].addr > m->hi)
			m->hi = syms[i].addr;
	}
}

/*
 * What names @pc: its function (NULL if none) and the module whose text
 * spans it (-1 if none) -- the one lookup every form below prints from.
 */
static const struct ksym *ksym_at(__u64 pc, int *mod)
{
	size_t lo = 0, hi, i, first;

	if (!loaded)
		load();
	*mod = -1;
	/* the last symbol at or below pc */
	hi = nsyms;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (syms[mid].addr <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo > 0) {
		i = lo - 1;
		/* aliases at one address: the first sorts best */
		for (first = i; first > 0 && syms[first - 1].addr == syms[i].addr; first--)
			;
		/* a function ends at the next symbol; the last one has no extent */
		if (syms[first].text && (pc == syms[i].addr || i + 1 < nsyms)) {
			*mod = syms[first].mod;
			return &syms[first];
		}
	}
	for (int m = 0; m < nmods; m++) {
		if (mods[m].lo && pc >= mods[m].lo && pc <= mods[m].hi) {
			*mod = m;
			break;
		}
	}
	return NULL;
}

void ksyms_format(__u64 pc, char *buf, size_t cap)
{
	int m;
	const struct ksym *s = ksym_at(pc, &m);

	if (s && pc > s->addr)
		snprintf(buf, cap, "%s`%s+0x%llx", mods[m].name, s->name,
			 (unsigned long long)(pc - s->addr));
	else if (s)
		snprintf(buf, cap, "%s`%s", mods[m].name, s->name);
	else if (m >= 0)
		snprintf(buf, cap, "%s`0x%llx", mods[m].name, (unsigned long long)pc);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)pc);
}

/*
 * sym()/func() and mod(), as DTrace's dt_print_sym() and dt_print_mod():
 * module`function without an offset, module`0x... in a module but no
 * function, the module alone for mod(); 0x... for what nothing names.
 */
void ksyms_form(__u64 pc, int mod_only, char *buf, size_t cap)
{
	int m;
	const struct ksym *s = ksym_at(pc, &m);

	if (s && !mod_only)
		snprintf(buf, cap, "%s`%s", mods[m].name, s->name);
	else if (m >= 0 && mod_only)
		snprintf(buf, cap, "%s", mods[m].name);
	else if (m >= 0)
		snprintf(buf, cap, "%s`0x%llx", mods[m].name, (unsigned long long)pc);
	else
		snprintf(buf, cap, "0x%llx", (unsigned long long)pc);
}

/*
 * The address a sym()/func() (mod()) key aggregates @pc under: its
 * function's first byte (its module's first function's), as DTrace's
 * dt_aggregate_symaddr() (_modaddr()) makes it; @pc if nothing names it.
 */
__u64 ksyms_base(__u64 pc, int mod_only)
{
	int m;
	const struct ksym *s = ksym_at(pc, &m);

	if (mod_only)
		return m >= 0 ? mods[m].lo : pc;
	return s ? s->addr : pc;
}
