#!/usr/sbin/dtrace -Cs
/*
 * dt_cpp: comments go, D's own tokens pass through, and the line markers
 * name this script and its header.
 */
#include "inc.h"
#define	VALUE	(FROM_HEADER + 1)
#if defined(__linux) && defined(__linux__) && defined(__unix) && \
    __SUNW_D == 1 && defined(__SUNW_D_64) && defined(_LP64) && \
    defined(__LP64__) && __SUNW_D_VERSION >= 0x01000000
#define	OS_OK	1
#endif
#if defined(__x86_64__) + defined(__aarch64__) + defined(__riscv) == 1
#define	ISA_OK	1
#endif

syscall::read:entry
PRED("wc")
/$1 > 0 && `max_pid > 0/	// a C++ comment
{
	self->x = VALUE; @a[probefunc, $$2] = count();
	printf("%s %d %c\n", `kernel_name, OS_OK + ISA_OK, 'a');
	this->p = &`utsname; trace(this->p->sysname); /* D's -> and & */
}

#ifdef GONE
gone();
#endif
tick-1s
/KEPT == 7/
{
	exit(0);
}
