/* cmd: cat /xdt-no-such-file */
/* stderr: No such file */
/* cpu: 0 */
/*
 * The D library's constants, Linux's values for this ISA (made by the
 * build from its uapi headers, installed in /usr/lib/xdt): printed, and
 * used as a script uses them -- a failed open(2) or openat(2)'s errno against ENOENT.
 * dtrace and its command run on one CPU, so BEGIN's lines come first.
 * (The host VM has no /usr/lib/xdt: tests/host/test_hostvm.py has its own.)
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d %d %d %d %d %d\n", SIGHUP, SIGINT, SIGKILL, SIGUSR1,
	    SIGTERM, SIGCHLD, SIGRTMIN);
	printf("%d %d %d %d %d\n", EPERM, ENOENT, EAGAIN, EINVAL, ENOSYS);
	printf("%d %d %d %d\n", O_RDONLY, O_CREAT, SI_USER, CLD_EXITED);
	printf("%d %d\n", DTRACEFLT_BADADDR, DTRACEFLT_DIVZERO);
}

syscall::open*:return
/pid == $target && errno == ENOENT/
{
	printf("open: ENOENT (%d)\n", errno);
	exit(0);
}
