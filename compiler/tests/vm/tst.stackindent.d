/* env: XDT_HOSTVM_STACKS=0xffffffff81100210,0xffffffff81100080;0xffffffff81100210,0xffffffff81100080 */
/* flags: -q */
/*
 * -x stackindent (DTrace's option, 14 by default): the columns before
 * each frame of a printed stack, stack() and aggregation keys alike.
 */
#pragma D option stackindent=4

BEGIN
{
	stack();
	@[stack()] = count();
	exit(0);
}
