/*
 * A clause's statement attributes are the least of its predicate's and
 * actions': integer and string constants and Stable built-ins keep
 * Stable/Stable/Common; a subroutine DTrace marks Evolving (htonl)
 * lowers them; a clause without actions is Stable/Stable/Common even
 * with a predicate using curthread.
 */
dtrace:::BEGIN
{
	x = htonl(1);
	trace("s");
}

dtrace:::END
/curthread != 0/
{
}
