/* flags: -q */
/*
 * C's comma operator: the loosest binary operator, evaluating its left
 * operand for its effects and taking its right operand's value and type;
 * in argument lists a comma still separates.
 */
BEGIN
{
	x = (1, 2);
	printf("%d\n", x);
	/* a statement of two assignments */
	y = 3, z = 4;
	printf("%d %d\n", y, z);
	/* left to right, each left operand for its effects */
	a = 0;
	b = (a++, a++, a);
	printf("%d %d\n", a, b);
	/* the right operand's type: char, not int */
	printf("%d\n", sizeof (1, (char)2));
	/* ?:'s middle operand is an expression */
	printf("%d\n", 1 ? 5, 6 : 7);
	/* in an argument list, parentheses make it one argument */
	printf("%d %d\n", (8, 9), 10);
}

BEGIN
/(0, 1)/
{
	printf("predicate\n");
}

BEGIN
/(1, 0)/
{
	printf("not printed\n");
}

BEGIN
{
	exit(0);
}
