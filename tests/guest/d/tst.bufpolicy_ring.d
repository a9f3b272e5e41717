/* flags: -q -x bufpolicy=ring -x bufsize=4k */
/*
 * bufpolicy=ring: one 4 KiB buffer per CPU that the newest records
 * overwrite, read once after STOP, oldest first.  A record here is 16
 * bytes (header and value), so 256 fit: of 1000 ticks' values and the
 * exit() record, the last 255 values survive.
 */
int i, done;

tick-1ms
/i < 1000/
{
	printf("%d\n", i++);
}

tick-1ms
/i == 1000 && !done/
{
	done = 1;
	exit(0);
}
