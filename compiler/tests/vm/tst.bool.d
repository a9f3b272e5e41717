/* flags: -q */
/*
 * C99's _Bool, one of DTrace's intrinsic types: a name (not a keyword), an
 * unsigned byte.  As in DTrace, a cast narrows it like any other byte
 * ((_Bool)257 is 1, (_Bool)2 is 2): D does not make it 0 or 1.
 * `float complex` and the imaginary types are intrinsic too, but neither
 * grammar can write them: `complex` is no keyword, so `float complex;`
 * declares a float named complex.
 */
_Bool b;
float complex;

BEGIN
{
	b = 1;
	printf("%d %d %d\n", sizeof (_Bool), sizeof (b), b);
	printf("%d %d\n", (_Bool)257, (_Bool)2);
	p = (_Bool *)0;
	printf("%d %d\n", sizeof (*p), sizeof (_Bool [3]));
	printf("%d\n", sizeof (complex));
	exit(0);
}
