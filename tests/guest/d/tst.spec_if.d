/* flags: -q */
/*
 * speculate() inside if/else: DTrace's sugar makes each piece of a clause
 * a clause of its own, and the speculation rules hold per piece, so the
 * if's body speculates while the pieces around it record directly.  The
 * committed data comes out at commit(), after "after"; the discarded
 * never.
 */
BEGIN
{
	printf("before\n");
	self->s = speculation();
	if (self->s) {
		speculate(self->s);
		printf("speculated %d\n", 1);
	} else {
		printf("no speculation\n");
	}
	printf("after\n");
	if (self->s != 0)
		commit(self->s);
	self->d = speculation();
	if (self->d) {
		speculate(self->d);
		printf("discarded\n");
	}
	discard(self->d);
}
BEGIN { exit(0); }
