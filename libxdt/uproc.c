// SPDX-License-Identifier: GPL-2.0
/*
 * uproc.c - the consumer's half of the pid provider: what a description
 * pid<PID>:<module>:<function>:<name> names in a live process, made into
 * probes by XDT_IOC_UPROBES (providers/pid.c; core/uapi/xdt.h section 7).
 *
 * Modules are the file-backed executable mappings of /proc/PID/maps.  A
 * module field matches an object by its base name (a glob), its full
 * path, a prefix of the base name up to a '.' (libc for libc.so.6, as
 * illumos allows), or "a.out" for the executable.  A probe made for a
 * module field that is not a glob carries that field as its module, so
 * the kernel's matcher finds it under the name the user wrote; a glob's
 * probes carry the base name.  Functions are the object's ELF symbols of
 * type FUNC or GNU_IFUNC (.symtab, else .dynsym).
 *
 * The ELF reader is this file's own (ELF64, the host's byte order): the
 * symbol and program header tables are all it needs, the guests are
 * static, and libelf would be a cross-built library (elfutils, with zlib
 * and zstd) in every guest for ~150 lines.  Every offset read from the
 * file is checked against its size: the file is the traced process's,
 * not ours.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dt_consumer.h"

struct umap {
	uint64_t start, end, off;
};

struct uobj {
	char path[PATH_MAX];
	int is_exe;
	struct umap maps[32];
	int nmaps;
};

struct ubatch {
	int fd;
	pid_t pid;
	struct xdt_uprobe *v;
	size_t n, cap;
	unsigned made;
	char *err;
	size_t errlen;
};

/* Is @d's provider pid<digits>?  Its pid, or 0. */
pid_t dt_uproc_pid(const struct xdt_probedesc *d)
{
	const char *s = d->prov;
	long v;
	char *end;

	if (strncmp(s, "pid", 3) || s[3] < '1' || s[3] > '9')
		return 0;
	errno = 0;
	v = strtol(s + 3, &end, 10);
	if (*end || errno || v <= 0 || v > INT_MAX)
		return 0;
	return (pid_t)v;
}

static int is_glob(const char *s)
{
	return strpbrk(s, "*?[\\") != NULL;
}

/* An empty field matches anything, as everywhere in a description. */
static int field_match(const char *pat, const char *s)
{
	return !pat[0] || !fnmatch(pat, s, 0);
}

/* The object's base name (a pointer into it: objects move when copied). */
static const char *obj_base(const struct uobj *o)
{
	const char *b = strrchr(o->path, '/');

	return b ? b + 1 : o->path;
}

static int mod_match(const char *pat, const struct uobj *o)
{
	size_t n = strlen(pat);
	const char *base = obj_base(o);

	if (field_match(pat, base) || !strcmp(pat, o->path))
		return 1;
	if (o->is_exe && !strcmp(pat, "a.out"))
		return 1;
	return !is_glob(pat) && !strncmp(base, pat, n) && base[n] == '.';
}

/* The objects mapped executable in @pid, from /proc/PID/maps. */
static int read_maps(pid_t pid, struct uobj **objs, int *nobj, char *err,
		     size_t len)
{
	char path[64], exe[PATH_MAX], line[PATH_MAX + 128];
	ssize_t el;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	el = readlink(path, exe, sizeof(exe) - 1);
	exe[el > 0 ? el : 0] = 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "r");
	if (!f) {
		snprintf(err, len, "failed to grab pid %d: %s", (int)pid,
			 errno == ENOENT ? "No such process" : strerror(errno));
		return -1;
	}
	while (fgets(line, sizeof(line), f)) {
		unsigned long long s, e, off, ino;
		char perms[8];
		int at = 0, i;
		char *file;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %llu %n", &s, &e, perms,
			   &off, &ino, &at) < 5 || !at)
			continue;
		file = line + at;
		file[strcspn(file, "\n")] = 0;
		if (perms[2] != 'x' || !ino || file[0] != '/')
			continue;
		for (i = 0; i < *nobj && strcmp((*objs)[i].path, file); i++)
			;
		if (i == *nobj) {
			struct uobj *o;

			*objs = xrealloc(*objs, (*nobj + 1) * sizeof(**objs));
			o = &(*objs)[(*nobj)++];
			memset(o, 0, sizeof(*o));
			snprintf(o->path, sizeof(o->path), "%s", file);
			o->is_exe = exe[0] && !strcmp(exe, o->path);
		}
		if ((*objs)[i].nmaps < 32) {
			struct umap *m = &(*objs)[i].maps[(*objs)[i].nmaps++];

			m->start = s;
			m->end = e;
			m->off = off;
		}
	}
	fclose(f);
	return 0;
}

/* ---- ELF ---------------------------------------------------------------- */
/*
 * The tables are read in place from the mapped file (page-aligned), so a
 * table's offset must be aligned for its entries as well as inside the
 * file (tests/host/progs/elffuzz.c).
 */
struct elfimg {
	const unsigned char *p;
	size_t size;
	const Elf64_Ehdr *eh;
};

static int in_file(const struct elfimg *e, uint64_t off, uint64_t n)
{
	return off <= e->size && n <= e->size - off;
}

static int elf_open(struct elfimg *e, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	memset(e, 0, sizeof(*e));
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) < 0 || st.st_size < (off_t)sizeof(Elf64_Ehdr)) {
		close(fd);
		errno = ENOEXEC;
		return -1;
	}
	e->size = (size_t)st.st_size;
	e->p = mmap(NULL, e->size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (e->p == MAP_FAILED) {
		e->p = NULL;
		return -1;
	}
	e->eh = (const Elf64_Ehdr *)e->p;
	if (memcmp(e->eh->e_ident, ELFMAG, SELFMAG) ||
	    e->eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    e->eh->e_ident[EI_DATA] != (__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ?
					 ELFDATA2LSB : ELFDATA2MSB) ||
	    e->eh->e_shentsize != sizeof(Elf64_Shdr) ||
	    (e->eh->e_shoff & 7) || (e->eh->e_phoff & 7) ||
	    !in_file(e, e->eh->e_shoff, (uint64_t)e->eh->e_shnum * sizeof(Elf64_Shdr)) ||
	    (e->eh->e_phnum && (e->eh->e_phentsize != sizeof(Elf64_Phdr) ||
	     !in_file(e, e->eh->e_phoff, (uint64_t)e->eh->e_phnum * sizeof(Elf64_Phdr))))) {
		munmap((void *)e->p, e->size);
		e->p = NULL;
		errno = ENOEXEC;
		return -1;
	}
	return 0;
}

static void elf_close(struct elfimg *e)
{
	if (e->p)
		munmap((void *)e->p, e->size);
	e->p = NULL;
}

static const Elf64_Shdr *elf_shdr(const struct elfimg *e, unsigned i)
{
	return i < e->eh->e_shnum ?
	       (const Elf64_Shdr *)(e->p + e->eh->e_shoff) + i : NULL;
}

/* The file offset of virtual address @v: in an executable PT_LOAD. */
static int elf_v2off(const struct elfimg *e, uint64_t v, uint64_t *off)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->p + e->eh->e_phoff);
	unsigned i;

	for (i = 0; i < e->eh->e_phnum; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		if (v >= ph[i].p_vaddr && v - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = v - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	}
	return -1;
}

/*
 * Call @fn for every defined function symbol of the object's .symtab (or,
 * stripped of it, .dynsym).  Returns the number of function symbols seen,
 * -1 if the object has no symbol table at all.
 */
static long elf_funcs(const struct elfimg *e,
		      void (*fn)(void *ctx, const char *name, uint64_t v,
				 uint64_t size),
		      void *ctx)
{
	const Elf64_Shdr *tab = NULL, *str;
	long n = 0;
	unsigned i;

	for (i = 0; i < e->eh->e_shnum; i++) {
		const Elf64_Shdr *sh = elf_shdr(e, i);

		if (sh->sh_type == SHT_SYMTAB ||
		    (sh->sh_type == SHT_DYNSYM && !tab))
			tab = sh;
	}
	if (!tab)
		return -1;
	str = elf_shdr(e, tab->sh_link);
	if (!str || tab->sh_entsize != sizeof(Elf64_Sym) || (tab->sh_offset & 7) ||
	    !in_file(e, tab->sh_offset, tab->sh_size) ||
	    !in_file(e, str->sh_offset, str->sh_size) || !str->sh_size)
		return -1;
	for (i = 1; i < tab->sh_size / sizeof(Elf64_Sym); i++) {
		const Elf64_Sym *s = (const Elf64_Sym *)(e->p + tab->sh_offset) + i;
		int t = ELF64_ST_TYPE(s->st_info);
		const char *name;

		if ((t != STT_FUNC && t != STT_GNU_IFUNC) ||
		    s->st_shndx == SHN_UNDEF || !s->st_value ||
		    s->st_name >= str->sh_size)
			continue;
		name = (const char *)e->p + str->sh_offset + s->st_name;
		if (!memchr(name, 0, str->sh_size - s->st_name) || !name[0])
			continue;
		n++;
		fn(ctx, name, s->st_value, s->st_size);
	}
	return n;
}

/* ---- making the probes ---------------------------------------------------- */
static int ask(struct ubatch *b, const char *prov)
{
	struct xdt_uprobe_req r;

	memset(&r, 0, sizeof(r));
	r.pid = b->pid;
	r.count = (__u32)b->n;
	r.probes = (__u64)(uintptr_t)b->v;
	snprintf(r.prov, sizeof(r.prov), "%s", prov);
	b->n = 0;
	if (ioctl(b->fd, XDT_IOC_UPROBES, &r) < 0) {
		if (errno == ENOTTY)
			snprintf(b->err, b->errlen, "the pid provider needs "
				 "xdt.ko (not the host VM)");
		else
			snprintf(b->err, b->errlen, "pid provider: %.*s",
				 (int)sizeof(r.err),
				 r.err[0] ? r.err : strerror(errno));
		return -1;
	}
	b->made += r.created;
	return 0;
}

static int flush(struct ubatch *b, const char *prov)
{
	return b->n ? ask(b, prov) : 0;
}

struct funcs_ctx {
	struct ubatch *b;
	const struct xdt_probedesc *d;
	const struct uobj *o;
	const struct elfimg *e;
	const char *mod;	/* the module name the probes carry */
	int failed;
	unsigned matched;
};

static void add(struct funcs_ctx *c, uint64_t addr, const char *func,
		const char *name, unsigned kind, uint64_t size, uint32_t off)
{
	struct ubatch *b = c->b;
	struct xdt_uprobe *u;

	if (c->failed)
		return;
	if (b->n == b->cap) {
		if (b->cap == XDT_UPROBES_MAX && flush(b, "pid") < 0) {
			c->failed = 1;
			return;
		}
		if (b->n == b->cap) {
			b->cap = b->cap ? b->cap * 2 : 256;
			b->v = xrealloc(b->v, b->cap * sizeof(*b->v));
		}
	}
	u = &b->v[b->n++];
	memset(u, 0, sizeof(*u));
	u->addr = addr;
	u->kind = kind;
	u->size = size > XDT_UFUNC_MAX ? XDT_UFUNC_MAX : (uint32_t)size;
	u->off = off;
	snprintf(u->mod, sizeof(u->mod), "%s", c->mod);
	snprintf(u->func, sizeof(u->func), "%s", func);
	snprintf(u->name, sizeof(u->name), "%s", name);
}

/* A probe name that is an instruction offset: hex digits, no 0x. */
static int hex_name(const char *s, uint32_t *off)
{
	char *end;
	unsigned long v;

	if (!s[0] || strspn(s, "0123456789abcdefABCDEF") != strlen(s) ||
	    strlen(s) > 8)
		return 0;
	v = strtoul(s, &end, 16);
	*off = (uint32_t)v;
	return 1;
}

static void one_func(void *ctx, const char *func, uint64_t v, uint64_t size)
{
	uint32_t ioff;
	struct funcs_ctx *c = ctx;
	uint64_t off, addr = 0;
	int i;

	if (strlen(func) >= XDT_FUNCNAMELEN || !field_match(c->d->func, func))
		return;
	if (elf_v2off(c->e, v, &off) < 0)
		return;
	for (i = 0; i < c->o->nmaps; i++) {
		const struct umap *m = &c->o->maps[i];

		if (off >= m->off && off - m->off < m->end - m->start) {
			addr = m->start + (off - m->off);
			break;
		}
	}
	if (!addr)
		return;		/* that part of the object is not mapped */
	c->matched++;
	if (hex_name(c->d->name, &ioff)) {
		add(c, addr, func, c->d->name, XDT_UP_OFFSET, size, ioff);
		return;
	}
	if (field_match(c->d->name, "entry"))
		add(c, addr, func, "entry", XDT_UP_ENTRY, 0, 0);
	if (field_match(c->d->name, "return"))
		add(c, addr, func, "return", XDT_UP_RETURN, 0, 0);
	/*
	 * Every instruction of one function named exactly, for an empty or
	 * glob probe name; illumos does it for function globs too, which
	 * makes `pid$target:::` a probe per instruction of the program.
	 */
	if ((!c->d->name[0] || is_glob(c->d->name)) && c->d->func[0] &&
	    !is_glob(c->d->func))
		add(c, addr, func, "", XDT_UP_OFFSETS, size, 0);
}

int dt_uprobes_make(int fd, const struct xdt_probedesc *d, char *err,
		    size_t errlen)
{
	struct ubatch b = { .fd = fd, .err = err, .errlen = errlen };
	struct uobj *objs = NULL;
	int nobj = 0, i, ret = -1, mods = 0, stripped = 0;
	char path[PATH_MAX + 32];
	unsigned funcs = 0;

	b.pid = dt_uproc_pid(d);
	if (!b.pid)
		return 0;
	if (d->name[0] && !is_glob(d->name) && strcmp(d->name, "entry") &&
	    strcmp(d->name, "return") && !hex_name(d->name, &(uint32_t){0})) {
		snprintf(err, errlen, "%s:%s:%s:%s: a pid provider probe is "
			 "entry, return or an instruction offset in hex",
			 d->prov, d->mod, d->func, d->name);
		return -1;
	}
	if (read_maps(b.pid, &objs, &nobj, err, errlen) < 0) {
		/*
		 * Another user's process: /proc says only EACCES; the kernel,
		 * asked for no probes, says what it would refuse and why.
		 */
		if (errno == EACCES)
			ask(&b, "pid");
		return -1;
	}
	for (i = 0; i < nobj; i++) {
		struct funcs_ctx c = { .b = &b, .d = d, .o = &objs[i] };
		struct elfimg e;
		long n;

		if (!mod_match(d->mod, &objs[i]))
			continue;
		mods++;
		/* through the process's root: its view of the file system */
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)b.pid,
			 objs[i].path);
		if (elf_open(&e, path) < 0 && elf_open(&e, objs[i].path) < 0)
			continue;
		c.e = &e;
		c.mod = d->mod[0] && !is_glob(d->mod) ? d->mod : obj_base(&objs[i]);
		n = elf_funcs(&e, one_func, &c);
		elf_close(&e);
		if (n <= 0)
			stripped++;
		funcs += c.matched;
		if (c.failed)
			goto out;
	}
	if (flush(&b, "pid") < 0)
		goto out;
	dt_usyms_load(b.pid);	/* ustack()'s names, while it lives */
	ret = 0;
	if (!mods)
		ret = -!!snprintf(err, errlen, "%s:%s:%s:%s: process %d has no "
				  "module matching '%s'", d->prov, d->mod,
				  d->func, d->name, (int)b.pid, d->mod);
	else if (!funcs && stripped == mods)
		ret = -!!snprintf(err, errlen, "%s:%s:%s:%s: no symbol table "
				  "in the matching module%s (stripped?)",
				  d->prov, d->mod, d->func, d->name,
				  mods > 1 ? "s" : "");
out:
	free(b.v);
	free(objs);
	return ret;
}

/* ---- user symbols: ustack()'s frames ---------------------------------- */
/*
 * A process's objects and their function symbols, read once per process
 * and kept for the handle's life: a process that has exited by the time
 * its records are printed still gets names if it was seen alive (the pid
 * provider's processes are read when their probes are made); one never
 * seen alive prints addresses, as DTrace does.
 */
struct usym {
	uint64_t v, size;
	char *name;
};

struct usobj {
	struct uobj o;
	struct usym *syms;
	size_t nsyms;
	/* the executable PT_LOADs: file offset -> virtual address */
	struct { uint64_t off, filesz, vaddr; } segs[8];
	int nsegs;
};

struct usproc {
	pid_t pid;
	int gone;		/* could not be read: addresses only */
	struct usobj *objs;
	int nobj;
};

static struct usproc *usprocs;
static size_t nusprocs;

static void sym_add(void *ctx, const char *name, uint64_t v, uint64_t size)
{
	(void)size;	/* a symbol ends where the next begins (below) */
	struct usobj *so = ctx;

	so->syms = xrealloc(so->syms, (so->nsyms + 1) * sizeof(*so->syms));
	so->syms[so->nsyms].v = v;
	so->syms[so->nsyms].size = 0;
	so->syms[so->nsyms].name = xstrdup(name);
	so->nsyms++;
}

static int usym_cmp(const void *a, const void *b)
{
	const struct usym *x = a, *y = b;

	return x->v < y->v ? -1 : x->v > y->v;
}

static void usobj_load(struct usobj *so, pid_t pid)
{
	char path[PATH_MAX + 32];
	const Elf64_Phdr *ph;
	struct elfimg e;
	unsigned i;

	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, so->o.path);
	if (elf_open(&e, path) < 0 && elf_open(&e, so->o.path) < 0)
		return;
	ph = (const Elf64_Phdr *)(e.p + e.eh->e_phoff);
	for (i = 0; i < e.eh->e_phnum && so->nsegs < 8; i++) {
		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X))
			continue;
		so->segs[so->nsegs].off = ph[i].p_offset;
		so->segs[so->nsegs].filesz = ph[i].p_filesz;
		so->segs[so->nsegs].vaddr = ph[i].p_vaddr;
		so->nsegs++;
	}
	elf_funcs(&e, sym_add, so);
	elf_close(&e);
	if (so->nsyms)
		qsort(so->syms, so->nsyms, sizeof(*so->syms), usym_cmp);
	/* a symbol ends where the next begins: sizes need not be trusted */
	for (size_t k = 0; k + 1 < so->nsyms; k++)
		so->syms[k].size = so->syms[k + 1].v - so->syms[k].v;
	if (so->nsyms)
		so->syms[so->nsyms - 1].size = UINT64_MAX - so->syms[so->nsyms - 1].v;
}

static struct usproc *usproc_get(pid_t pid)
{
	struct uobj *objs = NULL;
	struct usproc *up;
	char err[256];
	int n = 0;

	for (size_t i = 0; i < nusprocs; i++)
		if (usprocs[i].pid == pid)
			return &usprocs[i];
	usprocs = xrealloc(usprocs, (nusprocs + 1) * sizeof(*usprocs));
	up = &usprocs[nusprocs++];
	memset(up, 0, sizeof(*up));
	up->pid = pid;
	if (read_maps(pid, &objs, &n, err, sizeof(err)) < 0) {
		up->gone = 1;
		return up;
	}
	up->objs = xzalloc((n ? n : 1) * sizeof(*up->objs));
	up->nobj = n;
	for (int i = 0; i < n; i++) {
		up->objs[i].o = objs[i];
		usobj_load(&up->objs[i], pid);
	}
	free(objs);
	return up;
}

void dt_usyms_load(pid_t pid)
{
	usproc_get(pid);
}

void dt_usym_format(pid_t pid, uint64_t pc, char *buf, size_t len)
{
	dt_usym_form(pid, pc, XDT_USYM_ADDR, buf, len);
}

/*
 * Where @pc of @pid is: its object (NULL: none maps it), and the symbol
 * at or below it with @pc's distance past it (NULL: none covers it).
 */
static const struct usobj *usym_lookup(pid_t pid, uint64_t pc,
				       const struct usym **sym, uint64_t *past)
{
	struct usproc *up = pid > 0 ? usproc_get(pid) : NULL;

	*sym = NULL;
	for (int i = 0; up && i < up->nobj; i++) {
		const struct usobj *so = &up->objs[i];

		for (int m = 0; m < so->o.nmaps; m++) {
			const struct umap *mp = &so->o.maps[m];
			uint64_t off, v = 0;
			size_t lo = 0, hi = so->nsyms;
			int found = 0;

			if (pc < mp->start || pc >= mp->end)
				continue;
			off = pc - mp->start + mp->off;
			for (int k = 0; k < so->nsegs; k++) {
				if (off >= so->segs[k].off &&
				    off - so->segs[k].off < so->segs[k].filesz) {
					v = off - so->segs[k].off + so->segs[k].vaddr;
					found = 1;
					break;
				}
			}
			/* the last symbol at or below v */
			while (found && lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (so->syms[mid].v <= v)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (found && lo && v - so->syms[lo - 1].v < so->syms[lo - 1].size) {
				*sym = &so->syms[lo - 1];
				*past = v - (*sym)->v;
			}
			return so;
		}
	}
	return NULL;
}

/*
 * @pc of @pid in one of DTrace's forms: uaddr mod`func+0x1c, ufunc and
 * usym mod`func, umod mod; an address no object names prints in hex.
 */
void dt_usym_form(pid_t pid, uint64_t pc, int form, char *buf, size_t len)
{
	const struct usym *sy;
	uint64_t past = 0;
	const struct usobj *so = usym_lookup(pid, pc, &sy, &past);

	if (!so)
		snprintf(buf, len, "0x%llx", (unsigned long long)pc);
	else if (form == XDT_USYM_MOD)
		snprintf(buf, len, "%s", obj_base(&so->o));
	else if (!sy)
		snprintf(buf, len, "%s`0x%llx", obj_base(&so->o),
			 (unsigned long long)pc);
	else if (!past || form != XDT_USYM_ADDR)
		snprintf(buf, len, "%s`%s", obj_base(&so->o), sy->name);
	else
		snprintf(buf, len, "%s`%s+0x%llx", obj_base(&so->o), sy->name,
			 (unsigned long long)past);
}

/*
 * The address that stands for @pc in ufunc(), usym() (its function's
 * first byte) and umod() keys (its object's first executable mapping):
 * aggregation keys are made of it, so that every address in one function
 * or object aggregates together, as DTrace's consumer does.  An address no
 * object names stands for itself.
 */
uint64_t dt_usym_base(pid_t pid, uint64_t pc, int form)
{
	const struct usym *sy;
	uint64_t past = 0;
	const struct usobj *so = usym_lookup(pid, pc, &sy, &past);

	if (so && form == XDT_USYM_MOD)
		return so->o.maps[0].start;
	return so && sy ? pc - past : pc;
}
