/* flags: -q */
/*
 * A store through a char * into a global string's storage (DTrace lets a
 * pointer to a variable's bytes be written), at strsize 4096: the global
 * holds strsize bytes, and the string it then holds is what was written.
 * exit(1) (a failed test) when the compare disagrees with what printed.
 */
#pragma D option strsize=4096

char *k;

BEGIN
{
	j = probeprov;
	k = j;
	k[0] = 'D';
	k[1] = 'T';
}

BEGIN
{
	trace(stringof(k));
	exit(k == "DTrace" ? 0 : 1);
}
