/* two clauses, a predicate, and every printf conversion with widths */
fbt::vfs_read:entry
/execname == "cat" && arg2 >= 512/
{
	printf("%d %i %u %x %X %o\n", arg0, -1, arg2, 255, 255, 8);
	printf("[%-8s] [%8s] [%c] [%p] [%-10d] [%5x] %%\n", execname, probefunc,
	    'A', arg1, arg2, arg2);
}

fbt::vfs_write:entry
/pid != 1/
{
	trace(arg2);
	trace(execname);
}
