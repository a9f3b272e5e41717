/*
 * ustack() as an action and as a key: the record holds the pid's word
 * (XDT_USTACK_TAG | pid) and then the frames, 20 by default (DTrace's
 * ustackframes); strsize is checked and has no helper strings to size.
 * How such records print is tests/guest/test_pid.py's (the host VM has
 * no user thread to walk).
 */
syscall::write:entry
{
	ustack();
	ustack(3, 64);
	@u[ustack(2), stack(2)] = count();
}
