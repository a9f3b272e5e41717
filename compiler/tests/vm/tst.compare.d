/* flags: -q */
/*
 * Comparisons: signed unless the promoted type is unsigned, so -1 is
 * greater than 1U, but not than 1LL; of the 64-bit values as they are,
 * as DTrace compares (dt_cg_compare_signed): -1 == 0xffffffffU is false
 * in D, where C converts -1 to 0xffffffff first.
 */
BEGIN
{
	printf("%d %d %d\n", -1 < 1, -1 < 1U, -1 < 1LL);
	printf("%d %d\n", -1 > 0U, (int64_t)-1 > (uint64_t)0);
	printf("%d %d %d\n", 2 <= 2, 3 >= 4, -5 >= -5);
	printf("%d %d\n", 1 == 1U, -1 == 0xffffffffU);
	/* a narrow unsigned promotes to int: signed compare */
	c = (unsigned char)200;
	printf("%d\n", c > -1);
	printf("%d %d\n", !0, !5);
	printf("%d %d %d\n", 1 && 0, 1 || 0, 1 ^^ 1);
	exit(0);
}
