/* flags: -q -x dynvarsize=2k */
/* cmd: /tmp/sysc threads 2 300 */
/* stderr: dynamic variable drop */
/*
 * More live dynamic variables than the space holds: allocation fails,
 * is counted and reported as DTrace reports it, and nothing breaks.
 */
syscall::read:entry
/execname == "sysc"/
{
	big[tid, timestamp] = 1;
	@calls = count();
}
