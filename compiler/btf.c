// SPDX-License-Identifier: GPL-2.0
/*
 * btf.c - the kernel's types, from its BTF, for D.
 *
 * Where they come from: the running kernel's /sys/kernel/btf/vmlinux, as
 * DTrace compiles against the running kernel's CTF (in a guest, the kernel
 * xdt traces); or a vmlinux's .BTF section named by -x vmlinux=PATH (the
 * lab kernels' types on the host, for compile-only checks); -x
 * vmlinux=none: no kernel types.
 *
 * Lazily, at three levels, because every dtrace run would otherwise pay for
 * all of the kernel's types (tens of thousands):
 *  - the file is read, and its types' offsets indexed, the first time D
 *    asks for a name it does not know itself;
 *  - the name index (one hash over every named type, and another over
 *    enumerators) is built then too, in one pass;
 *  - a type becomes a struct dtype only when named or reached, and a
 *    struct's or union's members only when a member is looked up
 *    (type_complete()), so naming struct task_struct imports one type,
 *    not the graph behind it.
 * D's own names win: a typedef or tag the D library or the script defines
 * (pid_t, struct in6_addr) is never replaced by the kernel's.
 *
 * The ELF reader is a few lines over <elf.h> rather than libelf: it must
 * also run in the static guest builds of all three ISAs, for which Debian
 * has no static cross libelf to link.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <elf.h>
#include <fnmatch.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/btf.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "dt_lex.h"
#include "dt_types.h"
#include "libxdt.h"

enum { NC_PLAIN, NC_STRUCT, NC_UNION, NC_ENUM, NC_FUNC, NC_VAR, NC_N };

/*
 * A module's BTF is split BTF: its type ids continue vmlinux's (from
 * start = vmlinux's n + 1) and its string offsets continue vmlinux's
 * string section, so its types refer to vmlinux's freely.  bt(), bname()
 * and conv() send what is below a module's own range to its base.
 */
struct btf {
	char *data;
	const struct btf_header *hdr;
	const char *types, *strs;
	uint32_t types_len, strs_len;
	struct btf *base;	/* a module's: vmlinux's BTF; else NULL */
	const char *name;	/* "vmlinux", or the module's */
	uint32_t start;		/* its first own id: 1, or base->n + 1 */
	uint32_t n;		/* its last id (own ids start..n) */
	uint32_t *off;		/* [id - start + 1]: offset in types */
	struct dtype **conv;	/* [id - start + 1]: imported, or NULL */
	uint32_t *hash, hmask;	/* (class, name) -> id, 0 = empty */
	uint32_t *ehash, emask;	/* enumerator name -> enum id */
};

static struct btf *kbtf;
static char *btf_path;		/* -x vmlinux, or NULL: the running kernel's */
static int btf_tried;
static double btf_load_ms;	/* reading and indexing, for -x btfstats */

static struct btf **mods;	/* loaded modules' BTF (guest only) */
static int nmods, mods_tried;

static const struct btf_type *bt(const struct btf *b, uint32_t id)
{
	if (id < b->start)
		return bt(b->base, id);
	return (const struct btf_type *)(b->types + b->off[id - b->start + 1]);
}

static const char *bname(const struct btf *b, uint32_t off)
{
	if (b->base) {
		if (off < b->base->strs_len)
			return bname(b->base, off);
		off -= b->base->strs_len;
	}
	return off < b->strs_len ? b->strs + off : "";
}

/* Bytes after struct btf_type for its kind; -1: a kind xdt does not know */
static long extra(const struct btf_type *t)
{
	uint32_t vlen = BTF_INFO_VLEN(t->info);

	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: return 4;
	case BTF_KIND_PTR: case BTF_KIND_FWD: case BTF_KIND_TYPEDEF:
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_FUNC: case BTF_KIND_FLOAT: case BTF_KIND_TYPE_TAG:
		return 0;
	case BTF_KIND_ARRAY: return sizeof(struct btf_array);
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		return (long)vlen * sizeof(struct btf_member);
	case BTF_KIND_ENUM: return (long)vlen * sizeof(struct btf_enum);
	case BTF_KIND_FUNC_PROTO: return (long)vlen * sizeof(struct btf_param);
	case BTF_KIND_VAR: return sizeof(struct btf_var);
	case BTF_KIND_DATASEC:
		return (long)vlen * sizeof(struct btf_var_secinfo);
	case BTF_KIND_DECL_TAG: return sizeof(struct btf_decl_tag);
	case BTF_KIND_ENUM64: return (long)vlen * sizeof(struct btf_enum64);
	default: return -1;
	}
}

/* The .BTF section of an ELF64 file in @d (the whole file), or NULL. */
static char *elf_btf(char *d, size_t size, size_t *len)
{
	const Elf64_Ehdr *eh = (const void *)d;
	const Elf64_Shdr *sh;
	const char *names;

	if (size < sizeof(*eh) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff > size || eh->e_shentsize != sizeof(*sh) ||
	    (size - eh->e_shoff) / sizeof(*sh) < eh->e_shnum ||
	    eh->e_shstrndx >= eh->e_shnum)
		return NULL;
	sh = (const void *)(d + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset > size)
		return NULL;
	names = d + sh[eh->e_shstrndx].sh_offset;
	for (unsigned i = 0; i < eh->e_shnum; i++) {
		if (sh[i].sh_name >= sh[eh->e_shstrndx].sh_size ||
		    strcmp(names + sh[i].sh_name, ".BTF"))
			continue;
		if (sh[i].sh_offset > size || sh[i].sh_size > size - sh[i].sh_offset)
			return NULL;
		*len = sh[i].sh_size;
		return d + sh[i].sh_offset;
	}
	return NULL;
}

static uint32_t strhash(const char *s, uint32_t k)
{
	uint32_t h = 2166136261u ^ k;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

static int nclass(const struct btf_type *t)
{
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT: case BTF_KIND_TYPEDEF: case BTF_KIND_FLOAT:
		return NC_PLAIN;
	case BTF_KIND_STRUCT: return NC_STRUCT;
	case BTF_KIND_UNION: return NC_UNION;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64: return NC_ENUM;
	case BTF_KIND_FUNC: return NC_FUNC;
	case BTF_KIND_VAR: return NC_VAR;
	default: return -1;	/* FWD: the definition is what is wanted */
	}
}

static void index_names(struct btf *b)
{
	uint32_t cap = 1, ecap = 1, ne = 0;

	while (cap < 2 * (b->n - b->start + 1) + 2)
		cap <<= 1;
	for (uint32_t id = b->start; id <= b->n; id++) {
		const struct btf_type *t = bt(b, id);
		int k = BTF_INFO_KIND(t->info);

		if (k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64)
			ne += BTF_INFO_VLEN(t->info);
	}
	while (ecap < 2 * ne + 2)
		ecap <<= 1;
	b->hash = xzalloc(cap * sizeof(*b->hash));
	b->hmask = cap - 1;
	b->ehash = xzalloc(ecap * sizeof(*b->ehash));
	b->emask = ecap - 1;
	for (uint32_t id = b->start; id <= b->n; id++) {
		const struct btf_type *t = bt(b, id);
		const char *nm = bname(b, t->name_off);
		int c = nclass(t), k = BTF_INFO_KIND(t->info);
		uint32_t h;

		if (c >= 0 && *nm) {
			/* the first definition of a name wins */
			for (h = strhash(nm, c) & b->hmask; b->hash[h];
			     h = (h + 1) & b->hmask) {
				const struct btf_type *o = bt(b, b->hash[h]);

				if (nclass(o) == c && !strcmp(bname(b, o->name_off), nm))
					break;
			}
			if (!b->hash[h])
				b->hash[h] = id;
		}
		if (k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64) {
			uint32_t vlen = BTF_INFO_VLEN(t->info);

			for (uint32_t i = 0; i < vlen; i++) {
				uint32_t no = k == BTF_KIND_ENUM ?
					((const struct btf_enum *)(t + 1))[i].name_off :
					((const struct btf_enum64 *)(t + 1))[i].name_off;

				for (h = strhash(bname(b, no), 0) & b->emask;
				     b->ehash[h]; h = (h + 1) & b->emask)
					;
				b->ehash[h] = id;
			}
		}
	}
}

static struct btf *btf_read(const char *path, struct btf *base, char *err,
			    size_t errlen)
{
	struct btf *b;
	struct stat st;
	char *d, *sec;
	size_t size = 0, cap, len;
	ssize_t r;
	uint32_t o, n;
	int mapped = 0, fd = open(path, O_RDONLY);

	if (fd < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	/* a file (a vmlinux: ~100 MB) is mapped; sysfs cannot be: read it */
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
		d = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
		if (d != MAP_FAILED) {
			close(fd);
			size = (size_t)st.st_size;
			mapped = 1;
			goto parse;
		}
	}
	cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 1 << 22;
	d = xzalloc(cap);
	while ((r = read(fd, d + size, cap - size)) > 0) {
		size += (size_t)r;
		if (size == cap) {
			cap *= 2;
			d = xrealloc(d, cap);
		}
	}
	close(fd);
	if (r < 0) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		xfree(d);
		return NULL;
	}
parse:
	sec = d;
	len = size;
	if (size >= 4 && !memcmp(d, ELFMAG, 4) && !(sec = elf_btf(d, size, &len))) {
		snprintf(err, errlen, "%s: no .BTF section (a kernel built without "
			 "CONFIG_DEBUG_INFO_BTF?)", path);
		if (mapped)
			munmap(d, size);
		else
			xfree(d);
		return NULL;
	}
	b = xzalloc(sizeof(*b));
	b->data = d;
	b->base = base;
	b->start = base ? base->n + 1 : 1;
	b->hdr = (const void *)sec;
	if (len < sizeof(*b->hdr) || b->hdr->magic != BTF_MAGIC ||
	    b->hdr->version != BTF_VERSION || b->hdr->hdr_len > len ||
	    b->hdr->type_off > len - b->hdr->hdr_len ||
	    b->hdr->type_len > len - b->hdr->hdr_len - b->hdr->type_off ||
	    b->hdr->str_off > len - b->hdr->hdr_len ||
	    b->hdr->str_len > len - b->hdr->hdr_len - b->hdr->str_off) {
		snprintf(err, errlen, "%s: not BTF xdt can read", path);
		if (mapped)
			munmap(d, size);
		else
			xfree(d);
		xfree(b);
		return NULL;
	}
	b->types = sec + b->hdr->hdr_len + b->hdr->type_off;
	b->types_len = b->hdr->type_len;
	b->strs = sec + b->hdr->hdr_len + b->hdr->str_off;
	b->strs_len = b->hdr->str_len;
	for (o = 0, n = 0; o + sizeof(struct btf_type) <= b->types_len; n++) {
		long x = extra((const void *)(b->types + o));

		if (x < 0)
			break;
		o += sizeof(struct btf_type) + (uint32_t)x;
	}
	b->n = b->start - 1 + n;
	b->off = xzalloc((n + 1) * sizeof(*b->off));
	b->conv = xzalloc((n + 1) * sizeof(*b->conv));
	for (o = 0, n = 1; n <= b->n - b->start + 1; n++) {
		b->off[n] = o;
		o += sizeof(struct btf_type) + (uint32_t)extra((const void *)(b->types + o));
	}
	index_names(b);
	return b;
}

static void btf_use_unzoned(const char *path)
{
	xfree(btf_path);
	btf_path = path ? xstrdup(path) : NULL;
	btf_tried = 0;
}

/* The kernel's BTF, read on the first call; NULL when there is none. */
static struct btf *kernel(void)
{
	char err[300];
	struct timespec t0, t1;

	if (kbtf || btf_tried)
		return kbtf;
	btf_tried = 1;
	if (btf_path && !strcmp(btf_path, "none"))
		return NULL;
	if (!btf_path && access("/sys/kernel/btf/vmlinux", R_OK))
		return NULL;		/* a kernel without BTF */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kbtf = btf_read(btf_path ? btf_path : "/sys/kernel/btf/vmlinux", NULL,
			err, sizeof(err));
	if (kbtf)
		kbtf->name = "vmlinux";
	clock_gettime(CLOCK_MONOTONIC, &t1);
	btf_load_ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	/*
	 * Said even for the running kernel's own file, which exists (checked
	 * above): a read that failed (ENOMEM under memory pressure, say) would
	 * otherwise surface later as a misleading "incomplete type" or an
	 * untyped args[], far from its cause.
	 */
	if (!kbtf)
		fprintf(stderr, "dtrace: kernel types unavailable: %s\n", err);
	return kbtf;
}

/*
 * The loaded modules' BTF (/sys/kernel/btf/<module>), read the first time
 * a name is not vmlinux's -- only for the running kernel: -x vmlinux names
 * a file, and modules' .ko files are not read.  A module loaded after
 * that is not seen by this dtrace.
 */
static void load_modules(void)
{
	struct dirent **ents;
	int n;

	if (mods_tried || btf_path || !kernel())
		return;
	mods_tried = 1;
	n = scandir("/sys/kernel/btf", &ents, NULL, alphasort);
	for (int i = 0; i < n; i++) {
		char path[300], err[300];
		struct btf *m;

		if (ents[i]->d_name[0] != '.' && strcmp(ents[i]->d_name, "vmlinux")) {
			snprintf(path, sizeof(path), "/sys/kernel/btf/%s", ents[i]->d_name);
			m = btf_read(path, kbtf, err, sizeof(err));
			if (m) {
				m->name = xstrdup(ents[i]->d_name);
				mods = xrealloc(mods, (size_t)(nmods + 1) * sizeof(*mods));
				mods[nmods++] = m;
			}
		}
		xfree(ents[i]);
	}
	if (n >= 0)
		xfree(ents);
}

/* The BTF to search at step @i: vmlinux's, then each module's; NULL: done */
static struct btf *nth(int i)
{
	if (i == 0)
		return kernel();
	load_modules();
	return i - 1 < nmods ? mods[i - 1] : NULL;
}

static int btf_stats_unzoned(unsigned *ntypes, double *ms)
{
	struct btf *b = kernel();

	*ntypes = b ? b->n : 0;
	*ms = btf_load_ms;
	return b != NULL;
}

static uint32_t lookup(struct btf *b, int c, const char *name)
{
	for (uint32_t h = strhash(name, c) & b->hmask; b->hash[h];
	     h = (h + 1) & b->hmask) {
		const struct btf_type *t = bt(b, b->hash[h]);

		if (nclass(t) == c && !strcmp(bname(b, t->name_off), name))
			return b->hash[h];
	}
	return 0;
}

static struct dtype *conv(struct btf *b, uint32_t id);

static unsigned pow2_align(unsigned size)
{
	unsigned a = 8;

	while (a > 1 && size % a)
		a >>= 1;
	return a;
}

/* A struct or union, its members left for type_complete(). */
static struct dtype *conv_sou(struct btf *b, uint32_t id, const struct btf_type *t)
{
	enum tkind k = BTF_INFO_KIND(t->info) == BTF_KIND_UNION ? TK_UNION : TK_STRUCT;
	const char *nm = bname(b, t->name_off);
	struct dtype *d;

	if (*nm) {
		d = type_kernel_tagged(k, nm, 0);
		if (d && (d->defined || d->btfid))
			return d;	/* D's base, or imported already */
		if (!d)
			d = type_kernel_tagged(k, nm, 1);
	} else {
		d = type_new(k, k == TK_UNION ? "union <anon>" : "struct <anon>", 0, 0);
	}
	d->size = t->size;
	d->align = pow2_align(t->size);
	d->btfid = id;
	d->btfsrc = b;
	d->kernel = 1;
	return d;
}

static struct dtype *conv_enum(struct btf *b, uint32_t id, const struct btf_type *t)
{
	const char *nm = bname(b, t->name_off);
	struct dtype *d;
	uint32_t vlen = BTF_INFO_VLEN(t->info);
	int k = BTF_INFO_KIND(t->info);

	(void)id;
	if (*nm) {
		d = type_kernel_tagged(TK_ENUM, nm, 0);
		if (d && d->defined)
			return d;
		if (!d)
			d = type_kernel_tagged(TK_ENUM, nm, 1);
	} else {
		d = type_new(TK_ENUM, "enum <anon>", t->size, 1);
	}
	d->size = t->size;
	d->align = t->size;
	d->sgn = (t->info & (1u << 31)) != 0 || k == BTF_KIND_ENUM;
	d->ecs = xzalloc((vlen + 1) * sizeof(*d->ecs));
	for (uint32_t i = 0; i < vlen; i++) {
		long long v;
		uint32_t no;

		if (k == BTF_KIND_ENUM) {
			const struct btf_enum *e = (const void *)(t + 1);

			no = e[i].name_off;
			v = e[i].val;
		} else {
			const struct btf_enum64 *e = (const void *)(t + 1);

			no = e[i].name_off;
			v = (long long)((uint64_t)e[i].val_hi32 << 32 | e[i].val_lo32);
		}
		d->ecs[i].name = xstrdup(bname(b, no));
		d->ecs[i].v = v;
	}
	d->necs = (int)vlen;
	d->defined = 1;
	d->kernel = 1;
	return d;
}

static struct dtype *conv_int(struct btf *b, const struct btf_type *t)
{
	uint32_t enc = *(const uint32_t *)(t + 1);
	const char *nm = bname(b, t->name_off);
	int sgn = (BTF_INT_ENCODING(enc) & BTF_INT_SIGNED) != 0;

	if (!strcmp(nm, "char"))
		return dt_char;
	if (t->size > 8)	/* __int128: D has no arithmetic on it */
		return type_array(dt_uint64, t->size / 8);
	return type_int(t->size ? t->size : 1, sgn);
}

static struct dtype *conv(struct btf *b, uint32_t id)
{
	const struct btf_type *t;
	struct dtype *d = NULL;
	const char *nm;

	if (!id || id > b->n)
		return dt_void;
	if (id < b->start)
		return conv(b->base, id);
	if (b->conv[id - b->start + 1])
		return b->conv[id - b->start + 1];
	t = bt(b, id);
	nm = bname(b, t->name_off);
	switch (BTF_INFO_KIND(t->info)) {
	case BTF_KIND_INT:
		d = conv_int(b, t);
		break;
	case BTF_KIND_FLOAT:
		d = type_named(t->size == 4 ? "float" : t->size == 8 ? "double" :
			       "long double");
		break;
	case BTF_KIND_PTR: {
		/* a pointer to a function is a void * to D */
		const struct btf_type *to = t->type && t->type <= b->n ? bt(b, t->type) : NULL;

		d = type_ptr(to && BTF_INFO_KIND(to->info) == BTF_KIND_FUNC_PROTO ?
			     dt_void : conv(b, t->type));
		break;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *a = (const void *)(t + 1);

		d = type_array(conv(b, a->type), a->nelems);
		break;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION:
		/* set before the members can refer back to it */
		d = b->conv[id - b->start + 1] = conv_sou(b, id, t);
		break;
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64:
		d = conv_enum(b, id, t);
		break;
	case BTF_KIND_FWD: {
		enum tkind k = BTF_INFO_KFLAG(t->info) ? TK_UNION : TK_STRUCT;
		int c = k == TK_UNION ? NC_UNION : NC_STRUCT;
		uint32_t def = lookup(b, c, nm);
		struct btf *db = b;

		if (!def && b->base) {		/* a module's forward to vmlinux's */
			db = b->base;
			def = lookup(db, c, nm);
		}
		d = def ? conv(db, def) : type_kernel_tagged(k, nm, 1);
		break;
	}
	case BTF_KIND_TYPEDEF:
		d = type_kernel_named(nm);
		if (!d) {
			d = type_kernel_typedef(nm, conv(b, t->type));
			d->kernel = 1;
		}
		break;
	case BTF_KIND_VOLATILE: case BTF_KIND_CONST: case BTF_KIND_RESTRICT:
	case BTF_KIND_TYPE_TAG:
		d = conv(b, t->type);
		break;
	default:
		d = dt_void;
	}
	b->conv[id - b->start + 1] = d;
	return d;
}

/*
 * A struct's or union's members, imported now.  Members of anonymous
 * struct and union members are also listed by name at their offsets, as
 * C lets them be named directly (task_struct has several).
 */
static void add_members(struct btf *b, struct dtype *d, uint32_t id,
			unsigned base, unsigned *align, int alias)
{
	const struct btf_type *t = bt(b, id);
	const struct btf_member *m = (const void *)(t + 1);
	uint32_t vlen = BTF_INFO_VLEN(t->info);
	int kflag = BTF_INFO_KFLAG(t->info);

	for (uint32_t i = 0; i < vlen; i++) {
		unsigned bitoff = kflag ? BTF_MEMBER_BIT_OFFSET(m[i].offset) : m[i].offset;
		unsigned bits = kflag ? BTF_MEMBER_BITFIELD_SIZE(m[i].offset) : 0;
		struct dtype *mt = conv(b, m[i].type);
		const char *nm = bname(b, m[i].name_off);
		struct dmember dm = { 0 };

		dm.t = mt;
		if (bits) {
			unsigned us = mt->real->size ? mt->real->size : 4;

			/* the unit: the member type's size, aligned, holding it */
			while (us < 8 && (bitoff % (8 * us)) + bits > 8 * us)
				us *= 2;
			dm.usize = us;
			dm.off = base + bitoff / (8 * us) * us;
			dm.bitoff = bitoff % (8 * us);
			dm.bits = bits;
		} else {
			dm.off = base + bitoff / 8;
		}
		if (mt->real->align > *align)
			*align = mt->real->align;
		dm.name = xstrdup(nm);
		dm.alias = alias;
		d->mems = xrealloc(d->mems, (size_t)(d->nmems + 1) * sizeof(*d->mems));
		d->mems[d->nmems++] = dm;
		if (!*nm && (mt->real->k == TK_STRUCT || mt->real->k == TK_UNION) &&
		    mt->real->btfid) {
			unsigned a = 1;

			add_members(mt->real->btfsrc, d, mt->real->btfid, dm.off, &a, 1);
		}
	}
}

static void btf_complete_unzoned(struct dtype *d)
{
	unsigned align = 1;

	if (!d->btfsrc || !d->btfid || d->defined)
		return;
	d->defined = 1;
	add_members(d->btfsrc, d, d->btfid, 0, &align, 0);
	d->align = align;
}

/* A struct, union or enum tag D does not know: the kernel's, or NULL. */
static struct dtype *btf_tagged_unzoned(enum tkind k, const char *tag)
{
	struct btf *b;
	uint32_t id;

	for (int i = 0; (b = nth(i)); i++) {
		id = lookup(b, k == TK_STRUCT ? NC_STRUCT : k == TK_UNION ?
			    NC_UNION : NC_ENUM, tag);
		if (id)
			return conv(b, id);
	}
	return NULL;
}

/* A typedef (or base type name) D does not know: the kernel's, or NULL. */
static struct dtype *btf_named_unzoned(const char *name)
{
	struct btf *b;
	uint32_t id;

	for (int i = 0; (b = nth(i)); i++) {
		id = lookup(b, NC_PLAIN, name);
		/* BTF's int names ("long unsigned int") are C's */
		if (id && BTF_INFO_KIND(bt(b, id)->info) == BTF_KIND_TYPEDEF)
			return conv(b, id);
	}
	return NULL;
}

/* An enumerator D does not know: the kernel's (its enum imported), or NULL. */
static struct dtype *btf_enumconst_unzoned(const char *name, long long *v)
{
	struct btf *b;

	for (int k = 0; (b = nth(k)); k++) {
		for (uint32_t h = strhash(name, 0) & b->emask; b->ehash[h];
		     h = (h + 1) & b->emask) {
			struct dtype *e = conv(b, b->ehash[h]);

			for (int i = 0; i < e->necs; i++)
				if (!strcmp(e->ecs[i].name, name)) {
					*v = e->ecs[i].v;
					return e;
				}
		}
	}
	return NULL;
}

/*
 * Kernel function @func's prototype: its parameters' types into @args (at
 * most @max), its return type into *@ret; the parameter count, or -1 when
 * the kernel's BTF has no such function.
 */
static int btf_func_proto_unzoned(const char *func, struct dtype **args, int max,
		   struct dtype **ret)
{
	struct btf *b;
	const struct btf_type *fn, *proto;
	const struct btf_param *pa;
	uint32_t id = 0, n;

	for (int i = 0; !id && (b = nth(i)); i++)
		id = lookup(b, NC_FUNC, func);
	if (!id)
		return -1;
	fn = bt(b, id);
	if (!fn->type || fn->type > b->n)
		return -1;
	proto = bt(b, fn->type);
	if (BTF_INFO_KIND(proto->info) != BTF_KIND_FUNC_PROTO)
		return -1;
	pa = (const void *)(proto + 1);
	n = BTF_INFO_VLEN(proto->info);
	if (n && !pa[n - 1].type)
		n--;		/* "...": the variadic part has no type */
	for (uint32_t i = 0; i < n && (int)i < max; i++)
		args[i] = conv(b, pa[i].type);
	*ret = conv(b, proto->type);
	return (int)n;
}

static int xdt_btf_func_unzoned(const char *func, unsigned *id, char *module, size_t len)
{
	struct btf *b;

	if (!kernel())
		return -1;
	for (int i = 0; (b = nth(i)); i++) {
		uint32_t f = lookup(b, NC_FUNC, func);

		if (f) {
			*id = f;
			snprintf(module, len, "%s", b->name);
			return 1;
		}
	}
	return 0;
}

static void btf_funcs_unzoned(const char *glob, void (*cb)(const char *name, void *arg),
	       void *arg)
{
	struct btf *b;

	for (int i = 0; (b = nth(i)); i++)
		for (uint32_t id = b->start; id <= b->n; id++) {
			const struct btf_type *t = bt(b, id);
			const char *nm = bname(b, t->name_off);

			if (BTF_INFO_KIND(t->info) == BTF_KIND_FUNC &&
			    !fnmatch(glob, nm, 0))
				cb(nm, arg);
		}
}

/* ---- `name: kernel variables ------------------------------------------ */
/*
 * 6.1's BTF has no global variables (pahole 1.24 encodes per-CPU ones
 * only), so their types come from a table the build extracts from the
 * vmlinux's DWARF (tools/xdt-kvars.c): VMLINUX.vars beside -x vmlinux's
 * file, or the guest's copy in the D library directory, with link-time
 * addresses that kvar_delta() moves to the running kernel's.
 */
#ifndef XDT_LIBDIR
#define XDT_LIBDIR "/usr/lib/xdt"
#endif

/*
 * How far the running kernel's text is from where it was linked (KASLR):
 * its _text from /proc/kallsyms, which lists it near the top (after the
 * per-CPU symbols at most), against the table's.  -x vmlinux: none; nor
 * when kallsyms shows a consumer without CAP_SYSLOG zeroes.
 */
static long long kvar_delta(unsigned long long link_text)
{
	static long long delta;
	static int done;
	char line[600], sym[512], type;
	unsigned long long a;
	FILE *f;

	if (done || btf_path)
		return delta;
	done = 1;
	f = fopen("/proc/kallsyms", "r");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%llx %c %511s", &a, &type, sym) == 3 &&
		    !strcmp(sym, "_text")) {
			/* 0: kallsyms hides addresses from this consumer
			   (kptr_restrict; docs/privileges.md): assume none */
			if (a)
				delta = (long long)(a - link_text);
			break;
		}
	fclose(f);
	return delta;
}

static int btf_kvar_unzoned(const char *name, char *type, size_t cap, __u64 *addr)
{
	char path[4096], line[700];
	FILE *f;
	size_t n = strlen(name);
	unsigned long long link_text = 0, a = 0;
	int found = 0;

	if (btf_path && !strcmp(btf_path, "none"))
		return -1;
	snprintf(path, sizeof(path), "%s.vars", btf_path ? btf_path :
		 XDT_LIBDIR "/vmlinux");
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (!found && fgets(line, sizeof(line), f)) {
		char *tab;

		if (!strncmp(line, "#_text\t", 7))
			link_text = strtoull(line + 7, NULL, 16);
		if (strncmp(line, name, n) || line[n] != '\t')
			continue;
		snprintf(type, cap, "%s", line + n + 1);
		tab = strchr(type, '\t');
		if (!tab)
			continue;
		*tab = '\0';
		a = strtoull(tab + 1, NULL, 16);
		found = 1;
	}
	fclose(f);
	if (!found || !a)
		return 0;
	*addr = a + (unsigned long long)kvar_delta(link_text);
	return 1;
}

/*
 * The entry points, with no zone current: what they read and convert is
 * cached for the whole process (the BTF, its types, the base types those
 * point at), so none of it may go with a handle's zone.  An unwind out of
 * one leaves no zone current; the compile it unwinds to restores its own.
 */
void btf_use(const char *path)
{
	struct dt_zone *z = dt_zone_enter(NULL);

	btf_use_unzoned(path);
	dt_zone_enter(z);
}

int btf_stats(unsigned *ntypes, double *ms)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	int r = btf_stats_unzoned(ntypes, ms);

	dt_zone_enter(z);
	return r;
}

void btf_complete(struct dtype *d)
{
	struct dt_zone *z = dt_zone_enter(NULL);

	btf_complete_unzoned(d);
	dt_zone_enter(z);
}

struct dtype *btf_tagged(enum tkind k, const char *tag)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	struct dtype *r = btf_tagged_unzoned(k, tag);

	dt_zone_enter(z);
	return r;
}

struct dtype *btf_named(const char *name)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	struct dtype *r = btf_named_unzoned(name);

	dt_zone_enter(z);
	return r;
}

struct dtype *btf_enumconst(const char *name, long long *v)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	struct dtype *r = btf_enumconst_unzoned(name, v);

	dt_zone_enter(z);
	return r;
}

int btf_func_proto(const char *func, struct dtype **args, int max,
		   struct dtype **ret)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	int r = btf_func_proto_unzoned(func, args, max, ret);

	dt_zone_enter(z);
	return r;
}

int xdt_btf_func(const char *func, unsigned *id, char *module, size_t len)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	int r = xdt_btf_func_unzoned(func, id, module, len);

	dt_zone_enter(z);
	return r;
}

void btf_funcs(const char *glob, void (*cb)(const char *name, void *arg),
	       void *arg)
{
	struct dt_zone *z = dt_zone_enter(NULL);

	btf_funcs_unzoned(glob, cb, arg);
	dt_zone_enter(z);
}

int btf_kvar(const char *name, char *type, size_t cap, __u64 *addr)
{
	struct dt_zone *z = dt_zone_enter(NULL);
	int r = btf_kvar_unzoned(name, type, cap, addr);

	dt_zone_enter(z);
	return r;
}
