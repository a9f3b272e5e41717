// SPDX-License-Identifier: GPL-2.0
/*
 * uproc.c - the consumer's half of the pid provider: what a description
 * pid<PID>:<module>:<function>:<name> names in a live process, made into
 * probes by XDT_IOC_UPROBES (providers/pid.c; core/uapi/xdt.h section 7).
 *
 * Modules are the file-backed executable mappings of /proc/PID/maps,
 * named as DTrace names them: a shared library by its DT_SONAME
 * (libc.so.6, whatever file it is), any other object by its base name.
 * A module field matches an object by that name or its base name (a
 * glob), its full path, a prefix of either up to a '.' (libc for
 * libc.so.6, as illumos allows), or "a.out" for the executable.  A probe
 * made for a module field that is not a glob carries that field as its
 * module, so the kernel's matcher finds it under the name the user wrote;
 * a glob's probes carry the object's name.  Functions are the object's
 * ELF symbols of type FUNC or GNU_IFUNC (.symtab, else .dynsym).
 *
 * The ELF reader is this file's own (ELF64, the host's byte order): the
 * symbol, dynamic and program header tables are all it needs, and libelf
 * would be a cross-built library (elfutils, with zlib and zstd) in every
 * guest for ~150 lines.  Every offset read from the
 * file is checked against its size: the file is the traced process's,
 * not ours.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/auxv.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "dt_consumer.h"

struct umap {
	uint64_t start, end, off;
};

struct uobj {
	char path[PATH_MAX];
	char name[256];		/* DT_SONAME, else the base name */
	int is_exe;
	struct umap maps[32];
	int nmaps;
};

struct ubatch {
	int fd;
	pid_t pid;
	char prov[XDT_PROVNAMELEN];	/* "pid", or a USDT provider's name */
	struct xdt_uprobe *v;
	size_t n, cap;
	unsigned made, bound;
	char note[128];		/* the kernel's why for a probe not made */
	char *err;
	size_t errlen;
};

/*
 * Is @d's provider <name><digits>, a process's (pid1234, or a USDT
 * provider's: myapp1234)?  Its pid, or 0; @name gets the name.  A name
 * is a C identifier ending in a non-digit, so the split is unambiguous
 * (the kernel refuses USDT provider names ending in a digit).
 */
static pid_t uproc_split(const struct xdt_probedesc *d, char *name, size_t len)
{
	const char *s = d->prov, *p = s + strnlen(s, sizeof(d->prov));
	long v;
	char *end;

	while (p > s && isdigit((unsigned char)p[-1]))
		p--;	/* the trailing digits: the pid */
	if (!*p || *p == '0' || p == s || p - s >= (ptrdiff_t)len ||
	    !(isalpha((unsigned char)s[0]) || s[0] == '_'))
		return 0;
	for (const char *q = s; q < p; q++)
		if (!isalnum((unsigned char)*q) && *q != '_')
			return 0;
	errno = 0;
	v = strtol(p, &end, 10);
	if (*end || errno || v <= 0 || v > INT_MAX)
		return 0;
	if (name)
		snprintf(name, len, "%.*s", (int)(p - s), s);
	return (pid_t)v;
}

pid_t dt_uproc_pid(const struct xdt_probedesc *d)
{
	return uproc_split(d, NULL, XDT_PROVNAMELEN);
}

/*
 * What @pid has mapped from files with execute permission, as one hash
 * (FNV-1a over those lines of its maps): it changes when the process
 * maps or unmaps an object (dlopen(), dlclose()); 0 when it is gone.
 */
uint64_t dt_umaps_sig(pid_t pid)
{
	char path[64], line[PATH_MAX + 128];
	uint64_t h = 1469598103934665603ULL;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		char perms[8] = "";

		if (sscanf(line, "%*s %7s", perms) != 1 || perms[2] != 'x' ||
		    !strchr(line, '/'))
			continue;
		for (const char *c = line; *c; c++)
			h = (h ^ (unsigned char)*c) * 1099511628211ULL;
	}
	fclose(f);
	return h ? h : 1;
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

/* The object's module name: its soname, else its base name. */
static const char *obj_name(const struct uobj *o)
{
	return o->name[0] ? o->name : obj_base(o);
}

/* @name, or its prefix up to a '.' (libc for libc.so.6) */
static int name_match(const char *pat, const char *name)
{
	size_t n = strlen(pat);

	return field_match(pat, name) ||
	       (!is_glob(pat) && !strncmp(name, pat, n) && name[n] == '.');
}

static int mod_match(const char *pat, const struct uobj *o)
{
	if (name_match(pat, obj_base(o)) || name_match(pat, obj_name(o)) ||
	    !strcmp(pat, o->path))
		return 1;
	return o->is_exe && !strcmp(pat, "a.out");
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
 * Call @fn for every defined function symbol (@all: every defined symbol)
 * of the object's .symtab (or, stripped of it, .dynsym).  Returns the
 * number of symbols seen, -1 if the object has no symbol table at all.
 */
static long elf_syms(const struct elfimg *e, int all,
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

		if ((!all && t != STT_FUNC && t != STT_GNU_IFUNC) ||
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

static int elf_has_symtab(const struct elfimg *e)
{
	for (unsigned i = 0; i < e->eh->e_shnum; i++)
		if (elf_shdr(e, i)->sh_type == SHT_SYMTAB)
			return 1;
	return 0;
}

static long elf_funcs(const struct elfimg *e,
		      void (*fn)(void *ctx, const char *name, uint64_t v,
				 uint64_t size),
		      void *ctx)
{
	return elf_syms(e, 0, fn, ctx);
}

/*
 * The object's DT_SONAME, from its SHT_DYNAMIC section and the string
 * table that section links: "" when it has none (an executable, or a
 * library linked without -soname).
 */
static void elf_soname(const struct elfimg *e, char *buf, size_t len)
{
	buf[0] = 0;
	for (unsigned i = 0; i < e->eh->e_shnum; i++) {
		const Elf64_Shdr *sh = elf_shdr(e, i), *str;
		const Elf64_Dyn *d;

		if (sh->sh_type != SHT_DYNAMIC)
			continue;
		str = elf_shdr(e, sh->sh_link);
		if (!str || sh->sh_entsize != sizeof(Elf64_Dyn) ||
		    (sh->sh_offset & 7) || !in_file(e, sh->sh_offset, sh->sh_size) ||
		    !in_file(e, str->sh_offset, str->sh_size))
			return;
		d = (const Elf64_Dyn *)(e->p + sh->sh_offset);
		for (uint64_t k = 0; k < sh->sh_size / sizeof(*d) &&
		     d[k].d_tag != DT_NULL; k++) {
			const char *n = (const char *)e->p + str->sh_offset +
					d[k].d_un.d_val;

			if (d[k].d_tag != DT_SONAME || d[k].d_un.d_val >= str->sh_size)
				continue;
			if (memchr(n, 0, str->sh_size - d[k].d_un.d_val))
				snprintf(buf, len, "%s", n);
			return;
		}
		return;
	}
}

/* Open @o's file as @pid sees it (through its root), else as we do. */
static int obj_open(struct elfimg *e, const struct uobj *o, pid_t pid)
{
	char path[PATH_MAX + 32];

	snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid, o->path);
	return elf_open(e, path) < 0 && elf_open(e, o->path) < 0 ? -1 : 0;
}

/* ---- making the probes ---------------------------------------------------- */
static int ask(struct ubatch *b)
{
	struct xdt_uprobe_req r;

	memset(&r, 0, sizeof(r));
	r.pid = b->pid;
	r.count = (__u32)b->n;
	r.probes = (__u64)(uintptr_t)b->v;
	snprintf(r.prov, sizeof(r.prov), "%s", b->prov);
	b->n = 0;
	if (ioctl(b->fd, XDT_IOC_UPROBES, &r) < 0) {
		if (errno == ENOTTY)
			snprintf(b->err, b->errlen, "the %s provider needs "
				 "xdt.ko (not the host VM)", b->prov);
		else
			snprintf(b->err, b->errlen, "%s provider: %.*s",
				 b->prov, (int)sizeof(r.err),
				 r.err[0] ? r.err : strerror(errno));
		return -1;
	}
	b->made += r.created;
	b->bound += r.bound;
	if (r.err[0])
		snprintf(b->note, sizeof(b->note), "%.*s", (int)sizeof(r.err) - 1,
			 r.err);
	return 0;
}

static int flush(struct ubatch *b)
{
	return b->n ? ask(b) : 0;
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

static struct xdt_uprobe *add(struct funcs_ctx *c, uint64_t addr,
			      const char *func, const char *name, unsigned kind,
			      uint64_t size, uint32_t off)
{
	struct ubatch *b = c->b;
	struct xdt_uprobe *u;

	if (c->failed)
		return NULL;
	if (b->n == b->cap) {
		if (b->cap == XDT_UPROBES_MAX && flush(b) < 0) {
			c->failed = 1;
			return NULL;
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
	return u;
}

/* Where the object's file offset @off is in the process: 0 if unmapped. */
static uint64_t off2proc(const struct uobj *o, uint64_t off)
{
	for (int i = 0; i < o->nmaps; i++) {
		const struct umap *m = &o->maps[i];

		if (off >= m->off && off - m->off < m->end - m->start)
			return m->start + (off - m->off);
	}
	return 0;
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

	if (strlen(func) >= XDT_FUNCNAMELEN || !field_match(c->d->func, func))
		return;
	if (elf_v2off(c->e, v, &off) < 0 || !(addr = off2proc(c->o, off)))
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


/* ---- USDT: systemtap's <sys/sdt.h> notes ------------------------------- */
/*
 * A note (type 3, owner "stapsdt", in .note.stapsdt) per probe site:
 * the site's address, the link-time address of _.stapsdt.base, the
 * semaphore's address (0: none), then the provider, the probe's name and
 * its arguments, three NUL-terminated strings.  The site and semaphore
 * move by as much as .stapsdt.base did since link time (prelink).  Probe
 * names have "__" written "-", as DTrace's USDT names have always had
 * (query__start is query-start); the function is the symbol holding the
 * site; the module is the object, as for pid.
 */
struct fsym {
	uint64_t v, size;
	const char *name;	/* in the mapped file */
};

struct fsyms {
	struct fsym *v;
	size_t n, cap;
};

static void fsym_add(void *ctx, const char *name, uint64_t v, uint64_t size)
{
	struct fsyms *f = ctx;

	if (f->n == f->cap) {
		f->cap = f->cap ? 2 * f->cap : 256;
		f->v = xrealloc(f->v, f->cap * sizeof(*f->v));
	}
	f->v[f->n++] = (struct fsym){ v, size, name };
}

/* The function holding @pc: its symbol's range, else the nearest below. */
static const char *fsym_find(const struct fsyms *f, uint64_t pc)
{
	const struct fsym *best = NULL;

	for (size_t i = 0; i < f->n; i++) {
		const struct fsym *s = &f->v[i];

		if (s->v > pc)
			continue;
		if (s->size && pc - s->v < s->size)
			return s->name;
		if (!s->size && (!best || s->v > best->v))
			best = s;
	}
	return best ? best->name : "-";
}

static const char *elf_secname(const struct elfimg *e, const Elf64_Shdr *sh)
{
	const Elf64_Shdr *str = elf_shdr(e, e->eh->e_shstrndx);
	const char *n;

	if (!str || !in_file(e, str->sh_offset, str->sh_size) ||
	    sh->sh_name >= str->sh_size)
		return "";
	n = (const char *)e->p + str->sh_offset + sh->sh_name;
	return memchr(n, 0, str->sh_size - sh->sh_name) ? n : "";
}

/* The file offset of @v in any PT_LOAD's file bytes (a semaphore). */
static int elf_v2off_data(const struct elfimg *e, uint64_t v, uint64_t *off)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->p + e->eh->e_phoff);

	for (unsigned i = 0; i < e->eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && v >= ph[i].p_vaddr &&
		    v - ph[i].p_vaddr < ph[i].p_filesz) {
			*off = v - ph[i].p_vaddr + ph[i].p_offset;
			return 0;
		}
	}
	return -1;
}

/* Process address minus link-time address, from the mapped text. */
static int elf_bias(const struct elfimg *e, const struct uobj *o,
		    uint64_t *bias)
{
	const Elf64_Phdr *ph = (const Elf64_Phdr *)(e->p + e->eh->e_phoff);

	for (unsigned i = 0; i < e->eh->e_phnum; i++) {
		uint64_t a;

		if (ph[i].p_type != PT_LOAD || !(ph[i].p_flags & PF_X) ||
		    !(a = off2proc(o, ph[i].p_offset)))
			continue;
		*bias = a - ph[i].p_vaddr;
		return 0;
	}
	return -1;
}

/* A data symbol's link-time address, for x86's sym(%rip) operands. */
struct symq {
	const char *name;
	uint64_t v;
	int found;
};

static void symq_one(void *ctx, const char *name, uint64_t v, uint64_t size)
{
	struct symq *q = ctx;

	(void)size;
	if (!q->found && !strcmp(name, q->name)) {
		q->v = v;
		q->found = 1;
	}
}

/*
 * One "size@operand" argument.  The operand is the assembler's, on every
 * ISA one of: a register (x86 %edi, arm64 w1, riscv a0), a constant (x86
 * $5, others 5 or #5), memory at a register plus a displacement (x86
 * -8(%rbp), riscv 8(sp), arm64 [sp, 8] or [x0]), or on x86 a global
 * (counter(%rip), counter+8(%rip)).  Anything else -- x86's base+index
 * forms -- is left XDT_UA_NONE and reads as 0.
 */
static void usdt_operand(const char *op, struct xdt_uarg *a,
			 const struct funcs_ctx *c)
{
	char reg[16], sym[256];
	long long off = 0;
	char *end;
	size_t n;

	a->kind = XDT_UA_NONE;
	if (*op == '$' || *op == '#' || *op == '-' || isdigit((unsigned char)*op)) {
		const char *num = op + (*op == '$' || *op == '#');

		off = strtoll(num, &end, 0);
		if (end != num && !*end) {
			a->kind = XDT_UA_CONST;
			a->off = off;
			return;
		}
		if (end == num || *end != '(' || num != op)
			return;		/* $sym, or not a number */
	}
	if (*op == '[') {			/* [reg] [reg, off] [reg, #off] */
		op++;
		n = strspn(op, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (!n || n >= sizeof(reg))
			return;
		memcpy(reg, op, n);
		reg[n] = 0;
		op += n;
		if (*op == ',') {
			op += 1 + strspn(op + 1, " ");
			off = strtoll(op + (*op == '#'), &end, 0);
			if (end == op + (*op == '#'))
				return;
			op = end;
		}
		if (strcmp(op, "]"))
			return;
		a->kind = XDT_UA_MEM;
	} else if (strchr(op, '(')) {		/* disp(reg) sym+disp(%rip) */
		const char *lp = strchr(op, '(');
		int has_sym = 0;

		if (lp > op && (isalpha((unsigned char)*op) || *op == '_')) {
			n = strcspn(op, "+-(");
			if (n >= sizeof(sym))
				return;
			memcpy(sym, op, n);
			sym[n] = 0;
			has_sym = 1;
			op += n;
		}
		if (op < lp) {
			off = strtoll(op, &end, 0);
			if (end != lp)
				return;
		}
		op = lp + 1 + (lp[1] == '%');
		n = strspn(op, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (!n || n >= sizeof(reg) || strcmp(op + n, ")"))
			return;
		memcpy(reg, op, n);
		reg[n] = 0;
		if (has_sym) {
			struct symq q = { .name = sym };
			uint64_t bias;

			if (!c || (strcmp(reg, "rip") && strcmp(reg, "pc")))
				return;
			elf_syms(c->e, 1, symq_one, &q);
			if (!q.found || elf_bias(c->e, c->o, &bias) < 0)
				return;
			a->kind = XDT_UA_ABS;
			a->off = (int64_t)(q.v + bias + off);
			return;
		}
		a->kind = XDT_UA_MEM;
	} else {				/* %reg or reg */
		op += *op == '%';
		n = strspn(op, "abcdefghijklmnopqrstuvwxyz0123456789");
		if (!n || n >= sizeof(reg) || op[n])
			return;
		memcpy(reg, op, n);
		reg[n] = 0;
		a->kind = XDT_UA_REG;
	}
	if (strlen(reg) >= sizeof(a->reg)) {
		a->kind = XDT_UA_NONE;
		return;
	}
	memcpy(a->reg, reg, strlen(reg) + 1);
	a->off = off;
}

static void usdt_args(const char *spec, struct xdt_uprobe *u,
		      const struct funcs_ctx *c)
{
	char buf[256];

	while (*spec && u->nargs < XDT_USDT_ARGS) {
		struct xdt_uarg *a = &u->args[u->nargs++];
		size_t n;
		char *end;
		long sz;

		spec += strspn(spec, " ");
		/* arm64's [sp, 12] holds a space */
		for (n = 0; spec[n] && (spec[n] != ' ' || (memchr(spec, '[', n) &&
				!memchr(spec, ']', n))); n++)
			;
		if (!n) {
			u->nargs--;
			break;
		}
		snprintf(buf, sizeof(buf), "%.*s", (int)n, spec);
		spec += n;
		sz = strtol(buf, &end, 10);
		if (*end != '@' || !(sz == 1 || sz == 2 || sz == 4 || sz == 8 ||
				     sz == -1 || sz == -2 || sz == -4 || sz == -8)) {
			/* no size: an old note; the value as a long */
			a->size = -8;
			usdt_operand(buf, a, c);
			continue;
		}
		a->size = (int8_t)sz;
		usdt_operand(end + 1, a, c);
	}
}

static void usdt_name(char *d, size_t len, const char *s)
{
	size_t i = 0;

	for (; *s && i + 1 < len; s++) {
		d[i++] = *s == '_' && s[1] == '_' ? '-' : *s;
		s += *s == '_' && s[1] == '_';
	}
	d[i] = 0;
}

static uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return v;
}

/*
 * The USDT probes of provider @c->b->prov in object @c->o that @c->d
 * names.  Returns the notes of that provider seen, -1 if the object has
 * none of any provider.
 */
static long elf_usdt(struct funcs_ctx *c)
{
	const struct elfimg *e = c->e;
	const Elf64_Shdr *base = NULL;
	struct fsyms fs = { 0 };
	long notes = -1, mine = 0;
	unsigned i;

	for (i = 0; i < e->eh->e_shnum; i++)
		if (!strcmp(elf_secname(e, elf_shdr(e, i)), ".stapsdt.base"))
			base = elf_shdr(e, i);
	elf_funcs(e, fsym_add, &fs);
	for (i = 0; i < e->eh->e_shnum && !c->failed; i++) {
		const Elf64_Shdr *sh = elf_shdr(e, i);
		uint64_t o = 0;

		if (sh->sh_type != SHT_NOTE || !in_file(e, sh->sh_offset, sh->sh_size))
			continue;
		while (o + 12 <= sh->sh_size && !c->failed) {
			const unsigned char *p = e->p + sh->sh_offset + o;
			uint32_t nsz, dsz, type;
			uint64_t dpos, pc, lbase, sem, foff, addr, refctr = 0;
			const char *prov, *name, *args, *dend, *func;
			char pname[XDT_NAMELEN];
			struct xdt_uprobe *u;

			memcpy(&nsz, p, 4);
			memcpy(&dsz, p + 4, 4);
			memcpy(&type, p + 8, 4);
			dpos = 12 + (((uint64_t)nsz + 3) & ~3ull);
			if (dpos > sh->sh_size - o || dsz > sh->sh_size - o - dpos)
				break;
			o += dpos + (((uint64_t)dsz + 3) & ~3ull);
			if (type != 3 || nsz != 8 || memcmp(p + 12, "stapsdt", 8) ||
			    dsz < 27)
				continue;
			if (notes < 0)
				notes = 0;
			p += dpos;
			dend = (const char *)p + dsz;
			pc = rd64(p);
			lbase = rd64(p + 8);
			sem = rd64(p + 16);
			prov = (const char *)p + 24;
			name = memchr(prov, 0, dend - prov);
			args = name ? memchr(name + 1, 0, dend - name - 1) : NULL;
			if (!args || !memchr(args + 1, 0, dend - args - 1))
				continue;	/* not three strings */
			name++;
			args++;
			notes++;
			if (strcmp(prov, c->b->prov))
				continue;
			mine++;
			if (base && lbase) {
				pc += base->sh_addr - lbase;
				if (sem)
					sem += base->sh_addr - lbase;
			}
			usdt_name(pname, sizeof(pname), name);
			func = fsym_find(&fs, pc);
			if (strlen(func) >= XDT_FUNCNAMELEN ||
			    !field_match(c->d->func, func) ||
			    !field_match(c->d->name, pname) ||
			    elf_v2off(e, pc, &foff) < 0 ||
			    !(addr = off2proc(c->o, foff)))
				continue;
			if (sem && elf_v2off_data(e, sem, &refctr) < 0)
				refctr = 0;
			c->matched++;
			u = add(c, addr, func, pname, XDT_UP_USDT, 0, 0);
			if (!u)
				break;
			u->refctr = refctr;
			usdt_args(args, u, c);
		}
	}
	free(fs.v);
	return notes < 0 ? -1 : mine;
}

/*
 * -x errtags: DTrace's tag for each way a pid probe description fails
 * (illumos dt_pid.c), put before the message.  The kernel's refusal of
 * an offset is told apart by what providers/pid.c says (its others are
 * DTrace's "failed to create probe"), as is flush()'s own.  A module or function that is not
 * there is no pid error in DTrace: its description then matches nothing.
 */
static const struct { const char *says; int tag; } note_tags[] = {
	{ "past the function's end", DT_D_PROC_OFF },
	{ "not an instruction boundary", DT_D_PROC_ALIGN },
	{ "needs xdt.ko", DT_D_PROC_NODEV },	/* flush(): no pid provider */
};

static void utag(char *err, size_t len, int tag, const char *where)
{
	char *msg = dt_errtags ? strdup(err) : NULL;

	if (msg)	/* (without memory, the message goes untagged) */
		snprintf(err, len, "[%s] %s%s", dt_errtag_name(tag), where, msg);
	free(msg);
}

static int note_tag(const char *note)
{
	for (size_t i = 0; i < sizeof(note_tags) / sizeof(note_tags[0]); i++)
		if (strstr(note, note_tags[i].says))
			return note_tags[i].tag;
	return DT_D_PROC_CREATEFAIL;
}

int dt_uprobes_make(int fd, const struct xdt_probedesc *d, const char *where,
		    char *err, size_t errlen, unsigned *bound)
{
	struct ubatch b = { .fd = fd, .err = err, .errlen = errlen };
	struct uobj *objs = NULL;
	int nobj = 0, i, ret = -1, mods = 0, stripped = 0, dynonly = 0, usdt;
	char modname[256] = "";
	unsigned funcs = 0;

	b.pid = uproc_split(d, b.prov, sizeof(b.prov));
	if (!b.pid)
		return 0;
	usdt = strcmp(b.prov, "pid") != 0;
	if (!usdt && d->name[0] && !is_glob(d->name) && strcmp(d->name, "entry") &&
	    strcmp(d->name, "return") && !hex_name(d->name, &(uint32_t){0})) {
		snprintf(err, errlen, "%s:%s:%s:%s: a pid provider probe is "
			 "entry, return or an instruction offset in hex",
			 d->prov, d->mod, d->func, d->name);
		utag(err, errlen, DT_D_PROC_NAME, where);
		return -1;
	}
	if (read_maps(b.pid, &objs, &nobj, err, errlen) < 0) {
		/*
		 * Another user's process: /proc says only EACCES; the kernel,
		 * asked for no probes, says what it would refuse and why.
		 */
		if (errno == EACCES)
			ask(&b);
		utag(err, errlen, DT_D_PROC_GRAB, where);
		return -1;
	}
	for (i = 0; i < nobj; i++) {
		struct funcs_ctx c = { .b = &b, .d = d, .o = &objs[i] };
		struct elfimg e;
		long n;

		/* through the process's root: its view of the file system */
		if (obj_open(&e, &objs[i], b.pid) < 0) {
			mods += mod_match(d->mod, &objs[i]);
			continue;
		}
		elf_soname(&e, objs[i].name, sizeof(objs[i].name));
		if (!mod_match(d->mod, &objs[i])) {
			elf_close(&e);
			continue;
		}
		mods++;
		snprintf(modname, sizeof(modname), "%.*s", (int)sizeof(modname) - 1,
			 obj_name(&objs[i]));
		c.e = &e;
		c.mod = d->mod[0] && !is_glob(d->mod) ? d->mod : obj_name(&objs[i]);
		n = usdt ? elf_usdt(&c) : elf_funcs(&e, one_func, &c);
		if (n <= 0 && !usdt)
			stripped++;
		else if (!usdt && !elf_has_symtab(&e))
			dynonly++;	/* its exported functions only */
		elf_close(&e);
		funcs += c.matched;
		if (c.failed)
			goto out;
	}
	if (flush(&b) < 0) {
		utag(err, errlen, note_tag(err), where);
		goto out;
	}
	dt_usyms_load(b.pid);	/* ustack()'s names, while it lives */
	ret = 0;
	/* one probe named exactly that the kernel would not make: say why */
	if (b.note[0] && !is_glob(d->func) && d->func[0] && d->name[0] &&
	    !is_glob(d->name) && !usdt) {
		ret = -!!snprintf(err, errlen, "%s:%s:%s:%s: %s", d->prov,
				  d->mod, d->func, d->name, b.note);
		utag(err, errlen, note_tag(b.note), where);
		goto out;
	}
	if (!mods) {
		/*
		 * Not an object of the process now: as in DTrace, an error
		 * unless -Z, which lets the description match nothing now;
		 * an object that matches it when the process maps it
		 * (dlopen()) gets its probes then (late_probes(),
		 * docs/d-language.md "User space").
		 */
		snprintf(err, errlen, "%s:%s:%s:%s: process %d has no module "
			 "matching '%s' (with -Z the description matches nothing "
			 "now and gets its probes when the process maps such an "
			 "object)", d->prov, d->mod, d->func, d->name, (int)b.pid,
			 d->mod);
		utag(err, errlen, DT_D_PDESC_ZERO, where);
		ret = -2;
		goto out;
	} else if (!funcs && stripped == mods)
		ret = -!!snprintf(err, errlen, "%s:%s:%s:%s: no symbol table "
				  "in the matching module%s (stripped?)",
				  d->prov, d->mod, d->func, d->name,
				  mods > 1 ? "s" : "");
	else if (!funcs && dynonly && stripped + dynonly == mods &&
		 d->func[0] && !is_glob(d->func))
		ret = -!!snprintf(err, errlen, "%s:%s:%s:%s: '%s' is not a "
				  "function the matching module%s export%s, and "
				  "%s stripped of its other symbols (no .symtab)",
				  d->prov, d->mod, d->func, d->name, d->func,
				  mods > 1 ? "s" : "", mods > 1 ? "" : "s",
				  mods > 1 ? "they are" : "it is");
	else if (!funcs && !usdt && d->func[0] && !is_glob(d->func) &&
		 d->mod[0] && !is_glob(d->mod)) {
		/*
		 * One function named in one module named, not there: DTrace's
		 * D_PROC_FUNC, its words, the module by the object's name
		 * (a.out is the program's); a glob in either matches nothing
		 * silently, as in DTrace (D_PDESC_ZERO at enable).
		 */
		ret = -!!snprintf(err, errlen, "failed to lookup '%s' in module "
				  "'%s'", d->func, modname[0] ? modname : d->mod);
		utag(err, errlen, DT_D_PROC_FUNC, where);
		goto out;
	}
	if (ret < 0)
		utag(err, errlen, DT_D_PDESC_ZERO, where);
out:
	if (bound)
		*bound = b.bound;
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
	struct timespec read;	/* when its maps were last read */
};

static struct usproc *usprocs;
static size_t nusprocs;

static void sym_add(void *ctx, const char *name, uint64_t v, uint64_t size)
{
	struct usobj *so = ctx;

	so->syms = xrealloc(so->syms, (so->nsyms + 1) * sizeof(*so->syms));
	so->syms[so->nsyms].v = v;
	so->syms[so->nsyms].size = size;	/* bounded below */
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
	const Elf64_Phdr *ph;
	struct elfimg e;
	unsigned i;

	if (obj_open(&e, &so->o, pid) < 0)
		return;
	elf_soname(&e, so->o.name, sizeof(so->o.name));
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
	/*
	 * A symbol ends where the next begins, or where its size says if
	 * that is sooner: the size is the file's, not to be trusted further.
	 * A PC past it is in no function (a library's .dynsym names only its
	 * exported ones: libc's __libc_start_call_main is not there) and
	 * prints as mod`0x..., as DTrace's (libproc's lookup by address
	 * heeds sizes), rather than as the exported function below it.
	 */
	for (size_t k = 0; k < so->nsyms; k++) {
		uint64_t gap = k + 1 < so->nsyms ?
			       so->syms[k + 1].v - so->syms[k].v :
			       UINT64_MAX - so->syms[k].v;

		if (!so->syms[k].size || so->syms[k].size > gap)
			so->syms[k].size = gap;
	}
}

static void usobj_free(struct usobj *so)
{
	for (size_t k = 0; k < so->nsyms; k++)
		free(so->syms[k].name);
	free(so->syms);
}

/*
 * (Re)read @up's objects from its maps: an object already loaded (the
 * same file at the same place) keeps its symbols, a new one (dlopen())
 * is loaded, one no longer mapped goes.  A process that cannot be read
 * or maps nothing (gone, or a zombie) keeps what was read while it
 * lived.  0, or -1 if unreadable.
 */
static int usproc_read(struct usproc *up)
{
	struct uobj *objs = NULL;
	struct usobj *nv;
	char err[256];
	int n = 0;

	clock_gettime(CLOCK_MONOTONIC, &up->read);
	/* a zombie's maps are empty: what it had stays */
	if (read_maps(up->pid, &objs, &n, err, sizeof(err)) < 0 || !n) {
		free(objs);
		return -1;
	}
	nv = xzalloc((n ? n : 1) * sizeof(*nv));
	for (int i = 0; i < n; i++) {
		int k;

		for (k = 0; k < up->nobj; k++)
			if (up->objs[k].o.nmaps && !strcmp(up->objs[k].o.path, objs[i].path) &&
			    up->objs[k].o.maps[0].start == objs[i].maps[0].start)
				break;
		if (k < up->nobj) {
			nv[i] = up->objs[k];
			nv[i].o = objs[i];
			snprintf(nv[i].o.name, sizeof(nv[i].o.name), "%s",
				 up->objs[k].o.name);
			up->objs[k].o.nmaps = 0;	/* moved */
			up->objs[k].syms = NULL;
			up->objs[k].nsyms = 0;
			continue;
		}
		nv[i].o = objs[i];
		usobj_load(&nv[i], up->pid);
	}
	for (int k = 0; k < up->nobj; k++)
		usobj_free(&up->objs[k]);
	free(up->objs);
	up->objs = nv;
	up->nobj = n;
	free(objs);
	return 0;
}

static struct usproc *usproc_get(pid_t pid)
{
	struct usproc *up;

	for (size_t i = 0; i < nusprocs; i++)
		if (usprocs[i].pid == pid)
			return &usprocs[i];
	usprocs = xrealloc(usprocs, (nusprocs + 1) * sizeof(*usprocs));
	up = &usprocs[nusprocs++];
	memset(up, 0, sizeof(*up));
	up->pid = pid;
	up->gone = usproc_read(up) < 0;
	return up;
}

void dt_usyms_load(pid_t pid)
{
	usproc_get(pid);
}

/*
 * Objects mapped since @pid was read (dlopen()): its maps read again,
 * at most once per 100 ms however many frames miss -- at every status
 * interval for the -c/-p process, and when a frame of a process seen
 * alive is in no object known.  A process gone keeps its last objects.
 */
void dt_usyms_refresh(pid_t pid)
{
	struct usproc *up = NULL;
	struct timespec now;

	for (size_t i = 0; i < nusprocs && !up; i++)
		if (usprocs[i].pid == pid)
			up = &usprocs[i];
	if (!up || up->gone)
		return;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if ((now.tv_sec - up->read.tv_sec) * 1000000000L +
	    (now.tv_nsec - up->read.tv_nsec) < 100000000L)
		return;
	usproc_read(up);
}

void dt_usym_format(pid_t pid, uint64_t pc, char *buf, size_t len)
{
	dt_usym_form(pid, pc, XDT_USYM_ADDR, buf, len);
}

/*
 * Where @pc of @pid is: its object (NULL: none maps it), and the symbol
 * at or below it with @pc's distance past it (NULL: none covers it).
 */
static const struct usobj *usym_find(struct usproc *up, uint64_t pc,
				     const struct usym **sym, uint64_t *past);

static const struct usobj *usym_lookup(pid_t pid, uint64_t pc,
				       const struct usym **sym, uint64_t *past)
{
	struct usproc *up = pid > 0 ? usproc_get(pid) : NULL;
	const struct usobj *so = usym_find(up, pc, sym, past);

	if (!so && up && !up->gone) {
		dt_usyms_refresh(pid);
		so = usym_find(up, pc, sym, past);
	}
	return so;
}

static const struct usobj *usym_find(struct usproc *up, uint64_t pc,
				     const struct usym **sym, uint64_t *past)
{
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
		snprintf(buf, len, "%s", obj_name(&so->o));
	else if (!sy)
		snprintf(buf, len, "%s`0x%llx", obj_name(&so->o),
			 (unsigned long long)pc);
	else if (!past || form != XDT_USYM_ADDR)
		snprintf(buf, len, "%s`%s", obj_name(&so->o), sy->name);
	else
		snprintf(buf, len, "%s`%s+0x%llx", obj_name(&so->o), sy->name,
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

/* ---- dtrace -c: a dynamic command run to its entry point ---------------- */
/*
 * dtrace -c holds its command, ptrace-stopped, at the first instruction
 * of its new image; of a dynamically linked program that is the
 * loader's, and the libraries the program needs are not mapped yet (the
 * loader maps them before it jumps to the program's entry point).  So the
 * command is run on to its entry point first (AT_ENTRY), where every
 * DT_NEEDED object is mapped, relocated and initialised -- DTrace's
 * default evaltime, postinit -- and before any code of the program
 * itself has run.  An instruction that stops it with the PC on it
 * (arch/<dir>/isa.toml [user] hold: ud2 on x86_64, an undefined word on
 * arm64 and riscv64) is written there through ptrace and taken out again
 * at the stop: no register is touched, and nothing but the PC's
 * instruction, which the stop's siginfo names, tells it from any other
 * signal, which is passed on.  The cost is one stop (docs/mechanisms.md).
 * A static program's first instruction is its own: nothing to do.
 */
#ifndef XDT_UHOLD
#define XDT_UHOLD	/* a machine xdt has no port for: not held */
#endif
static const unsigned char uhold[] = { XDT_UHOLD 0 };

int dt_uproc_to_entry(pid_t pid, char *err, size_t errlen)
{
	uint64_t entry = 0, base = 0, av[2];
	char path[64];
	long orig, word;
	int fd, sig = 0, status;
	siginfo_t si;

	snprintf(path, sizeof(path), "/proc/%d/auxv", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "failed to read %s: %s", path, strerror(errno));
		return -1;
	}
	while (read(fd, av, sizeof(av)) == (ssize_t)sizeof(av) && av[0] != AT_NULL) {
		if (av[0] == AT_ENTRY)
			entry = av[1];
		else if (av[0] == AT_BASE)
			base = av[1];
	}
	close(fd);
	if (!base || !entry || sizeof(uhold) == 1)
		return 0;	/* no loader: static */
	errno = 0;
	orig = ptrace(PTRACE_PEEKTEXT, pid, (void *)(uintptr_t)entry, NULL);
	word = orig;
	memcpy(&word, uhold, sizeof(uhold) - 1);
	if (errno || ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry,
			    (void *)word) < 0) {
		snprintf(err, errlen, "failed to stop process %d at its entry "
			 "point 0x%llx: %s", (int)pid, (unsigned long long)entry,
			 strerror(errno));
		return -1;
	}
	for (;;) {
		if (ptrace(PTRACE_CONT, pid, NULL, (void *)(long)sig) < 0 ||
		    waitpid(pid, &status, 0) != pid) {
			snprintf(err, errlen, "process %d: %s", (int)pid,
				 strerror(errno));
			return -1;
		}
		if (!WIFSTOPPED(status)) {
			snprintf(err, errlen, "process %d exited before its entry "
				 "point (its loader failed?)", (int)pid);
			return -1;
		}
		sig = WSTOPSIG(status);
		if ((sig == SIGILL || sig == SIGTRAP) &&
		    !ptrace(PTRACE_GETSIGINFO, pid, NULL, &si) &&
		    (uintptr_t)si.si_addr == entry)
			break;	/* there; the signal is dropped */
	}
	if (ptrace(PTRACE_POKETEXT, pid, (void *)(uintptr_t)entry,
		   (void *)orig) < 0) {
		snprintf(err, errlen, "process %d: failed to restore its entry "
			 "point: %s", (int)pid, strerror(errno));
		return -1;
	}
	return 0;
}

/* @name's address in @pid: the first mapped object that defines it; 0: none */
uint64_t dt_uproc_sym(pid_t pid, const char *name)
{
	struct uobj *objs = NULL;
	uint64_t addr = 0;
	char err[128];
	int nobj = 0;

	if (read_maps(pid, &objs, &nobj, err, sizeof(err)) < 0)
		return 0;
	for (int i = 0; i < nobj && !addr; i++) {
		struct symq q = { name, 0, 0 };
		struct elfimg e;
		uint64_t bias;

		if (obj_open(&e, &objs[i], pid) < 0)
			continue;
		elf_syms(&e, 1, symq_one, &q);
		if (q.found && elf_bias(&e, &objs[i], &bias) == 0)
			addr = bias + q.v;
		elf_close(&e);
	}
	free(objs);
	return addr;
}

/*
 * The loader's debugger hook in @pid: r_brk of its _r_debug (glibc's
 * <link.h> struct r_debug: int r_version, struct link_map *r_map, then
 * ElfW(Addr) r_brk -- offset 16 on every LP64 ISA), the function the
 * loader calls before and after it maps or unmaps an object, which
 * DTrace's rtld_db breaks on (RD_DLACTIVITY).  0: none (a static
 * program, a loader that does not export _r_debug, or not set up yet).
 */
uint64_t dt_uproc_rbrk(pid_t pid)
{
	uint64_t rd = dt_uproc_sym(pid, "_r_debug"), brk = 0;
	char path[64];
	int fd;

	if (!rd)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/mem", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (pread(fd, &brk, sizeof(brk), (off_t)(rd + 16)) != sizeof(brk))
		brk = 0;
	close(fd);
	return brk;
}
