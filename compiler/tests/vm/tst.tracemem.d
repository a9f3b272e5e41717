/* flags: -q */
/*
 * tracemem(addr, n[, dsize]) as DTrace prints it: always a hex dump (16
 * bytes a line, offsets in hex, an ASCII column), of n bytes, or of dsize
 * of them when dsize is smaller; printm(n, p) is FreeBSD's name for it.
 */
struct s {
	int a;
	char b[20];
};
struct s g;

BEGIN
{
	g.a = 0x41424344;
	g.b[0] = 'h';
	g.b[1] = 'i';
	g.b[19] = '~';
	tracemem(&g, 24);
	tracemem(&g, 24, 6);
	tracemem(&g, 24, 100);
	tracemem(&g.b[0], 3);
	/* FreeBSD's printm(size, pointer): the same dump */
	printm(6, &g);
	exit(0);
}
