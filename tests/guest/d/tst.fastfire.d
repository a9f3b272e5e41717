/* flags: -q -x aggrate=1ms -x switchrate=10ms */
/* cmd: /tmp/sysc getppid 20000 */
/*
 * A probe whose one clause only counts takes the fast firing (no context:
 * core/xdt_impl.h; one count inline, several in xdt_agg_counts); a probe
 * with two clauses takes the general one (tst.fastfire_general.d).
 * Both must count exactly, also across the ~hundreds of snapshots aggrate
 * takes meanwhile: after each, a CPU's first count has no slot yet and
 * the fast firing hands over to the general one, which makes it.  (Nothing
 * else in the guest calls getppid(2); a predicate would leave the fast
 * path, which is what this checks.)
 */
syscall::getppid:entry
{
	@fast = count();
}

syscall::getppid:return
{
	@fast2 = count();
	@fast3 = count();
}

END
{
	printa("fast %@d", @fast);
	printa(" %@d", @fast2);
	printa(" %@d\n", @fast3);
}
