/* flags: -q */
/* hostvm: kernel variables are the guest kernel's */
/*
 * Kernel variables by `name and vmlinux`name: their types from the table
 * the build extracts from DWARF (vmlinux.vars: 6.1's BTF has no global
 * variables), their addresses from /proc/kallsyms; the same on every ISA.
 */
BEGIN
{
	printf("%d\n", `nr_cpu_ids >= 1 && `nr_cpu_ids <= 8);
	printf("%d\n", `jiffies_64 > 0);
	printf("%s\n", stringof(`init_task.comm));
	printf("%d\n", `init_task.pid);
	printf("%d\n", vmlinux`nr_threads > 0);
	printf("%s\n", stringof(`init_uts_ns.name.sysname));
	printf("%d\n", sizeof (`init_task) == sizeof (struct task_struct));
	printf("%d\n", &`init_task == curthread->real_parent->real_parent ||
	    `init_task.pid == 0);
	exit(0);
}
