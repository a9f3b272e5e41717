/* flags: -q */
/*
 * Comparisons: signed unless the converted operands are unsigned, so -1
 * is greater than 1U, but not than 1LL (int converts to long long).
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
