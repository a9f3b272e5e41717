/* flags: -q */
/*
 * BEGIN fires in dtrace itself: its ppid is dtrace's parent, the $ppid
 * macro, and differs from its pid.
 */
BEGIN
{
	printf("%d %d\n", ppid == $ppid, ppid != pid);
	exit(0);
}
