// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-kvars: the kernel's global variables, their C types and link-time
 * addresses, from a vmlinux's DWARF, one "name<TAB>type<TAB>address" line
 * each, after a "#_text<TAB>address" line -- the type source for D's `name
 * kernel variables.  The consumer moves the addresses by the running
 * kernel's _text (KASLR), so reading one costs a look at the top of
 * /proc/kallsyms rather than a scan of all of it (140 ms under TCG).
 *
 * Why not BTF: pahole 1.24 (Debian's, which builds the lab kernels) writes
 * only per-CPU variables into BTF (global ones came with pahole 1.26's
 * global_var feature), so the running kernel's /sys/kernel/btf/vmlinux
 * cannot type `jiffies_64.  The build runs this once per kernel tree
 * (tools/build-kernel.sh) and the guest gets the table beside the D library
 * (/usr/lib/xdt/vmlinux.vars); the types it names are then read from BTF
 * by name like any other kernel type.  gdb's "info variables" gives the
 * same facts but took 2 minutes per kernel; libdw takes seconds.
 *
 * Only definitions of external (non-static) variables: what D's `name
 * means.  Per-CPU variables are left out: their symbol is an offset into
 * each CPU's area, and `name has no CPU to choose.  A variable whose type cannot be written as a D type name (a
 * function, an anonymous struct) is left out; `name then says it has no
 * type.  Qualifiers are dropped (D reads, it never writes kernel memory).
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Append the D spelling of @die's type to @buf; 0 if it has none. */
static int render(Dwarf_Die *die, char *buf, size_t cap, int depth)
{
	Dwarf_Attribute a;
	Dwarf_Die base, sub;
	const char *name = dwarf_diename(die);
	size_t n = strlen(buf);
	int has_base;

	if (depth > 16)
		return 0;
	has_base = dwarf_attr_integrate(die, DW_AT_type, &a) &&
		   dwarf_formref_die(&a, &base);
	switch (dwarf_tag(die)) {
	case DW_TAG_base_type:
	case DW_TAG_typedef:
		if (!name)
			return 0;
		snprintf(buf + n, cap - n, "%s", name);
		return 1;
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_enumeration_type:
		if (!name)
			return 0;
		snprintf(buf + n, cap - n, "%s %s",
			 dwarf_tag(die) == DW_TAG_structure_type ? "struct" :
			 dwarf_tag(die) == DW_TAG_union_type ? "union" : "enum",
			 name);
		return 1;
	case DW_TAG_const_type:
	case DW_TAG_volatile_type:
	case DW_TAG_restrict_type:
		if (!has_base) {
			snprintf(buf + n, cap - n, "void");
			return 1;
		}
		return render(&base, buf, cap, depth + 1);
	case DW_TAG_pointer_type:
		/* pointers to functions, and to what D cannot name: void * */
		if (!has_base || dwarf_tag(&base) == DW_TAG_subroutine_type ||
		    !render(&base, buf, cap, depth + 1)) {
			buf[n] = '\0';
			snprintf(buf + n, cap - n, "void *");
			return 1;
		}
		n = strlen(buf);
		snprintf(buf + n, cap - n, " *");
		return 1;
	case DW_TAG_array_type:
		if (!has_base || !render(&base, buf, cap, depth + 1))
			return 0;
		if (dwarf_child(die, &sub) == 0) {
			do {
				Dwarf_Word ub;

				if (dwarf_tag(&sub) != DW_TAG_subrange_type)
					continue;
				n = strlen(buf);
				if (dwarf_attr(&sub, DW_AT_upper_bound, &a) &&
				    !dwarf_formudata(&a, &ub))
					snprintf(buf + n, cap - n, "[%llu]",
						 (unsigned long long)ub + 1);
				else
					return 0;	/* [] (a flexible array) */
			} while (dwarf_siblingof(&sub, &sub) == 0);
		}
		return 1;
	default:
		return 0;
	}
}

/* [lo, hi) of the per-CPU section (.data..percpu), or 0, 0 */
static void percpu_range(Dwarf *dw, GElf_Addr *lo, GElf_Addr *hi)
{
	Elf *elf = dwarf_getelf(dw);
	Elf_Scn *scn = NULL;
	size_t shstrndx;

	*lo = *hi = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		return;
	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			continue;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (name && !strcmp(name, ".data..percpu")) {
			*lo = sh.sh_addr;
			*hi = sh.sh_addr + sh.sh_size;
		}
	}
}

/* The address of the symbol @want in the ELF symbol table, or 0. */
static GElf_Addr elf_symbol(Elf *elf, const char *want)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_SYMTAB ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym sym;
			const char *name;

			if (!gelf_getsym(data, (int)i, &sym))
				continue;
			name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (name && !strcmp(name, want))
				return sym.st_value;
		}
	}
	return 0;
}

/* The variable's static address (DW_OP_addr), or 0. */
static Dwarf_Word var_addr(Dwarf_Die *d)
{
	Dwarf_Attribute a;
	Dwarf_Op *ops;
	size_t n;

	if (!dwarf_attr(d, DW_AT_location, &a) ||
	    dwarf_getlocation(&a, &ops, &n) || n < 1 || ops[0].atom != DW_OP_addr)
		return 0;
	return ops[0].number;
}

int main(int argc, char **argv)
{
	GElf_Addr pcpu_lo, pcpu_hi;
	Dwarf_CU *unit = NULL;
	Dwarf_Die cu;
	uint8_t type;
	Dwarf *dw;
	int fd;

	if (argc != 2) {
		fprintf(stderr, "usage: xdt-kvars VMLINUX\n");
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	dw = fd < 0 ? NULL : dwarf_begin(fd, DWARF_C_READ);
	if (!dw) {
		fprintf(stderr, "xdt-kvars: %s: no DWARF\n", argv[1]);
		return 1;
	}
	/* every unit, DWARF 5's too (dwarf_nextcu stops at their headers) */
	percpu_range(dw, &pcpu_lo, &pcpu_hi);
	printf("#_text\t%llx\n",
	       (unsigned long long)elf_symbol(dwarf_getelf(dw), "_text"));
	while (dwarf_get_units(dw, unit, &unit, NULL, &type, &cu, NULL) == 0) {
		Dwarf_Die d;

		if (type != DW_UT_compile && type != DW_UT_partial)
			continue;
		if (dwarf_child(&cu, &d) == 0) {
			do {
				Dwarf_Attribute a;
				Dwarf_Die t;
				bool ext = false;
				char buf[512] = "";
				const char *name;

				if (dwarf_tag(&d) != DW_TAG_variable ||
				    !dwarf_hasattr(&d, DW_AT_location))
					continue;
				name = dwarf_diename(&d);
				if (!name || !dwarf_attr_integrate(&d, DW_AT_external, &a) ||
				    dwarf_formflag(&a, &ext) || !ext)
					continue;
				if (var_addr(&d) >= pcpu_lo && var_addr(&d) < pcpu_hi)
					continue;	/* per-CPU */
				if (dwarf_attr_integrate(&d, DW_AT_type, &a) &&
				    dwarf_formref_die(&a, &t) &&
				    render(&t, buf, sizeof(buf), 0))
					printf("%s\t%s\t%llx\n", name, buf,
					       (unsigned long long)var_addr(&d));
			} while (dwarf_siblingof(&d, &d) == 0);
		}
	}
	dwarf_end(dw);
	close(fd);
	return 0;
}
