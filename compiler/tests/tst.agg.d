fbt::vfs_read:entry
{
	@ = count();
	@calls[execname] = count();
	@bytes[execname, pid] = sum(arg2);
	@lo = min(arg2);
	@hi = max(arg2);
	@mean[probefunc] = avg(arg2);
	@sizes = quantize(arg2);
}

fbt::vfs_write:entry
{
	@calls["writer"] = count();
	@sizes = quantize(arg2 * 2);
}
