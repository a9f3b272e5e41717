/* flags: -q */
/*
 * printa() without and with a format, %@ and keys as its arguments, two
 * aggregations joined on their keys; normalize()/denormalize(); trunc()
 * keeping the largest and the smallest; clear().  Each acts on the totals
 * the consumer had when it reached the record (DTrace's model), which
 * after BEGIN are all of BEGIN's.  What printa() printed the end does not
 * print again.
 */
BEGIN
{
	@c["a"] = count();
	@c["b"] = count(); @c["b"] = count();
	@c["c"] = count(); @c["c"] = count(); @c["c"] = count();
	@c["d"] = count(); @c["d"] = count(); @c["d"] = count(); @c["d"] = count();
	@s["a"] = sum(100); @s["c"] = sum(-5); @s["e"] = sum(7);
	@q = lquantize(3, 0, 10, 1);
	@q = lquantize(5, 0, 10, 1, 3);
	@left = max(42);

	printa(@c);
	printa("%s=%@d\n", @c);
	printa("%-4s %@8d %@8d\n", @c, @s);
	normalize(@c, 2);
	printa("normalized %s %@d\n", @c);
	denormalize(@c);
	printa("denormalized %s %@d\n", @c);
	trunc(@c, 2);
	printa("top2 %s %@d\n", @c);
	trunc(@s, -1);
	printa("bottom1 %s %@d\n", @s);
	clear(@s);
	printa("cleared %s %@d\n", @s);
	printa("q:%@d\n", @q);
	trunc(@c);
	printa("none %s %@d\n", @c);
	exit(0);
}
