/* flags: -q */
/*
 * Integer promotions, conversions and narrowing, as DTrace does them: C's
 * promotions choose the type (and so the operation), DIF computes in 64
 * bits, and a value is narrowed only by a cast, a store or its record's
 * width: (uint64_t)(0U - 1) keeps all 64 bits, where C wraps at 32.
 */
BEGIN
{
	/* int is 32 bits: it wraps there, long long does not */
	printf("%d\n", 0x7fffffff + 1);
	printf("%lld\n", 0x7fffffffLL + 1);
	/* char arithmetic is int arithmetic */
	a = (char)100;
	b = (char)100;
	printf("%d\n", a + b);
	/* a store narrows; the loaded value is sign- or zero-extended */
	this->c = (char)200;
	this->uc = (unsigned char)200;
	this->s = (short)70000;
	this->us = (unsigned short)70000;
	printf("%d %d %d %d\n", this->c, this->uc, this->s, this->us);
	printf("%u\n", (unsigned char)0xef);
	/* unsigned int wraps at 32 bits */
	printf("%u\n", 0U - 1);
	printf("%llu\n", (uint64_t)(0U - 1));
	/* sizeof follows the types */
	printf("%d %d %d %d\n", sizeof (char), sizeof (short), sizeof (1),
	    sizeof (1LL));
	exit(0);
}
