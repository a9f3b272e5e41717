/*
 * xdt's D library: DTrace's fault codes, what dtrace:::ERROR's arg4 holds
 * (DTrace's unistd.d), so an ERROR clause can say which fault it met:
 *
 *	ERROR /arg4 == DTRACEFLT_BADADDR/ { printf("bad address %p", arg5); }
 *
 * The values are xdt's enum xdt_fault_kind (core/uapi/xdt.h), which are
 * DTrace's; tests/host/test_hostvm.py checks the two agree.
 */
inline int DTRACEFLT_UNKNOWN = 0;	/* unknown fault */
inline int DTRACEFLT_BADADDR = 1;	/* bad address */
inline int DTRACEFLT_BADALIGN = 2;	/* bad alignment */
inline int DTRACEFLT_ILLOP = 3;		/* illegal operation */
inline int DTRACEFLT_DIVZERO = 4;	/* divide-by-zero */
inline int DTRACEFLT_NOSCRATCH = 5;	/* out of scratch space */
inline int DTRACEFLT_KPRIV = 6;		/* illegal kernel access */
inline int DTRACEFLT_UPRIV = 7;		/* illegal user access */
inline int DTRACEFLT_TUPOFLOW = 8;	/* tuple stack overflow */
inline int DTRACEFLT_BADSTACK = 9;	/* bad stack */
inline int DTRACEFLT_LIBRARY = 1000;	/* library-level fault */
