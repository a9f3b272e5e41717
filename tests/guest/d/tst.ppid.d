/* flags: -q */
/* cmd: /tmp/sysc getppid 3 */
/*
 * ppid is the parent's process ID: -c's command is dtrace's child, so in
 * it ppid is dtrace's $pid, and what getppid(2) returns there.
 */
int n, child, same;

syscall::getppid:entry
/pid == $target/
{
	n++;
	child += ppid == $pid;
}

syscall::getppid:return
/pid == $target/
{
	same += arg1 == ppid;
}

END
{
	printf("%d %d %d\n", n, child, same);
}
