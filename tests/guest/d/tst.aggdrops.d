/* flags: -q -x aggsize=4k -x strsize=1000 */
/* stderr: ^dtrace: 3 aggregation drops on CPU \d+$ */
/*
 * An aggregation that outgrows aggsize drops, and the snapshot reports
 * the drops per CPU in DTrace's words (dt_handle_cpudrop).  A 4 KiB arena
 * holds three entries whose key is a 1000-byte string (each about 1 KiB
 * plus a header); the next three drop.  The entries that fit are intact.
 */
BEGIN
{
	@["one"] = count();
	@["two"] = count();
	@["three"] = count();
	@["four"] = count();
	@["five"] = count();
	@["six"] = count();
	@["one"] = count();
	exit(0);
}
