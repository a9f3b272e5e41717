/* flags: -q */
/* stderr: ^dtrace: error on enabled probe ID \d+ \(ID \d+: dtrace:::BEGIN\): invalid address \(0x0\) in action #1 at DIF offset \d+$ */
/*
 * A NULL string compares as the empty string, as DTrace's
 * dtrace_strncmp() reads it: with every relational operator, in an action
 * or a predicate, without a fault; NULL equals NULL.  Subroutines are not
 * comparisons: strlen(NULL) still faults at 0, as DTrace's does.
 */
BEGIN
{
	s = (string)0;
	n = (string)0;
	printf("%d %d %d %d %d %d\n", s == "", s != "", s < "a", s <= "a",
	    s > "a", s >= "a");
	printf("%d %d %d %d\n", "a" > s, "" == s, "" < s, "a" <= s);
	printf("%d %d %d %d\n", s == n, s != n, s < n, s >= n);
}

BEGIN
/s == "a"/
{
	printf("not printed\n");
}

BEGIN
/s == "" && n <= s && "x" != n/
{
	printf("predicates\n");
}

BEGIN
{
	trace(strlen(s));
}

ERROR
{
	printf("ERROR: fault %d addr %d\n", arg4, arg5);
	exit(0);
}
