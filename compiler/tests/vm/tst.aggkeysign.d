/* flags: -q */
/*
 * Integer aggregation keys of every width, signed and unsigned, as DTrace
 * prints and sorts them (dt_consume.c dt_print_datum, dt_aggregate.c
 * dt_aggregate_keycmp; the DTrace suite's aggs/tst.signedkeys.d):
 *   - the default layout prints a key by its size only: 8 and 16 bits
 *     zero-extended (` %3d` of a uint8_t, so (char)-2 is 254), 32 and 64
 *     bits signed, whatever the key's type;
 *   - keys compare unsigned at their size, so under aggsortkey -1 sorts
 *     after 2 at every width;
 *   - a printa() format converts by the key's type, as printf does: %d is
 *     signed iff the type is (dt_printf.c pfcheck_dint), %u and %x are
 *     unsigned at the key's size;
 *   - trace() prints as the default layout does.
 */
#pragma D option aggsortkey

BEGIN
{
	@c[(char)-2] = sum(-2); @c[(char)-1] = sum(-1); @c[(char)0] = sum(0);
	@c[(char)2] = sum(2);
	@uc[(uint8_t)254] = sum(1); @uc[(uint8_t)2] = sum(2);
	@s[(short)-3] = sum(-3); @s[(short)1] = sum(1);
	@us[(uint16_t)65533] = sum(1); @us[(uint16_t)1] = sum(2);
	@i[-2] = sum(-2); @i[1] = sum(1);
	@ui[(uint32_t)-2] = sum(1); @ui[1U] = sum(2);
	@ll[(long long)-2] = sum(-2); @ll[1LL] = sum(1);
	@ull[(uint64_t)-2] = sum(1); @ull[1ULL] = sum(2);
	@i8[(int8_t)-5] = sum(-5); @i16[(int16_t)-5] = sum(-5);
	@i32[(int32_t)-5] = sum(-5); @i64[(int64_t)-5] = sum(-5);

	printa(@c); printa(@uc); printa(@s); printa(@us);
	printa(@i); printa(@ui); printa(@ll); printa(@ull);
	printa(@i8); printa(@i16); printa(@i32); printa(@i64);

	printa("c %d %@d\n", @c); printa("c %u\n", @c); printa("c %x\n", @c);
	printa("uc %d %@d\n", @uc); printa("uc %u\n", @uc); printa("uc %x\n", @uc);
	printa("s %d %@d\n", @s); printa("s %u\n", @s); printa("s %x\n", @s);
	printa("us %d %@d\n", @us); printa("us %u\n", @us); printa("us %x\n", @us);
	printa("i %d %@d\n", @i); printa("i %u\n", @i); printa("i %x\n", @i);
	printa("ui %d %@d\n", @ui); printa("ui %u\n", @ui); printa("ui %x\n", @ui);
	printa("ll %d %@d\n", @ll); printa("ll %u\n", @ll); printa("ll %x\n", @ll);
	printa("ull %d %@d\n", @ull); printa("ull %u\n", @ull); printa("ull %x\n", @ull);
	printa("i8 %d\n", @i8); printa("i16 %d\n", @i16); printa("i32 %d\n", @i32);
	printa("i64 %d\n", @i64);

	trace((char)-2); trace(" "); trace((short)-3); trace(" ");
	trace((int8_t)-2); trace(" "); trace((uint8_t)254); trace(" ");
	trace(-2); trace(" "); trace((long long)-2); trace("\n");
	printf("%d %d %d %d %u %u\n", (char)-2, (short)-3, (uint8_t)254,
	    (uint16_t)65533, (char)-2, (short)-3);
	exit(0);
}
