/* env: XDT_HOSTVM_STACKS=0xffffffff81100210,0xffffffff81100080,0xffffffff81100500;0xffffffff81100210,0xffffffff81100080,0xffffffff81100500;0xffffffffc0001105,0xffffffff81100210;0xffffffffc0001105,0xffffffff81100210;0xffffffff81100210,0xffffffff81100080,0xffffffff81100500,0xffffffff81100700;0xffffffff81100210,0xffffffff81100080;0xffffffff81100080 */
/*
 * stack() as an aggregation key, alone and with other keys (no DIF for
 * it: the AGGKEY action carries the depth), printed at the end as DTrace
 * prints them: each stack key on its own lines after a newline, the next
 * key or the value after its last frame; equal values sort by key.  The
 * host VM returns the stacks XDT_HOSTVM_STACKS gives, in turn.
 */
BEGIN
{
	@[stack(), "entry"] = sum(7);
	@[stack(), "return"] = sum(12);
	@[stack(), "entry"] = sum(3);
	@s[stack(4)] = sum(1);
	@s[stack(4)] = sum(29);
	@f["vfs_read", stack(5)] = sum(4096);
	@f["ksys_read", stack(5)] = sum(4096);
}
