// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-rawprog: hand a deliberately malformed program object to /dev/xdt
 * through the raw ioctl, bypassing the compiler, and print the kernel's
 * verdict.  Proves the verifier refuses what the compiler would never
 * emit.  usage: xdt-rawprog backward-branch|bad-opcode|write-r0|bad-size
 *
 * It also runs the benchmark's xdt variants with no compiler in the way:
 *   xdt-rawprog count|empty PROV FUNC NAME CMD...
 * enables PROV::FUNC:NAME with a count() clause (count) or a clause with no
 * action at all (empty: what a firing costs before any action runs), runs
 * CMD, stops, and prints the probe count, the aggregation and xdt's
 * firing/trap/error counters.
 */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "xdt.h"
#include "dif.h"

struct blob {
	struct xdt_prog p;
	struct xdt_clause c;
	struct xdt_action a;
	struct xdt_difo d;
	__u32 insns[4];
};

static int count(int fd, struct blob *b, char **argv, int empty)
{
	struct xdt_enable req;
	struct xdt_status st;
	struct xdt_aggsnap snap;
	static char buf[1 << 16];
	long long n = 0;
	pid_t pid;
	int status;

	strncpy(b->c.desc.prov, argv[0], sizeof(b->c.desc.prov) - 1);
	memset(b->c.desc.name, 0, sizeof(b->c.desc.name));
	strncpy(b->c.desc.func, argv[1], sizeof(b->c.desc.func) - 1);
	strncpy(b->c.desc.name, argv[2], sizeof(b->c.desc.name) - 1);
	b->p.naggs = 1;
	b->a.kind = XDT_ACT_AGG;
	b->a.difo = -1;
	b->a.arg0 = 0;
	b->a.arg1 = XDT_AGG_COUNT;
	if (empty) {
		b->p.naggs = 0;
		b->p.nactions = 0;
		b->c.nactions = 0;
	}
	memset(&req, 0, sizeof(req));
	req.prog = (unsigned long)b;
	req.size = sizeof(*b);
	if (ioctl(fd, XDT_IOC_ENABLE, &req) < 0) {
		printf("refused: %s: %s\n", strerror(errno), req.err);
		return 1;
	}
	if (req.unmatched >= 0) {
		printf("no probe matched\n");
		return 1;
	}
	if (ioctl(fd, XDT_IOC_GO) < 0) {
		printf("go: %s\n", strerror(errno));
		return 1;
	}
	pid = fork();
	if (pid == 0) {
		execvp(argv[3], argv + 3);
		_exit(127);
	}
	waitpid(pid, &status, 0);
	if (ioctl(fd, XDT_IOC_STOP) < 0) {
		printf("stop: %s\n", strerror(errno));
		return 1;
	}
	memset(&snap, 0, sizeof(snap));
	snap.size = sizeof(buf);
	snap.buf = (unsigned long)buf;
	if (ioctl(fd, XDT_IOC_AGGSNAP, &snap) < 0) {
		printf("aggsnap: %s\n", strerror(errno));
		return 1;
	}
	if (snap.count) {
		struct xdt_aggent *e = (struct xdt_aggent *)buf;

		memcpy(&n, (char *)(e + 1) + e->keylen, 8);
	}
	ioctl(fd, XDT_IOC_STATUS, &st);
	printf("probes %u count %lld firings %llu traps %llu errors %llu\n",
	       req.nprobes, n, (unsigned long long)st.firings,
	       (unsigned long long)st.traps, (unsigned long long)st.errors);
	return 0;
}

int main(int argc, char **argv)
{
	struct blob b;
	struct xdt_enable req;
	const char *what = argc > 1 ? argv[1] : "backward-branch";
	int fd, ret;

	memset(&b, 0, sizeof(b));
	b.p.magic = XDT_PROG_MAGIC;
	b.p.version = XDT_ABI_VERSION;
	b.p.size = sizeof(b);
	b.p.nclauses = 1;
	b.p.clauses_off = offsetof(struct blob, c);
	b.p.nactions = 1;
	b.p.actions_off = offsetof(struct blob, a);
	b.p.ndifos = 1;
	b.p.difos_off = offsetof(struct blob, d);
	b.p.ninsns = 3;
	b.p.insns_off = offsetof(struct blob, insns);
	b.p.ints_off = sizeof(b);
	b.p.strtab_off = sizeof(b);
	strcpy(b.c.desc.prov, "dtrace");
	strcpy(b.c.desc.name, "BEGIN");
	b.c.pred = -1;
	b.c.nactions = 1;
	b.a.kind = XDT_ACT_RECORD;
	b.a.difo = 0;
	b.d.ninsns = 3;
	/* A valid shape: r1 = 0; if (r1 == 0) goto 2; ret r1 */
	b.insns[0] = DIF_INSN_R(DIF_OP_MOV, 0, 0, 1);
	b.insns[1] = DIF_INSN_B(DIF_OP_BZ, 1, 2);
	b.insns[2] = DIF_INSN_R(DIF_OP_RET, 0, 0, 1);
	if (!strcmp(what, "backward-branch"))
		b.insns[1] = DIF_INSN_B(DIF_OP_BZ, 1, 0);
	else if (!strcmp(what, "bad-opcode"))
		b.insns[0] = 0xee000001;
	else if (!strcmp(what, "write-r0"))
		b.insns[0] = DIF_INSN_R(DIF_OP_MOV, 1, 0, 0);
	else if (!strcmp(what, "bad-size"))
		b.p.size = sizeof(b) + 64;
	else if ((!strcmp(what, "count") || !strcmp(what, "empty")) &&
		 argc < 6) {
		fprintf(stderr, "usage: xdt-rawprog count|empty PROV FUNC NAME "
			"CMD...\n");
		return 2;
	} else if (strcmp(what, "valid") && strcmp(what, "count") &&
		   strcmp(what, "empty")) {
		fprintf(stderr, "xdt-rawprog: unknown case %s\n", what);
		return 2;
	}
	fd = open(XDT_DEVICE, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "xdt-rawprog: %s: %s\n", XDT_DEVICE,
			strerror(errno));
		return 1;
	}
	if (!strcmp(what, "count") || !strcmp(what, "empty"))
		return count(fd, &b, argv + 2, !strcmp(what, "empty"));
	memset(&req, 0, sizeof(req));
	req.prog = (unsigned long)&b;
	req.size = sizeof(b);
	ret = ioctl(fd, XDT_IOC_ENABLE, &req);
	if (ret < 0) {
		printf("refused: %s: %s\n", strerror(errno), req.err);
		return 1;
	}
	printf("accepted: %u probes\n", req.nprobes);
	return 0;
}
