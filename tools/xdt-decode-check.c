// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-decode-check: run the x86-64 decoder (arch/x86_64/decode.c) over
 * every function of a vmlinux, or over hex byte strings.
 *
 *   xdt-decode-check [-s] [-f FUNC]... VMLINUX
 *	Walk every FUNC symbol with size > 0 in an executable section,
 *	instruction by instruction.  Prints, per function,
 *		@ FUNC ADDR SIZE [ALIAS...]
 *	then one line per instruction
 *		FUNC OFF LEN CLASS
 *	(OFF decimal, ADDR hex).  A BAD instruction prints LEN 0 and ends
 *	the walk of that function.  -s prints only the summary; -f limits
 *	the walk to the named functions.  The summary lines start with '#':
 *		# functions N / # instructions N / # bad N / # overrun N
 *		# class NAME N
 *	Aliases (same address and size) are walked once, under the first
 *	name in (address, size, name) order, and listed on the '@' line;
 *	-f matches any of them.
 *
 *   xdt-decode-check -x
 *	Read hex strings from stdin, one per line ("48 89 e5" or "4889e5"),
 *	print for each
 *		LEN CLASS opcode_len modrm_off rip_rel disp_off imm_off rel_size rel
 *
 * ELF is parsed by hand (ELF64 little-endian only): section headers,
 * .symtab and its string table.  Exit status: 0 on success, 2 on usage or
 * file errors.  The comparison with objdump is done by
 * qemu-tests/test_decoder.py.
 */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode.h"

struct func {
	const char *name;
	unsigned long long addr, size;
	const unsigned char *bytes;	/* in the file image */
};

static void die(const char *what, const char *path)
{
	fprintf(stderr, "xdt-decode-check: %s: %s\n", path, what);
	exit(2);
}

static unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *buf;
	long n;

	if (!f)
		die(strerror(errno), path);
	if (fseek(f, 0, SEEK_END))
		die("cannot seek", path);
	n = ftell(f);
	if (n < 0 || fseek(f, 0, SEEK_SET))
		die("cannot size file", path);
	buf = malloc((size_t)n + 1);
	if (!buf)
		die("out of memory", path);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n)
		die("short read", path);
	fclose(f);
	*len = (size_t)n;
	return buf;
}

static int cmp_func(const void *a, const void *b)
{
	const struct func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

static char obuf[1 << 20];	/* stdout buffer: ~1M lines for a vmlinux */

static int hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static int hex_mode(void)
{
	char line[512];
	struct xdt_insn in;

	while (fgets(line, sizeof(line), stdin)) {
		unsigned char b[64];
		size_t n = 0;
		int hi = -1;

		for (char *s = line; *s && n < sizeof(b); s++) {
			int v = hexval((unsigned char)*s);

			if (v < 0)
				continue;
			if (hi < 0) {
				hi = v;
			} else {
				b[n++] = (unsigned char)(hi << 4 | v);
				hi = -1;
			}
		}
		xdt_x86_decode(b, n, &in);
		printf("%u %s %u %u %u %u %u %u %d\n", in.len,
		       xdt_insn_class_name(in.cls), in.opcode_len, in.modrm_off,
		       in.rip_rel, in.disp_off, in.imm_off, in.rel_size,
		       (int)in.rel);
	}
	return 0;
}

int main(int argc, char **argv)
{
	unsigned long long counts[XDT_INSN_NCLASSES] = { 0 };
	unsigned long long ninsn = 0, nfunc = 0, nbad = 0, noverrun = 0;
	const char **only = NULL;
	int nonly = 0, summary = 0, i;
	const char *path = NULL;
	unsigned char *img;
	size_t len;
	Elf64_Ehdr eh;
	Elf64_Shdr sh, sym_sh, str_sh;
	struct func *funcs;
	size_t nfuncs = 0, nsyms, k, na;
	int have_symtab = 0;

	only = calloc((size_t)argc, sizeof(*only));
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "-x"))
			return hex_mode();
		if (!strcmp(argv[i], "-s"))
			summary = 1;
		else if (!strcmp(argv[i], "-f") && i + 1 < argc)
			only[nonly++] = argv[++i];
		else if (argv[i][0] != '-' && !path)
			path = argv[i];
		else
			die("usage: xdt-decode-check [-s] [-f FUNC]... VMLINUX | -x",
			    argv[i]);
	}
	if (!path)
		die("usage: xdt-decode-check [-s] [-f FUNC]... VMLINUX | -x",
		    "(no file)");
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));

	img = read_file(path, &len);
	if (len < sizeof(eh))
		die("not an ELF file", path);
	memcpy(&eh, img, sizeof(eh));
	if (memcmp(eh.e_ident, ELFMAG, SELFMAG) ||
	    eh.e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_machine != EM_X86_64)
		die("not an ELF64 little-endian x86-64 file", path);
	if (eh.e_shentsize != sizeof(Elf64_Shdr) ||
	    eh.e_shoff + (unsigned long long)eh.e_shnum * sizeof(sh) > len)
		die("bad section header table", path);

#define SHDR(idx, out) memcpy(&(out), img + eh.e_shoff + \
			      (size_t)(idx) * sizeof(Elf64_Shdr), sizeof(out))
	for (i = 0; i < eh.e_shnum; i++) {
		SHDR(i, sh);
		if (sh.sh_type == SHT_SYMTAB) {
			sym_sh = sh;
			SHDR(sh.sh_link, str_sh);
			have_symtab = 1;
		}
	}
	if (!have_symtab)
		die("no .symtab", path);
	if (sym_sh.sh_offset + sym_sh.sh_size > len ||
	    str_sh.sh_offset + str_sh.sh_size > len ||
	    sym_sh.sh_entsize != sizeof(Elf64_Sym))
		die("bad .symtab", path);

	nsyms = sym_sh.sh_size / sizeof(Elf64_Sym);
	funcs = calloc(nsyms ? nsyms : 1, sizeof(*funcs));
	if (!funcs)
		die("out of memory", path);
	for (k = 0; k < nsyms; k++) {
		Elf64_Sym s;
		Elf64_Shdr sec;
		const char *name;

		memcpy(&s, img + sym_sh.sh_offset + k * sizeof(s), sizeof(s));
		if (ELF64_ST_TYPE(s.st_info) != STT_FUNC || !s.st_size ||
		    s.st_shndx == SHN_UNDEF || s.st_shndx >= eh.e_shnum)
			continue;
		SHDR(s.st_shndx, sec);
		if (sec.sh_type != SHT_PROGBITS || !(sec.sh_flags & SHF_EXECINSTR))
			continue;
		if (s.st_value < sec.sh_addr ||
		    s.st_value + s.st_size > sec.sh_addr + sec.sh_size ||
		    sec.sh_offset + sec.sh_size > len)
			continue;
		if (s.st_name >= str_sh.sh_size)
			continue;
		name = (const char *)img + str_sh.sh_offset + s.st_name;
		funcs[nfuncs].name = name;
		funcs[nfuncs].addr = s.st_value;
		funcs[nfuncs].size = s.st_size;
		funcs[nfuncs].bytes = img + sec.sh_offset +
				      (s.st_value - sec.sh_addr);
		nfuncs++;
	}
#undef SHDR
	qsort(funcs, nfuncs, sizeof(*funcs), cmp_func);

	for (k = 0; k < nfuncs; k = na) {
		const struct func *f = &funcs[k];
		unsigned long long off = 0;
		size_t a;

		/* Aliases: same address and size, adjacent after the sort. */
		for (na = k + 1; na < nfuncs && funcs[na].addr == f->addr &&
		     funcs[na].size == f->size; na++)
			;
		if (nonly) {
			int j, hit = 0;

			for (a = k; a < na && !hit; a++)
				for (j = 0; j < nonly && !hit; j++)
					hit = !strcmp(only[j], funcs[a].name);
			if (!hit)
				continue;
		}
		nfunc++;
		if (!summary) {
			printf("@ %s %llx %llu", f->name, f->addr, f->size);
			for (a = k + 1; a < na; a++)
				printf(" %s", funcs[a].name);
			printf("\n");
		}
		while (off < f->size) {
			struct xdt_insn in;
			unsigned long long left = f->size - off;
			size_t avail = left > XDT_X86_MAX_INSN_LEN ?
				       XDT_X86_MAX_INSN_LEN : (size_t)left;
			int n = xdt_x86_decode(f->bytes + off, avail, &in);

			if (!summary)
				printf("%s %llu %d %s\n", f->name, off, n,
				       xdt_insn_class_name(in.cls));
			if (n <= 0) {
				/* Would it decode if we read past the end? */
				if (left < XDT_X86_MAX_INSN_LEN &&
				    f->bytes + off + XDT_X86_MAX_INSN_LEN <=
				    img + len &&
				    xdt_x86_decode(f->bytes + off,
						   XDT_X86_MAX_INSN_LEN, &in) > 0)
					noverrun++;
				nbad++;
				break;
			}
			counts[in.cls]++;
			ninsn++;
			off += (unsigned long long)n;
		}
	}
	printf("# functions %llu\n# instructions %llu\n# bad %llu\n"
	       "# overrun %llu\n", nfunc, ninsn, nbad, noverrun);
	for (i = 0; i < XDT_INSN_NCLASSES; i++)
		printf("# class %s %llu\n", xdt_insn_class_name(i), counts[i]);
	free(funcs);
	free(only);
	free(img);
	return 0;
}
