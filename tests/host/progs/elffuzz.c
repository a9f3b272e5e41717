/* SPDX-License-Identifier: GPL-2.0 */
/*
 * elffuzz - libxdt's ELF reader (libxdt/uproc.c: the pid provider's
 * symbols and ustack()'s names) over mutated copies of a real ELF file,
 * built with ASan and UBSan by tests/host/test_uproc_host.py.  The files
 * it reads are the traced process's, not dtrace's: every offset and size
 * in them must be checked before use.  The reader's functions are static,
 * so the file is included whole rather than given a test hook.
 *
 *   elffuzz FILE N SEED TMPFILE
 */
#include "../../../libxdt/uproc.c"

static unsigned long long rs;

static unsigned long long rnd(void)
{
	rs ^= rs << 13;
	rs ^= rs >> 7;
	rs ^= rs << 17;
	return rs;
}

static unsigned long nsyms;

static void count(void *ctx, const char *name, uint64_t v, uint64_t size)
{
	(void)ctx;
	(void)v;
	(void)size;
	nsyms += strlen(name) > 0;
}

/* The USDT notes of @e that a description of provider @prov names. */
static unsigned long usdt_walk(struct elfimg *e, const char *prov, int print)
{
	struct uobj o = { .nmaps = 1, .maps = { { 0x1000, 1ull << 47, 0 } } };
	struct ubatch b = { .fd = -1 };
	struct xdt_probedesc d;
	struct funcs_ctx c = { .b = &b, .d = &d, .o = &o, .e = e, .mod = "m" };
	unsigned long n;

	memset(&d, 0, sizeof(d));
	snprintf(b.prov, sizeof(b.prov), "%s", prov);
	elf_usdt(&c);
	for (size_t i = 0; print && i < b.n; i++) {
		printf("%s:%s refctr=%d", b.v[i].func, b.v[i].name,
		       b.v[i].refctr != 0);
		for (unsigned k = 0; k < b.v[i].nargs; k++)
			printf(" %d:%u:%s:%lld", b.v[i].args[k].size,
			       b.v[i].args[k].kind, b.v[i].args[k].reg,
			       (long long)b.v[i].args[k].off);
		printf("\n");
	}
	n = b.n;
	free(b.v);
	return n;
}

int main(int argc, char **argv)
{
	unsigned long n, i, opened = 0, usdt = 0, sonames = 0;
	char soname[256];
	unsigned char *orig, *buf;
	size_t len;
	FILE *f;

	/* elffuzz --notes FILE PROV: the probes of PROV's notes, parsed */
	if (argc == 4 && !strcmp(argv[1], "--notes")) {
		struct elfimg e;

		if (elf_open(&e, argv[2]) < 0)
			return 2;
		usdt_walk(&e, argv[3], 1);
		elf_close(&e);
		return 0;
	}
	/* elffuzz --operand OP...: each operand as the kernel gets it */
	if (argc >= 3 && !strcmp(argv[1], "--operand")) {
		for (int k = 2; k < argc; k++) {
			struct xdt_uarg a;

			memset(&a, 0, sizeof(a));
			usdt_operand(argv[k], &a, NULL);
			printf("%s -> %u:%s:%lld\n", argv[k], a.kind, a.reg,
			       (long long)a.off);
		}
		return 0;
	}
	if (argc != 5)
		return 2;
	f = fopen(argv[1], "rb");
	if (!f)
		return 2;
	fseek(f, 0, SEEK_END);
	len = (size_t)ftell(f);
	fseek(f, 0, SEEK_SET);
	orig = malloc(len);
	buf = malloc(len);
	if (!orig || !buf || fread(orig, 1, len, f) != len)
		return 2;
	fclose(f);
	n = strtoul(argv[2], NULL, 0);
	rs = strtoull(argv[3], NULL, 0) | 1;
	for (i = 0; i < n; i++) {
		const Elf64_Ehdr *eh = (const Elf64_Ehdr *)orig;
		unsigned k, nmut = 1 + rnd() % 8;
		size_t flen = len;
		struct elfimg e;

		memcpy(buf, orig, len);
		for (k = 0; k < nmut; k++) {
			/* where the reader looks: headers, tables, anywhere */
			size_t at;

			switch (rnd() % 4) {
			case 0: at = rnd() % sizeof(Elf64_Ehdr); break;
			case 1: at = eh->e_shoff + rnd() % (eh->e_shnum * 64u + 1); break;
			case 2: at = eh->e_phoff + rnd() % (eh->e_phnum * 56u + 1); break;
			default: at = rnd() % len; break;
			}
			if (at >= len)
				continue;
			if (rnd() & 1) {
				buf[at] = (unsigned char)rnd();
			} else {
				unsigned long long v = rnd() % 3 ? rnd() :
						       (rnd() & 1 ? ~0ull : len + (rnd() % 64));

				memcpy(buf + at, &v, at + 8 <= len ? 8 : len - at);
			}
		}
		if (rnd() % 16 == 0)
			flen = rnd() % len;	/* truncated */
		f = fopen(argv[4], "wb");
		if (!f || fwrite(buf, 1, flen, f) != flen)
			return 2;
		fclose(f);
		if (elf_open(&e, argv[4]) == 0) {
			uint64_t off;

			opened++;
			elf_funcs(&e, count, NULL);
			elf_soname(&e, soname, sizeof(soname));
			sonames += soname[0] && elf_has_symtab(&e);
			elf_v2off(&e, rnd() % (1ull << 24), &off);
			usdt += usdt_walk(&e, "xdt_usdt", 0);
			elf_close(&e);
		}
		{
			/* ustack()'s loader: segments, symbols sorted, sized */
			struct usobj so;

			memset(&so, 0, sizeof(so));
			snprintf(so.o.path, sizeof(so.o.path), "%s", argv[4]);
			usobj_load(&so, 0);
			for (size_t s = 0; s < so.nsyms; s++)
				free(so.syms[s].name);
			free(so.syms);
		}
	}
	printf("elffuzz: %lu files, %lu opened, %lu symbols, %lu usdt, "
	       "%lu sonames\n", n, opened, nsyms, usdt, sonames);
	free(orig);
	free(buf);
	return 0;
}
