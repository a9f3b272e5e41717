/* flags: -q */
/*
 * A fault abandons its clause (none of the clause's output is kept) and
 * fires ERROR with the fault in arg4 and the address in arg5; the other
 * clauses run on.
 */
int zero;

BEGIN
{
	printf("not printed\n");
	x = 1 / zero;
}

BEGIN
{
	printf("second clause runs\n");
	trace(*(int *)8);
}

BEGIN
{
	printf("third clause runs\n");
}

ERROR
{
	printf("ERROR: fault %d addr %d\n", arg4, arg5);
	n++;
}

END
{
	printf("%d errors\n", n);
}
