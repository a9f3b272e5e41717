/* flags: -q */
/* cmd: /tmp/sysc openat-quiet /xdt/no/such/file */
/*
 * The opensnoop one-liner: a path argument read from user memory, whole,
 * bounded by copyinstr's length, and as raw bytes with copyin.
 */
syscall::openat:entry
/pid == $target/
{
	printf("%s %s\n", execname, copyinstr(arg1));
	printf("[%s] [%s]\n", copyinstr(arg1, 4), basename(copyinstr(arg1)));
	this->p = (char *)copyin(arg1, 4);
	printf("%c%c%c\n", this->p[1], this->p[2], this->p[3]);
}
