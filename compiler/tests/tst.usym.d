/*
 * ufunc(), usym(), umod(), uaddr(): two records (or key words) each, the
 * first XDT_USYM_TAG | form << 32 | pid by the compiler's DIF, then the
 * address.  How they print: tests/guest/test_pid.py.
 */
syscall::write:entry
{
	ufunc(arg1);
	uaddr(arg1);
	@[umod(arg1), usym(arg1)] = count();
}
