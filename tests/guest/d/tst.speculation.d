/* flags: -q -x nspec=2 -x switchrate=10ms */
/* cmd: /tmp/sysc threads 4 500 */
/* stderr: ^dtrace: 1 failed speculation \(no speculative buffer available\)$ */
/*
 * Speculations across CPUs: 4 threads read 500 times each, on both CPUs,
 * speculating into one speculation (ACTIVEMANY) that END commits, and into
 * another that END discards.  The commit copies END's CPU's records at once
 * and the other CPU's when the cleaner runs (at the latest at STOP): every
 * dot arrives, no X does.  A third speculation() finds none free (nspec=2).
 * (switchrate=10ms: BEGIN's line is read before any dot exists.)
 */
BEGIN
{
	s = speculation();
	d = speculation();
	e = speculation();
	printf("%d %d %d\n", s, d, e);
}

syscall::read:entry
/execname == "sysc"/
{
	speculate(s);
	printf(".");
}

syscall::read:entry
/execname == "sysc"/
{
	speculate(d);
	printf("X");
}

END
{
	commit(s);
	discard(d);
}
