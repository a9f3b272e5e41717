/* cmd: /tmp/sysc openat-quiet /etc/hostname */
/* flags: -q */
/* hostvm: fds[] reads the firing thread's file table in the guest kernel */
/*
 * fds[], the D library's inline associative array (illumos io.d's): the
 * firing thread's open file fd, translated to fileinfo_t; an fd it does
 * not have is a NULL file, "<none>".
 */
syscall::openat:return
/pid == $target && (int)arg1 >= 0 && fds[arg1].fi_name == "hostname"/
{
	printf("%s %s %s %d\n", fds[arg1].fi_name, fds[arg1].fi_dirname,
	    fds[arg1].fi_pathname, fds[arg1].fi_oflags & 3);
	printf("%s %s %d\n", fds[-1].fi_name, fds[1000000].fi_pathname,
	    fds[-1].fi_offset);
	exit(0);
}
