/* SPDX-License-Identifier: GPL-2.0 */
/*
 * dt_version.h - the D language version xdt follows, on its own: cpp.c
 * (built alone by the preprocessor's tests) and dt_program.h include it.
 */
#ifndef XDT_DT_VERSION_H
#define XDT_DT_VERSION_H

/*
 * The D version xdt follows: DTrace's latest, 1.13 (illumos dt_open.c's
 * DT_VERS_LATEST).  dtrace -V prints DT_VERS_STRING as DTrace prints its
 * _dtrace_version; -C defines __SUNW_D_VERSION as DT_VERS_NUM, DTrace's
 * encoding (major << 24 | minor << 12 | micro).
 */
#define DT_VERS_MAJOR	1
#define DT_VERS_MINOR	13
#define DT_VERS_MICRO	0
#define DT_VERS_NUM	0x0100d000
#define DT_VERS_STR_(x)	#x
#define DT_VERS_STR(x)	DT_VERS_STR_(x)
#define DT_VERS_STRING	"Sun D " DT_VERS_STR(DT_VERS_MAJOR) "." DT_VERS_STR(DT_VERS_MINOR)
_Static_assert(DT_VERS_NUM == (DT_VERS_MAJOR << 24 | DT_VERS_MINOR << 12 |
			       DT_VERS_MICRO), "DT_VERS_NUM");

#endif
