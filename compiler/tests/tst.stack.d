/*
 * stack() as an action: the record layout (8 bytes a frame, 8-aligned,
 * after strings too; 20 frames by default).  How such records print is
 * compiler/tests/vm/tst.stack.d's.
 */
fbt::vfs_read:entry
{
	stack();
}

fbt::vfs_read:return
{
	trace(execname);
	stack(3);
	trace(arg1);
}

fbt::ksys_read:entry
{
	stack(4 * 2 - 5);
}
