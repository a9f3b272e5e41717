/* flags: -q */
/*
 * C's types decide the DIF ops: unsigned division, shifts and
 * comparisons where an operand is unsigned (after the usual arithmetic
 * conversions), signed ones otherwise; narrowing casts and stores.
 */
uint8_t small;
int16_t sh;

BEGIN
{
	printf("%d %d\n", (uint64_t)-1 / 2 == 0x7fffffffffffffff, -7 / 2);
	printf("%d %d\n", -7 % 3, (unsigned int)-7 % 3);
	printf("%d %d\n", -16 >> 2, (uint64_t)-16 >> 60);
	printf("%d %d %d\n", -1 < 1, (unsigned)-1 < 1, -1 < 1u);
	printf("%d %d\n", (int64_t)-1 < 1, (uint64_t)-1 > 1);
	printf("%d %d %d\n", (char)0x1ff, (unsigned char)0x1ff, (short)0x18000);
	small = 300;
	sh = 0x12345;
	printf("%d %d\n", small, sh);
	x = 5;
	x += 3; printf("%d ", x);
	x -= 1; printf("%d ", x);
	x *= 4; printf("%d ", x);
	x /= 3; printf("%d ", x);
	x %= 5; printf("%d ", x);
	x <<= 4; printf("%d ", x);
	x >>= 2; printf("%d ", x);
	x |= 3; printf("%d ", x);
	x &= 6; printf("%d ", x);
	x ^= 5; printf("%d\n", x);
	y = 10;
	printf("%d %d %d %d %d\n", y++, y, ++y, y--, --y);
	printf("%d %d %d\n", 1 ^^ 0, 1 ^^ 1, 0 ? 5 : 6);
	printf("%d %d %d %d\n", "abc" < "abd", "b" > "abc", "x" <= "x", "a" >= "b");
	printf("%d %d\n", "same" == "same", execname != "dtrace");
	printf("%d %d\n", sizeof (int), sizeof (uint64_t));
	exit(0);
}
