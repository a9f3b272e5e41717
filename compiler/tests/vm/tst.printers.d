/* flags: -q */
/*
 * The aggregation printers on fixed data, as DTrace lays them out: a
 * quantize like DTrace's read(2) sizes example, one with negative
 * values, and the default layout of count(), sum() with an integer and
 * a string key, avg() and a keyed quantize(), each aggregation sorted by
 * value.
 */
BEGIN
{
	@sizes = quantize(0, 23); @sizes = quantize(1, 41); @sizes = quantize(2, 1);
	@sizes = quantize(4, 19); @sizes = quantize(8, 4); @sizes = quantize(16, 2);
	@sizes = quantize(32, 6); @sizes = quantize(64, 9); @sizes = quantize(128, 12);
	@sizes = quantize(256, 20); @sizes = quantize(512, 9); @sizes = quantize(1024, 12);
	@sizes = quantize(2048, 4); @sizes = quantize(4096, 4); @sizes = quantize(8192, 3);
	@signed = quantize(-4, 2); @signed = quantize(1, 6);
	@calls["strncmp"] = sum(252); @calls["memset"] = sum(69); @calls["free"] = sum(104);
	@bytes[42ll, "cat"] = sum(4096);
	@avg = avg(3); @avg = avg(3); @avg = avg(4);
	@q["sshd"] = quantize(2); @q["sshd"] = quantize(3); @q["sshd"] = quantize(3);
	@q["sshd"] = quantize(8);
	exit(0);
}
