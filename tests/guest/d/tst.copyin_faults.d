/* flags: -q */
/* cmd: /tmp/sysc openat-untouched 1 */
/* stderr: invalid address */
/*
 * User memory that is not there is a fault reported through ERROR, never
 * a sleep in probe context: NULL, a kernel address, and a page of a
 * mapping nothing has touched yet (the kernel's own copy of the path
 * faults it in only after the probe has fired).  Each clause's fault is
 * its own; the syscall goes on.
 */
syscall::openat:entry
/pid == $target/
{
	printf("%s\n", copyinstr(0));
}

syscall::openat:entry
/pid == $target/
{
	/* kernel half of the address space on every ISA */
	printf("%s\n", copyinstr(0xffffffffffff0000));
}

syscall::openat:entry
/pid == $target/
{
	printf("untouched: %s\n", copyinstr(arg1));
}

syscall::openat:return
/pid == $target/
{
	printf("returned %d\n", (int)arg1 < 0);
}

ERROR
{
	printf("ERROR %d\n", arg4);
}
