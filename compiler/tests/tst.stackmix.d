/*
 * One key position, several kinds and depths of stack (DTrace's "stack"
 * type; illumos printa/tst.stack.d): every use's AGGKEY records its own
 * words into the deepest use's slot ("in N words"), so all of @s's
 * entries have one key length; a position whose uses agree keeps its
 * plain form (@same).  jstack() is ustack() with 50 frames by default.
 */
BEGIN
{
	@s[stack(5), 1] = count();
	@same[stack(3)] = count();
}

BEGIN,
END
{
	@s[stack(6), 2] = count();
	@s[ustack(2), 3] = count();
	@same[stack(3)] = count();
}

END
{
	@s[jstack(), 4] = count();
}
