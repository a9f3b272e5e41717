/* flags: -x amin=Evolving/Evolving/Common */
/*
 * -x amin: curthread's data are Private (the Dynamic Tracing Guide's
 * example), below the minimum: D_ATTR_MIN names it.
 */
dtrace:::BEGIN
{
	trace(curthread->pid);
}
