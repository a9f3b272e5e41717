// SPDX-License-Identifier: GPL-2.0
/*
 * A long-lived libxdt user -- a Lua script, a tool that compiles program
 * after program -- must not grow: a handle's compiled program (its trees,
 * types, strings) goes with xdt_close(), while what the process caches
 * for every handle (the kernel's BTF and the types converted from it, the
 * base types) is made once.  Compiles and discards programs in a loop and
 * prints how much the heap grew over the second half of the loop
 * (mallinfo2: exact with glibc's per-thread cache off, as
 * tests/host/test_compiler.py runs it, GLIBC_TUNABLES=
 * glibc.malloc.tcache_count=0).
 *
 *   test_libxdt_mem plain N          open, compile, run on the host VM, close
 *   test_libxdt_mem kernel N VMLINUX LIBDIR
 *                                    two handles at once, in turn, with the
 *                                    kernel's types and the D library, and
 *                                    scripts declaring types of the
 *                                    kernel's names
 */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "libxdt.h"

static int discard(xdt_hdl_t *h, const struct xdt_record *r, void *arg)
{
	(void)h, (void)r, (void)arg;
	return 0;
}

static int plain(void)
{
	xdt_hdl_t *h = xdt_open();
	struct xdt_consumer c = { .record = discard };
	struct xdt_cerror e;

	if (!h)
		return -1;
	xdt_setopt(h, "hostvm", NULL);
	xdt_setopt(h, "quiet", NULL);
	if (xdt_compile(h, "struct s { int a; char b[8]; }; struct s v; "
			"BEGIN { @a[\"x\", 1] = count(); v.a = 2; "
			"x = strjoin(\"a\", \"b\"); printf(\"%s %d\\n\", x, v.a); "
			"exit(0); }", "p", 0, &e)) {
		printf("compile: %s\n", e.msg);
		return -1;
	}
	if (xdt_go(h)) {
		printf("go: %s\n", xdt_errmsg(h));
		return -1;
	}
	while (xdt_work(h, &c) == XDT_WORK_OKAY)
		;
	xdt_stop(h, &c);
	xdt_close(h);
	return 0;
}

/*
 * Kernel types the process caches, a script's own struct of a kernel
 * name (which the cache must not take), the D library: each handle's are
 * its own, and a closed handle's are gone while the other compiles on.
 */
static const char *const kprogs[] = {
	"struct task_struct { int mine; }; "
	"BEGIN { x = (struct task_struct *)0; trace(sizeof(*x)); }",
	"BEGIN { trace(curpsinfo->pr_pid); "
	"trace(((struct task_struct *)curthread)->pid); }",
	"enum pid_type { A }; BEGIN { trace(A); trace((struct file *)0); }",
	"fbt::vfs_read:entry { trace(args[0]->f_flags); "
	"trace(stringof(args[0]->f_path.dentry->d_name.name)); }",
};
#define NK (int)(sizeof(kprogs) / sizeof(kprogs[0]))

static int kernel(int i, const char *vmlinux, const char *libdir)
{
	xdt_hdl_t *h[2] = { xdt_open(), xdt_open() };
	struct xdt_cerror e;

	if (!h[0] || !h[1])
		return -1;
	for (int k = 0; k < 2; k++) {
		xdt_setopt(h[k], "vmlinux", vmlinux);
		xdt_setopt(h[k], "libdir", libdir);
	}
	/* h0, h1, h0; h0 closed; h1 again */
	for (int k = 0; k < 4; k++) {
		if (k == 3)
			xdt_close(h[0]);
		if (xdt_compile(h[k == 1 || k == 3], kprogs[(i + k) % NK], "k", 0, &e)) {
			printf("compile %d: %s\n", (i + k) % NK, e.msg);
			return -1;
		}
	}
	xdt_close(h[1]);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 2 ? atoi(argv[2]) : 0;
	size_t half = 0;

	if (argc < 3 || n < 2 || (strcmp(argv[1], "plain") && argc < 5)) {
		fprintf(stderr, "usage: %s plain|kernel N [VMLINUX LIBDIR]\n", argv[0]);
		return 2;
	}
	for (int i = 0; i < n; i++) {
		if (i == n / 2)
			half = mallinfo2().uordblks;
		if (!strcmp(argv[1], "plain") ? plain() : kernel(i, argv[3], argv[4]))
			return 1;
	}
	printf("%s: %d rounds, grew %lld bytes over the second half\n", argv[1], n,
	       (long long)mallinfo2().uordblks - (long long)half);
	return 0;
}
