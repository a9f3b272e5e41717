/* flags: -q */
/* cmd: /tmp/sysc getppid 3 */
/* stderr: invalid address \(0x8\) in action #1 */
/* cpu: 0 */
/*
 * Struct keys in the kernel: a thread-local array and aggregations keyed
 * by a D struct built in each firing (12 bytes: a hex dump) and by a
 * kernel struct read through BTF (the task's kuid_t, 4 bytes: printed as
 * an int, as dt_print_datum() prints a 4-byte key).  A key read through a
 * bad address faults (ERROR) and tracing carries on.
 */
struct call {
	int n;
	char tag[6];
};
self struct call c;

syscall::getppid:entry
/pid == $target/
{
	self->c.n = self->c.n + 1;
	self->c.tag[0] = 'g';
	self->seen[self->c, curthread->cred->euid, "x"] = self->c.n * 10;
	@calls[self->c] = count();
	@uid[curthread->cred->euid, execname] = count();
}

syscall::getppid:return
/pid == $target/
{
	printf("call %d: %d %d\n", self->c.n,
	    self->seen[self->c, curthread->cred->euid, "x"],
	    self->seen[self->c, curthread->cred->euid, "y"]);
}

syscall::getppid:return
/pid == $target && self->c.n == 2/
{
	@bad[*(struct call *)8] = count();
	printf("not reached\n");
}

ERROR
{
	printf("ERROR: fault %d at %#x\n", arg4, arg5);
}

END
{
	printa(@calls);
	printa(@uid);
}
