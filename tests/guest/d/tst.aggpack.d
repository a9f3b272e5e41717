/* flags: -q */
/*
 * aggpack (ASCII): quantize() columns span the buckets any key uses, one
 * either side; lquantize() shows all of its buckets; negative counts
 * (increments) draw as 'v'; sum() is not packed.
 * Expected output worked out by hand from DTrace's dt_print_packed rules.
 */
#pragma D option aggpack
#pragma D option encoding=ascii

BEGIN
{
	@q["a"] = quantize(1);
	@q["a"] = quantize(5, 2);
	@q["a"] = quantize(100);
	@q["bb"] = quantize(3000, 7);
	@q["bb"] = quantize(-4);
	@n[1] = quantize(1, 10);
	@n[1] = quantize(2, -3);
	@n[1] = quantize(4, 5);
	@n[1] = quantize(8, 1);
	@l[1, "x"] = lquantize(3, 0, 10, 2, 2);
	@l[1, "x"] = lquantize(7, 0, 10, 2);
	@l[2, "y"] = lquantize(11, 0, 10, 2);
	@l[3, "z"] = lquantize(-1, 0, 10, 2, 4);
	@z = quantize(0);
	@s["sum"] = sum(42);
	printa(@q);
	exit(0);
}
