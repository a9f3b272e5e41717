/* flags: -q */
/* >> is arithmetic on signed operands, logical on unsigned ones. */
BEGIN
{
	printf("%d %d\n", -16 >> 2, 16 >> 2);
	printf("%u\n", (unsigned)-16 >> 2);
	printf("%lld\n", (int64_t)-1 >> 63);
	printf("%llu\n", (uint64_t)-1 >> 63);
	printf("%d\n", 1 << 31);
	printf("%lld\n", 1LL << 40);
	/*
	 * a narrow unsigned operand promotes to int: an arithmetic shift,
	 * of the 64-bit value (DIF does not wrap at 32 bits as C does:
	 * DTrace prints 128 where C gives -128)
	 */
	c = (unsigned char)0x80;
	printf("%d\n", (c << 24) >> 24);
	u = 0x80000000U;
	printf("%u\n", u >> 31);
	exit(0);
}
