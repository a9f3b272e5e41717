/* flags: -q */
/*
 * lquantize, llquantize and quantize of a known input: a counter i =
 * 0..19, one value per tick; with increments (quantize's second argument,
 * lquantize's fifth, llquantize's sixth), and with negative increments,
 * whose bars DTrace draws right-aligned left of the line.
 */

int i;
tick-1ms
/i < 20/
{
	@lq = lquantize(i, 0, 10, 2);
	@llq = llquantize(i * 7, 2, 1, 4, 4);
	@q["by value", i % 2] = quantize(i - 10, 3);
	@neg = lquantize(i, 5, 15, 5, -1);
	@mixed = lquantize(i, 0, 20, 5, i < 10 ? -1 : 1);
	i++;
}

tick-1ms
/i == 20/
{
	exit(0);
}
