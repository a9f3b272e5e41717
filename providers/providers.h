/* SPDX-License-Identifier: GPL-2.0 */
/*
 * providers.h - what the providers share among themselves and with the
 * table that brings them up (providers.c); the core knows them only
 * through that table and struct xdt_provider_ops (xdt_impl.h).
 */
#ifndef XDT_PROVIDERS_H
#define XDT_PROVIDERS_H

#include <linux/types.h>

struct module;
struct xdt_state;
struct file;

int xdt_dtrace_provider_init(void);
void xdt_dtrace_provider_exit(void);
int xdt_fbt_init(void);
void xdt_fbt_exit(void);
int xdt_kinst_init(void);
void xdt_kinst_exit(void);
int xdt_profile_init(void);
void xdt_profile_exit(void);
int xdt_syscall_init(void);
void xdt_syscall_exit(void);
int xdt_rawtp_init(void);
void xdt_rawtp_exit(void);
int xdt_stable_init(void);
void xdt_stable_exit(void);
int xdt_pid_init(void);
void xdt_pid_exit(void);
long xdt_pid_ioctl(struct xdt_state *st, struct file *f, void __user *uarg);
long xdt_uhold_ioctl(struct xdt_state *st, struct file *f, void __user *uarg);

/* Why fbt and kinst leave a function alone, or NULL (providers/fbt.c). */
const char *xdt_text_excluded(const char *name, unsigned long addr,
			      struct module *mod);

#endif
