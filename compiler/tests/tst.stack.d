/* args: -X kallsyms=compiler/tests/kallsyms.fake -X records -- 0xffffffff81100210,0xffffffff81100080,0xffffffff81100500,0xffffffff81100700,0xffffffff81100680,0xffffffff81200000,0xffffffffc0001000,0xffffffffc0001105,0xffffffffc0002010,0xffffffffc0003108,0xffffffffc0005000,0xffffffff81100400,0xffffffff81100404,0xffffffff81000010,0xffffffff81000000,0xffffffff81100000,0xffffffff81100001,0xffffffff8110007f,0xffffffff81100200,0xffffffff81100210,0xdeadbeef cat 0xffffffffc0003108,0xffffffff81100210 7 0xffffffff81100310,0xffffffff81100300,0xffffffff81100210 */
/*
 * stack() as an action: the record layout (8 bytes a frame, 8-aligned,
 * after strings too), and the printed, symbolized stacks from a fake
 * kallsyms: function+offset, no +0x0 at a function's start, aliases
 * (T before t), weak (W) functions, module symbols, an address in a
 * module but in no function (module`0x...), one in none (0x...), one
 * past _etext, two in or at a *_text_end marker (no function); unused
 * slots (0) end a stack (stack(3) in vfs_read:return gets 2 frames).
 * Twenty frames are given to the first (its default depth), the 21st
 * value is dropped.  Non-quiet, a stack's record ends with a blank line,
 * as DTrace's does.
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
