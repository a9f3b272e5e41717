/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host VM: xdt's portable core (DIF verifier and machine, variables,
 * firing, buffers, aggregations, program loading -- the very files xdt.ko
 * is built from) run in user space behind the same ioctl interface as
 * /dev/xdt, with the dtrace provider's BEGIN, END and ERROR as its only
 * probes.  libxdt uses it under `-x hostvm`: D semantics tested on the host
 * in milliseconds, printed by the same consumer code as in a guest.
 */
#ifndef XDT_HOSTVM_H
#define XDT_HOSTVM_H

struct xdt_hostvm;

struct xdt_hostvm *xdt_hostvm_open(void);
/* As ioctl(2) on /dev/xdt: 0 or more on success, -1 with errno set. */
int xdt_hostvm_ioctl(struct xdt_hostvm *vm, unsigned long cmd, void *arg);
void xdt_hostvm_close(struct xdt_hostvm *vm);

#endif
