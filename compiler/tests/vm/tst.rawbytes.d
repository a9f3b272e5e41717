/* flags: -q -x rawbytes */
/* -x rawbytes: trace() of a string or a struct is a hex dump too. */
struct s {
	char c[3];
};
struct s g;

BEGIN
{
	g.c[0] = 'o';
	g.c[1] = 'k';
	trace(g);
	exit(0);
}
