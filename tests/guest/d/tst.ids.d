/* hostvm: sched.d and procfs.d need the guest kernel's BTF (test_dref.py) */
/*
 * gid beside uid (the firing task's real ids: BEGIN fires in dtrace's
 * own thread, so they are $gid and $uid), sched.d's pset, chip and lgrp
 * (curcpu's), procfs.d's zonename, and unistd.d's DTRACEFLT_LIBRARY,
 * in the kernel (tests/host/test_dref.py has the host VM's); the macro
 * variables $projid and $taskid are what procfs.d says of every process.
 */
#pragma D option quiet

BEGIN
{
	printf("%d %d\n", gid == $gid, uid == $uid);
	printf("%d %d %d %d %s %d\n", pset, chip, lgrp, pset == curcpu->cpu_pset,
	    zonename, DTRACEFLT_LIBRARY);
	printf("%d %d\n", curpsinfo->pr_projid == $projid,
	    curpsinfo->pr_taskid == $taskid);
	exit(0);
}
