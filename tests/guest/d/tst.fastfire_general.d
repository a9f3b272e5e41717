/* flags: -q -x aggrate=1ms -x switchrate=10ms */
/* cmd: /tmp/sysc getppid 20000 */
/*
 * The general firing of the same counts as tst.fastfire.d: two clauses on
 * each probe, so neither takes the fast firing (one ECB only), across the
 * same snapshots.  The two tests' totals must agree.
 */
syscall::getppid:entry
{
	@general = count();
}

syscall::getppid:entry
{
	@general2 = count();
}

syscall::getppid:return
{
	@general3 = count();
}

syscall::getppid:return
{
	@general4 = count();
	@general5 = count();
}

END
{
	printa("general %@d", @general);
	printa(" %@d", @general2);
	printa(" %@d", @general3);
	printa(" %@d", @general4);
	printa(" %@d\n", @general5);
}
