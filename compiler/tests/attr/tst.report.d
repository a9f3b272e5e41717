/*
 * dtrace -e -v: the least attributes of the script's probe descriptions
 * (dtrace:::BEGIN Stable, profile Evolving, syscall's function Private/
 * Private/ISA, no provider Unstable) and of what its clauses use
 * (curthread: Stable/Private/Common; args[] and probefunc: their
 * provider's), then each description's probe attributes.
 */
dtrace:::BEGIN
{
	trace(curthread);
}

profile:::tick-1sec
/probefunc != ""/
{
	trace(timestamp);
}

syscall::open:entry
{
	trace(args[0]);
}

END
{
}
