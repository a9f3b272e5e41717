/* flags: -q */
/*
 * aggrate is how often the consumer empties the kernel's arenas, whatever
 * switchrate is: 300 bytes hold nine entries, and thirty keys come at
 * 20 ms, so they fit only if the snapshots come at aggrate (10 ms) --
 * with them at switchrate (1 s) the last twenty-one dropped.  The same
 * as DTrace's rates/tst.aggrate.d, ten times faster.
 */
#pragma D option aggsize=300
#pragma D option aggrate=10msec

int n;

tick-20msec
/n < 30/
{
	@a[n++] = sum(n);
}

tick-20msec
/n == 30/
{
	exit(0);
}

END
{
	printa("%10d %@d\n", @a);
}
