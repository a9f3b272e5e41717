/* flags: -q */
/* hostvm: kernel types are the guest kernel's BTF */
/* stderr: invalid address \(0x[0-9a-f]+\) in action #2 */
/*
 * A member chain through a bad pointer: the load of real_parent from a
 * struct task_struct at address 64 faults, fires ERROR with that address,
 * and the kernel carries on (END runs).
 */
BEGIN
{
	p = (struct task_struct *)64;
	printf("%d\n", p->real_parent->pid);
}

ERROR
{
	printf("ERROR %d %d\n", arg4, arg5 == 64 + offsetof(struct task_struct, real_parent));
	exit(0);
}

END
{
	printf("end\n");
}
