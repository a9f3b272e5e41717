/* flags: -q */
/* cmd: /tmp/sysc threads 4 500 */
/*
 * The classic: time every read of 4 threads on all vCPUs with self->
 * (each thread its own), and count exactly the 2000 latencies.
 */
syscall::read:entry
/execname == "sysc"/
{
	self->ts = timestamp;
}

syscall::read:return
/self->ts/
{
	@n = count();
	@neg = sum(timestamp < self->ts);
	self->ts = 0;
}
