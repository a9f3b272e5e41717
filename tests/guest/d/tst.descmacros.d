/* flags: -q */
/* cmd: /tmp/sysc getppid 3 */
/* args: getppid 3 */
/*
 * Macro arguments in probe descriptions: $1 names the system call, $$1
 * too (in a description both paste the text); $2 is an integer in an
 * expression.  The -c child's getppid(2) returns dtrace's own pid.
 */
int n, parent;

syscall::$1:entry
/pid == $target/
{
	n++;
}

syscall::$$1:return
/pid == $target/
{
	parent += arg1 == $pid;
}

END
{
	printf("%d %d %d\n", n, parent, n == $2);
}
