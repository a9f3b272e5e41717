// SPDX-License-Identifier: GPL-2.0
/*
 * The dtrace provider: BEGIN (fired by GO before any other probe is
 * patched in), END (fired by STOP after every other probe is out) and ERROR
 * (described by the records core/portable/firing.c writes for a fault).  None has a
 * patch site: the framework fires them itself.
 */
#include "xdt_impl.h"
#include "providers.h"

struct xdt_probe *xdt_probe_begin, *xdt_probe_end, *xdt_probe_error;

static const struct xdt_provider_ops dtrace_ops = { 0 };

static struct xdt_provider dtrace_provider = {
	.name = "dtrace",
	.ops = &dtrace_ops,
};

int xdt_dtrace_provider_init(void)
{
	xdt_provider_register(&dtrace_provider);
	mutex_lock(&xdt_lock);
	xdt_probe_begin = xdt_probe_create(&dtrace_provider, "", "", "BEGIN",
					   NULL);
	xdt_probe_end = xdt_probe_create(&dtrace_provider, "", "", "END", NULL);
	xdt_probe_error = xdt_probe_create(&dtrace_provider, "", "", "ERROR",
					   NULL);
	mutex_unlock(&xdt_lock);
	if (!xdt_probe_begin || !xdt_probe_end || !xdt_probe_error) {
		xdt_provider_unregister(&dtrace_provider);
		return -ENOMEM;
	}
	return 0;
}

void xdt_dtrace_provider_exit(void)
{
	xdt_provider_unregister(&dtrace_provider);
}
