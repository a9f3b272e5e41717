/* flags: -q -x switchrate=20ms -x aggrate=20ms */
/* cmd: /tmp/sysc threads 4 500 */
/*
 * Aggregation totals across kernel snapshots and CPUs: 4 threads make 500
 * reads each, on both CPUs, while the consumer takes a snapshot (aggrate) about
 * every 20 ms (each empties the kernel's arenas and is added to the
 * consumer's totals); every total must still be exact.
 */
syscall::read:entry
/execname == "sysc"/
{
	@n = count();
	@q = lquantize(self->i++, 0, 500, 100);
	@s = sum(2);
	@m = max(self->i);
}

END
{
	printa("%@d reads, sum %@d, max %@d\n", @n, @s, @m);
}
