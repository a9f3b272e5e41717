/* args: -X kallsyms=compiler/tests/kallsyms.fake -X aggs -- @;0xffffffff81100210,0xffffffff81100080,0xffffffff81100500;entry;7 @;0xffffffff81100210,0xffffffff81100080,0xffffffff81100500;return;12 @;0xffffffffc0001105,0xffffffff81100210;entry;3 @s;0xffffffffc0001105,0xffffffff81100210;1 @s;0xffffffff81100210,0xffffffff81100080,0xffffffff81100500,0xffffffff81100700;29 @f;vfs_read;0xffffffff81100210,0xffffffff81100080;4096 @f;ksys_read;0xffffffff81100080;4096 */
/*
 * stack() as an aggregation key, alone and with other keys (no DIF for
 * it: the AGGKEY action carries the depth), and the aggregations printed
 * from a synthetic snapshot as DTrace prints them: each stack key on its
 * own lines after a newline, the next key or the value after its last
 * frame; equal values sort by key.
 */
fbt::vfs_read:entry,
fbt::vfs_read:return
{
	@[stack(), probename] = count();
	@s[stack(4)] = count();
	@f[probefunc, stack(5)] = sum(arg2);
}

fbt::ksys_read:entry
{
	@s[stack(4)] = count();
	@f[probefunc, stack(5)] = sum(arg2);
}
