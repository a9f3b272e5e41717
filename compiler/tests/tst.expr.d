/* operators, precedence, short-circuit, ?:, casts and loads */
BEGIN
{
	trace(1 + 2 * 3 - 4 / 2 % 3);
	trace((1 << 4) | (0xff & ~0x0f) ^ (256 >> 2));
	trace(!arg0 || arg1 && -arg2 > 3);
	trace(arg0 > 0 ? "pos" : "nonpos");
	trace(execname != "init" ? arg0 <= arg1 : arg0 >= arg1);
	trace(*(int *)arg0 + *(long *)arg1 + *(char *)arg2);
	trace(*(uint64_t *)arg3 + *(unsigned char *)arg4 + *(short *)arg5);
	trace((int)arg0 + (unsigned short)arg1);
	trace(probeprov < probemod);
	exit(0);
}

syscall::read:entry, syscall::write:entry
{
	trace(timestamp - vtimestamp + walltimestamp + tid + uid + cpu + errno);
}
