/*
 * stack() as an aggregation key, alone and with other keys (no DIF for
 * it: the AGGKEY action carries the depth).  How such aggregations print
 * is compiler/tests/vm/tst.stackagg.d's.
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
