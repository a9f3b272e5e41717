/* flags: -q */
/* hostvm: the kernel's struct file and the D library are the guest's */
/* stderr: ^dtrace: error on enabled probe ID \d+ \(ID \d+: dtrace:::BEGIN\): invalid address \(0x[0-9a-f]+\) in action #1 */
/*
 * The D library's translators over a NULL pointer, as DTrace's: a
 * fileinfo_t of no file reads nothing ("<none>", offset and flags 0),
 * given the constant NULL or a pointer that is 0; a psinfo_t member that
 * does not read the task gives its value; one that does read through NULL
 * fires ERROR.
 */
BEGIN
{
	f = (struct file *)0;
	printf("%s %s %s %d %d\n", xlate<fileinfo_t *>(f)->fi_pathname,
	    xlate<fileinfo_t>(NULL).fi_fs, xlate<fileinfo_t *>(f)->fi_name,
	    xlate<fileinfo_t *>(f)->fi_offset,
	    xlate<fileinfo_t *>(NULL)->fi_oflags);
	printf("%d\n", xlate<psinfo_t *>(NULL)->pr_dmodel == PR_MODEL_LP64);
}

BEGIN
{
	trace(xlate<psinfo_t *>((struct task_struct *)0)->pr_pid);
}

ERROR
{
	printf("ERROR %d\n", arg4);
	exit(0);
}
