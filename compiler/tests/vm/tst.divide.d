/* flags: -q */
/*
 * Division and remainder pick signed or unsigned ops from C's usual
 * arithmetic conversions, and truncate toward zero.
 */
BEGIN
{
	printf("%d %d %d %d\n", 7 / 2, -7 / 2, 7 / -2, -7 / -2);
	printf("%d %d %d %d\n", 7 % 2, -7 % 2, 7 % -2, -7 % -2);
	/*
	 * int with unsigned: an unsigned division of the 64-bit -7, printed
	 * as the unsigned int the result's type is (C: 2147483644)
	 */
	printf("%u\n", -7 / 2U);
	/* 64-bit: uint64_t operand makes it unsigned */
	printf("%llu\n", (uint64_t)-1 / 2);
	printf("%lld\n", (int64_t)-1 / 2);
	printf("%llu\n", (uint64_t)-8 % 3);
	printf("%lld\n", (int64_t)-8 % 3);
	/* the one signed overflow: INT64_MIN / -1 wraps as two's complement */
	x = (int64_t)0x8000000000000000;
	printf("%lld %lld\n", x / -1, x % -1);
	exit(0);
}
