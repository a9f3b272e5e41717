fbt::vfs_read:entry
{
	trace(arg0)
	trace(arg1);
}
