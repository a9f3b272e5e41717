/* flags: -q */
/* if/else, nested, with and without braces, under a predicate. */
BEGIN
{
	n = 0;
	i = 3;
}

BEGIN
/i > 2/
{
	if (i == 3) {
		printf("three\n");
		if (n)
			printf("n set\n");
		else {
			printf("n unset\n");
			n = 1;
		}
	} else
		printf("not three\n");
	printf("after %d\n", n);
	if (n == 1)
		if (i == 4)
			printf("wrong\n");
		else
			printf("dangling else binds inside\n");
}

BEGIN
/i > 5/
{
	printf("predicate false: never\n");
	if (1)
		printf("never either\n");
}

BEGIN
{
	if (i < 0) {
		printf("no\n");
	}
	printf("done\n");
	exit(0);
}
