/* flags: -q */
/* stderr: invalid address \(0x0\) in action #2$ */
/*
 * Memory records in the kernel: trace() and print() of a struct record its
 * bytes (read at its address in the program's storage), tracemem() n of
 * them (dsize fewer), and tracemem() of an address that is not memory
 * fires ERROR with the address; the clause's record is dropped.
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
	trace(g);
	printf("\n");
	print(g);
	printf("\n");
	tracemem(&g, 24);
	tracemem(&g.b[0], 20, 2);
}

BEGIN
{
	printf("lost\n");
	tracemem(0, 16);
}

BEGIN
{
	exit(0);
}
