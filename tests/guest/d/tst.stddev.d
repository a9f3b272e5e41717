/* flags: -q */
/*
 * stddev() as DTrace computes it: sqrt(avg(x^2) - avg(x)^2) in integers,
 * the sum of squares kept in 128 bits (values of 1e12 square past 64).
 */
BEGIN
{
	@a = stddev(2); @a = stddev(4); @a = stddev(4); @a = stddev(4);
	@a = stddev(5); @a = stddev(5); @a = stddev(7); @a = stddev(9);
	@b["one"] = stddev(-3);
	@b["big"] = stddev(1000000000000);
	@b["big"] = stddev(-1000000000000);
	@b["mixed"] = stddev(10);
	@b["mixed"] = stddev(20);
	@b["mixed"] = stddev(-30);
	exit(0);
}
