/* flags: -q */
/*
 * strsize past 4096: a string of more than 4096 bytes (seven strjoin()s of
 * a doubling piece) kept whole in a global, a thread-local, an associative
 * array (as its key and its value) and an aggregation's key: every buffer
 * a string goes through is sized from the program's strsize at enabling.
 * At the old 4096 limit each length below would stop at 4095.
 */
#pragma D option strsize=16k

string g;
string a[string];

BEGIN
{
	s = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";
	s = strjoin(s, s);	/* 128 */
	s = strjoin(s, s);	/* 256 */
	s = strjoin(s, s);	/* 512 */
	s = strjoin(s, s);	/* 1024 */
	s = strjoin(s, s);	/* 2048 */
	s = strjoin(s, s);	/* 4096 */
	s = strjoin(s, s);	/* 8192 */
	g = strjoin(s, "tail");
	self->t = strjoin(g, "!");
	a[g] = self->t;
	@c[g] = count();
	@c[g] = count();
	@l[strlen(g)] = sum(strlen(a[g]));
}

BEGIN
{
	printf("global %d\n", strlen(g));
	printf("thread %d\n", strlen(self->t));
	printf("array %d, other key %d\n", strlen(a[g]), strlen(a[self->t]));
	printf("substr %s\n", substr(g, 8190));
	printf("rindex %d\n", rindex(g, "tail"));
	printa("key of %@d\n", @c);
	printa("key %d value %@d\n", @l);
	trace(g);
	exit(0);
}
