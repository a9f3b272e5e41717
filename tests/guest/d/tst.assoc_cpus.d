/* flags: -q */
/* cmd: /tmp/sysc threads 4 500 */
/*
 * A global associative array written from every CPU at once: each of 4
 * threads counts its own reads under its own key (tid), so each key must
 * reach exactly 500, once; and self-> counts must agree with it.
 */
syscall::read:entry
/execname == "sysc"/
{
	reads[tid]++;
	self->n++;
	@done[reads[tid] == 500 && self->n == 500 ? "at 500" : "below"] = count();
}
