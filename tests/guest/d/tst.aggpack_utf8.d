/* flags: -q */
/*
 * aggpack in Unicode blocks (U+2581..U+2588, eight levels), zoomed:
 * under aggzoom a row's tallest column is drawn at 95% of the full block.
 */
#pragma D option aggpack
#pragma D option aggzoom
#pragma D option encoding=utf8

BEGIN
{
	@["a"] = quantize(1, 1);
	@["a"] = quantize(2, 2);
	@["a"] = quantize(4, 3);
	@["a"] = quantize(8, 4);
	@["a"] = quantize(16, 5);
	@["a"] = quantize(32, 6);
	@["a"] = quantize(64, 7);
	@["a"] = quantize(128, 8);
	@["b"] = quantize(128, 100);
	exit(0);
}
