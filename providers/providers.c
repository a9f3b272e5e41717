// SPDX-License-Identifier: GPL-2.0
/*
 * providers.c - the providers xdt.ko brings up, in this order at module
 * init (the core unwinds the ones before a failure, in reverse) and down in
 * reverse at exit.  Adding a provider is its file in providers/ and one row
 * here (docs/architecture.md, "Providers").  dtrace comes first: the core
 * fires its BEGIN, END and ERROR; stable last, as it claims instructions
 * fbt and kinst have listed.  pid's probes are made per process, by the
 * consumer's XDT_IOC_UPROBES (providers/pid.c).
 */
#include <linux/kernel.h>

#include "xdt_impl.h"
#include "providers.h"

const struct xdt_provider_module xdt_provider_modules[] = {
	{ "dtrace", xdt_dtrace_provider_init, xdt_dtrace_provider_exit },
	{ "fbt", xdt_fbt_init, xdt_fbt_exit },
	{ "kinst", xdt_kinst_init, xdt_kinst_exit },
	{ "profile", xdt_profile_init, xdt_profile_exit },
	{ "syscall", xdt_syscall_init, xdt_syscall_exit },
	{ "rawtp", xdt_rawtp_init, xdt_rawtp_exit },
	{ "stable", xdt_stable_init, xdt_stable_exit },
	{ "pid", xdt_pid_init, xdt_pid_exit, XDT_IOC_UPROBES, xdt_pid_ioctl },
	{ "pid-hold", NULL, NULL, XDT_IOC_UHOLD, xdt_uhold_ioctl },
};
const unsigned int xdt_nprovider_modules = ARRAY_SIZE(xdt_provider_modules);
