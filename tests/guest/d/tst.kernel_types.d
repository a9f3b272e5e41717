/* flags: -q */
/* hostvm: kernel types are the guest kernel's BTF */
/*
 * Kernel types from the running kernel's BTF: curthread is the current
 * struct task_struct *, members chain through pointers (each load checked),
 * enumerators and typedefs are the kernel's, sizeof and offsetof work on
 * them, and a cast names any kernel struct.  Every line is 1 on every ISA.
 */
BEGIN
{
	printf("%d\n", curthread->pid == pid);
	printf("%d\n", curthread->tgid == pid);
	printf("%d\n", stringof(curthread->comm) == execname);
	printf("%d\n", curthread->real_parent->tgid == $ppid);
	printf("%d\n", ((struct task_struct *)curthread)->mm == curthread->mm);
	printf("%d\n", sizeof (curthread->comm) == TASK_COMM_LEN);
	printf("%d\n", offsetof(struct task_struct, pid) > 0);
	printf("%d\n", sizeof (struct task_struct) > offsetof(struct task_struct, comm));
	printf("%d\n", sizeof (pid_t) == 4 && sizeof (u64) == 8);
	printf("%d\n", curthread->cred->uid.val == uid);
	exit(0);
}
