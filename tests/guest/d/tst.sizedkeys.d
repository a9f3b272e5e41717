/* flags: -q */
/*
 * Sized keys: an aggregation's uses may give an integer key different
 * sizes; each entry prints at the size of the use that made it (as
 * DTrace, whose statements each have their own record layout), and the
 * same value at two sizes is two entries.  printa() formats take each
 * entry's own type.
 */
BEGIN
{
	@[(int)1, 0] = sum(10);
	@[(uint64_t)2, 0] = sum(20);
	@[(char)3, 0] = sum(30);
	@[(short)4, 0] = sum(40);
	@[(int)5, 0] = sum(50);
	@[(uint64_t)5, 0] = sum(55);
	@[(int)1, 0] = sum(1);
	printa(@);
	printa("%d/%d=%@d\n", @);
	exit(0);
}
