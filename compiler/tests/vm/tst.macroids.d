/* flags: -q */
/*
 * $projid and $taskid, the Solaris project and task of the dtrace process:
 * Linux has neither, so both are 0 (as procfs.d's pr_projid and pr_taskid,
 * and as FreeBSD's DTrace has them).  Macro variables are integer tokens,
 * so they work wherever a constant does.
 */
int a[2];

BEGIN
{
	a[$taskid + 1] = 7;
	printf("%d %d %d %d\n", $projid, $taskid, $projid + 1, a[1]);
	exit(0);
}
