/* flags: -q */
/*
 * Structs in dynamic variables: a member store into an element that does
 * not exist yet makes it (zeroed), as DTrace's code does (a non-zero
 * destination register asks the load to allocate); reading one that does
 * not exist makes nothing.  String members take the string, not strsize
 * bytes of whatever follows its source.
 */
struct cmd {
	string s1;
	string s2;
	int n;
};
struct cmd command[int];
self struct cmd me;
int i;

BEGIN
{
	command[i].s1 = "";
	command[i].n = 7;
	i++;
	command[i].s1 = "foo";
	command[i].s2 = command[i].s1;
	self->me.s2 = "bar";
	self->me.n = command[0].n + command[5].n;
	printf("[%s] %d [%s] [%s] %d\n", command[0].s1, command[0].n,
	    command[1].s1, command[1].s2, command[1].n);
	printf("[%s] [%s] %d\n", self->me.s1, self->me.s2, self->me.n);
	printf("[%s] %d\n", command[5].s1, command[5].n);
	exit(0);
}
