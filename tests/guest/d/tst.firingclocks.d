/* flags: -q */
/*
 * The clocks are sampled once per firing (DTrace's machine state caches
 * timestamp, vtimestamp and walltimestamp): on tick-N, fired from an
 * hrtimer, two reads in a clause agree, a later clause of the same firing
 * reads the same values, and each firing has a later timestamp than the
 * one before.  (Read live, timestamp and walltimestamp move between two
 * reads.)
 */
int n, same, next, later, done;
uint64_t last;

tick-10ms
/n < 5/
{
	this->t = timestamp;
	this->v = vtimestamp;
	this->w = walltimestamp;
	same += timestamp == this->t && vtimestamp == this->v &&
	    walltimestamp == this->w;
	later += timestamp > last;
	last = timestamp;
	n++;
}

tick-10ms
/this->t/
{
	next += timestamp == this->t && vtimestamp == this->v &&
	    walltimestamp == this->w;
}

tick-10ms
/n == 5 && !done/
{
	done = 1;
	printf("%d %d %d\n", same, next, later);
	exit(0);
}
