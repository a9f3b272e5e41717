/* env: XDT_HOSTVM_STACKS=0xffffffff81100210,0xffffffff81100080,0xffffffff81100500,0xffffffff81100700,0xffffffff81100680,0xffffffff81200000,0xffffffffc0001000,0xffffffffc0001105,0xffffffffc0002010,0xffffffffc0003108,0xffffffffc0005000,0xffffffff81100400,0xffffffff81100404,0xffffffff81000010,0xffffffff81000000,0xffffffff81100000,0xffffffff81100001,0xffffffff8110007f,0xffffffff81100200,0xffffffff81100210,0xdeadbeef;0xffffffffc0003108,0xffffffff81100210;0xffffffff81100310,0xffffffff81100300,0xffffffff81100210 */
/*
 * stack() as an action, printed and symbolized from a fake kallsyms
 * (the host VM returns the stacks XDT_HOSTVM_STACKS gives, in turn):
 * function+offset, no +0x0 at a function's start, aliases (T before t),
 * weak (W) functions, module symbols, an address in a module but in no
 * function (module`0x...), one in none (0x...), one past _etext, two in
 * or at a *_text_end marker (no function); unused slots (0) end a stack
 * (stack(3) gets the second's 2 frames).  The first is given 21 frames
 * for its default depth of 20: the last is dropped.  Non-quiet, a stack's
 * record ends with a blank line, as DTrace's does.
 */
BEGIN
{
	stack();
}

BEGIN
{
	trace("cat");
	stack(3);
	trace(7LL);
}

BEGIN
{
	stack(4 * 2 - 5);
}
