/* SPDX-License-Identifier: GPL-2.0 */
/* x86_64: one-byte int3 over the first byte of the displaced instruction. */
#ifndef XDT_ISA_H
#define XDT_ISA_H

#include <linux/types.h>

#define XDT_ISA_NAME		"x86_64"
typedef u8 xdt_patchval_t;
#define XDT_PATCHVAL		0xcc	/* int3 */

#endif
