/* flags: -x errtags -x amin=Stable/Stable/Common */
/* The same under -x errtags: the tag, and a variable a #pragma lowered. */
int x;
#pragma D attributes Evolving/Stable/Common x

dtrace:::BEGIN
{
	trace(x);
}
