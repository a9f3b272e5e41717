/* flags: -q -w */
/*
 * timestamp, vtimestamp and walltimestamp are sampled once per firing, as
 * DTrace's machine state caches them: two reads in one clause agree, so
 * do reads in the firing's later clauses, and the next firing (END) has
 * its own instant.  (Read live, each read of these clocks moves on.)
 * chill() is DTrace's one exception: timestamp is read again after it
 * (walltimestamp stays, as in DTrace).
 */
BEGIN
{
	t = timestamp;
	v = vtimestamp;
	w = walltimestamp;
	printf("%d %d %d\n", timestamp == t, vtimestamp == v,
	    walltimestamp == w);
}

BEGIN
{
	printf("%d %d %d\n", timestamp == t, vtimestamp == v,
	    walltimestamp == w);
}

BEGIN
{
	chill(2000000);
	printf("%d %d\n", timestamp - t >= 2000000, walltimestamp == w);
}

END
{
	printf("%d %d\n", timestamp > t, walltimestamp > w);
}
