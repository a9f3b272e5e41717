/* flags: -x amin=Evolving/Evolving/Common */
/*
 * -x amin: a program whose every attribute is at least the minimum
 * compiles (dtrace:::BEGIN, Stable built-ins, constants).
 */
dtrace:::BEGIN
{
	trace(pid + 1);
	exit(0);
}
