// SPDX-License-Identifier: GPL-2.0
/*
 * xdt-runas: run a command as another user with exactly the capabilities
 * named, for the privilege tests (tests/guest/test_privileges.py,
 * docs/privileges.md).  Run as root:
 *
 *   xdt-runas UID GID CAPS CMD [ARG...]
 *
 * CAPS is "none" or a comma-separated list of capability names without
 * CAP_ (perfmon, sys_admin, ...) or numbers.  The command runs with real,
 * effective and saved uid UID and gid GID, no supplementary groups, and
 * CAPS as its permitted, effective, inheritable and ambient sets -- the
 * ambient set is what carries them across exec to a program with no file
 * capabilities (dtrace), since a non-root uid gets none from exec itself.
 * The bounding set is left alone.  No libcap: the raw syscalls, so it
 * builds statically for every guest ISA with nothing but libc.
 *
 * Exit status: the command's (it is exec'd), or 125 for a bad use and 126
 * when a step fails, with the step on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <linux/capability.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CAP_PERFMON
#define CAP_PERFMON	38
#endif
#ifndef CAP_BPF
#define CAP_BPF		39
#endif
#ifndef PR_CAP_AMBIENT
#define PR_CAP_AMBIENT			47
#define PR_CAP_AMBIENT_RAISE		2
#define PR_CAP_AMBIENT_CLEAR_ALL	4
#endif

#define LAST_CAP	40		/* CAP_CHECKPOINT_RESTORE, Linux 5.9+ */

static const struct {
	const char *name;
	int cap;
} names[] = {
	{ "chown", CAP_CHOWN },
	{ "dac_override", CAP_DAC_OVERRIDE },
	{ "dac_read_search", CAP_DAC_READ_SEARCH },
	{ "kill", CAP_KILL },
	{ "setuid", CAP_SETUID },
	{ "setgid", CAP_SETGID },
	{ "setpcap", CAP_SETPCAP },
	{ "sys_module", CAP_SYS_MODULE },
	{ "sys_ptrace", CAP_SYS_PTRACE },
	{ "sys_admin", CAP_SYS_ADMIN },
	{ "syslog", CAP_SYSLOG },
	{ "perfmon", CAP_PERFMON },
	{ "bpf", CAP_BPF },
};

static void die(const char *what)
{
	fprintf(stderr, "xdt-runas: %s: %s\n", what, strerror(errno));
	exit(126);
}

static void usage(void)
{
	fprintf(stderr, "usage: xdt-runas UID GID none|CAP[,CAP...] CMD [ARG...]\n");
	exit(125);
}

static int cap_number(const char *s)
{
	char *end;
	long v;
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(s, names[i].name))
			return names[i].cap;
	v = strtol(s, &end, 10);
	if (!*s || *end || v < 0 || v > LAST_CAP) {
		fprintf(stderr, "xdt-runas: unknown capability '%s'\n", s);
		exit(125);
	}
	return (int)v;
}

static uint64_t parse_caps(char *list)
{
	uint64_t mask = 0;
	char *tok, *save = NULL;

	if (!strcmp(list, "none"))
		return 0;
	for (tok = strtok_r(list, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save))
		mask |= 1ULL << cap_number(tok);
	return mask;
}

static unsigned long id_number(const char *s)
{
	char *end;
	unsigned long v = strtoul(s, &end, 10);

	if (!*s || *end)
		usage();
	return v;
}

int main(int argc, char **argv)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3, .pid = 0 };
	struct __user_cap_data_struct data[2];
	uid_t uid;
	gid_t gid;
	uint64_t mask;
	int c;

	if (argc < 5)
		usage();
	uid = (uid_t)id_number(argv[1]);
	gid = (gid_t)id_number(argv[2]);
	mask = parse_caps(argv[3]);

	/* keep the permitted set across the uid change ... */
	if (prctl(PR_SET_KEEPCAPS, 1, 0, 0, 0) < 0)
		die("PR_SET_KEEPCAPS");
	if (setgroups(0, NULL) < 0)
		die("setgroups");
	if (setresgid(gid, gid, gid) < 0)
		die("setresgid");
	if (setresuid(uid, uid, uid) < 0)
		die("setresuid");
	/* ... then cut it to @mask, which must also be inheritable ... */
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = data[0].inheritable =
		(uint32_t)mask;
	data[1].effective = data[1].permitted = data[1].inheritable =
		(uint32_t)(mask >> 32);
	if (syscall(SYS_capset, &hdr, data) < 0)
		die("capset");
	/* ... and ambient, so that exec keeps it */
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) < 0)
		die("PR_CAP_AMBIENT_CLEAR_ALL");
	for (c = 0; c <= LAST_CAP; c++)
		if ((mask >> c & 1) &&
		    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, c, 0, 0) < 0)
			die("PR_CAP_AMBIENT_RAISE");
	execvp(argv[4], argv + 4);
	fprintf(stderr, "xdt-runas: %s: %s\n", argv[4], strerror(errno));
	return errno == ENOENT ? 127 : 126;
}
