/* flags: -q -x dynvarsize=2k */
/* cmd: /tmp/sysc threads 16 1 10 200 */
/*
 * Thread-locals that are never freed by the script: 160 threads live and
 * die, each leaving self->n set, in a space of about 50 variables.  Only
 * reclaiming a thread's variables when it exits (and reusing the space)
 * lets the space be used again: without it every variable after the
 * first ~50 would be a drop.  Freed space is reusable once the cleaner
 * (every 1/cleanrate s, 10 ms by default) has seen a grace period, so the
 * rounds are 200 ms of guest time apart: waiting for an asynchronous
 * cleaner with a 20x margin, not a timed assertion.
 */
syscall::read:entry
/execname == "sysc"/
{
	self->n++;
	@threads = count();
	@first = sum(self->n == 1);
}
