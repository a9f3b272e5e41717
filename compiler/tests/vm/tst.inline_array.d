/* flags: -q */
/*
 * Inline associative arrays (dt_grammar.y: an inline declarator with a
 * tuple signature): each use name[args] is the body with each parameter
 * bound to its argument, converted to the parameter's type; the result is
 * converted to the inline's type.  An unnamed parameter is unused.
 */
inline int sq[int x] = x * x;
inline int inv[int x] = 100 / x;
inline string pick[int i, string a, string b] = i ? a : b;
inline char lo[long v] = v;
inline int unnamed[int, int y] = y + 1;
BEGIN
{
	n = 7;
	printf("%d %d %d\n", sq[3], sq[n], sq[sq[2]]);
	printf("%d %s %s\n", inv[4], pick[1, "yes", "no"], pick[0, "yes", "no"]);
	printf("%d %d %d\n", lo[0x1ff], sizeof (lo[1]), unnamed[5, 6]);
	exit(0);
}
