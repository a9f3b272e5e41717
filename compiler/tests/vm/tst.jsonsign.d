/* flags: -q -x oformat=json */
/*
 * -x oformat=json writes integers as their D type has them (docs/json.md):
 * signed types sign-extended at any width, unsigned ones zero-extended,
 * a uint64_t past 2^63 included -- in records and in aggregation keys.
 */
BEGIN
{
	trace((char)-2); trace((short)-3); trace((int8_t)-4); trace(-5);
	trace((long long)-6);
	trace((uint8_t)254); trace((uint16_t)65533); trace((uint32_t)-2);
	trace((uint64_t)-2);
	@k[(char)-2, (short)-3, (int)-4, (int64_t)-5] = count();
	@u[(uint8_t)254, (uint16_t)65533, (uint32_t)-2, (uint64_t)-2] = count();
	exit(0);
}
