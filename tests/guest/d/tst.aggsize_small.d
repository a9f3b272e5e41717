/* flags: -q -x aggsize=256 */
/* stderr: ^dtrace: 3 aggregation drops on CPU \d+$ */
/*
 * A small aggsize is the size asked for, not rounded up to a page: 256
 * bytes hold the arena's 8-byte header and seven entries of an integer
 * key and a count (16-byte header, key, value: 32 bytes each), so three of
 * ten keys drop, and the drops are reported.  (It was raised to 4 KiB
 * silently: nothing dropped and nothing said so.)
 */
BEGIN
{
	@[1] = count(); @[2] = count(); @[3] = count(); @[4] = count();
	@[5] = count(); @[6] = count(); @[7] = count(); @[8] = count();
	@[9] = count(); @[10] = count();
	@[1] = count();
	exit(0);
}
