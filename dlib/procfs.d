/*
 * xdt's D library: DTrace's process-model types (psinfo_t, lwpsinfo_t)
 * and their translators from Linux's struct task_struct, with the inlines
 * curpsinfo and curlwpsinfo.  docs/stable.md maps every member to Linux
 * and says which have no Linux meaning (those read 0 or -1).
 *
 * Loaded when a program needs it (libxdt/libxdt.c, load_libs), from
 * /usr/lib/xdt in the guests (-L adds directories).
 */

/* lwpsinfo_t's pr_state, and the letters of pr_sname */
inline char SSLEEP = 1;
inline char SRUN = 2;
inline char SZOMB = 3;
inline char SSTOP = 4;
inline char SIDL = 5;
inline char SONPROC = 6;
inline char SWAIT = 7;

/* psinfo_t's pr_dmodel */
inline char PR_MODEL_ILP32 = 1;
inline char PR_MODEL_LP64 = 2;

typedef struct psinfo {
	int pr_nlwp;		/* threads in the process */
	pid_t pr_pid;		/* process id (Linux: the tgid) */
	pid_t pr_ppid;		/* parent's process id */
	pid_t pr_pgid;		/* process group id */
	pid_t pr_sid;		/* session id */
	uid_t pr_uid;		/* real user id */
	uid_t pr_euid;		/* effective user id */
	gid_t pr_gid;		/* real group id */
	gid_t pr_egid;		/* effective group id */
	uintptr_t pr_addr;	/* the task_struct of the process's leader */
	dev_t pr_ttydev;	/* controlling terminal, or -1 (PRNODEV) */
	uint64_t pr_start;	/* start, ns since boot (DTrace: a timestruc_t) */
	string pr_fname;	/* the executable's name (comm) */
	string pr_psargs;	/* the argument list, space-separated */
	int pr_argc;		/* 0: not recorded */
	uintptr_t pr_argv;	/* start of the argument strings (user) */
	uintptr_t pr_envp;	/* start of the environment strings (user) */
	char pr_dmodel;		/* PR_MODEL_LP64 (no 32-bit compat in the lab) */
	taskid_t pr_taskid;	/* no Linux meaning: 0 */
	projid_t pr_projid;	/* no Linux meaning: 0 */
	int pr_poolid;		/* no Linux meaning: 0 */
	zoneid_t pr_zoneid;	/* no Linux meaning: 0 */
} psinfo_t;

typedef struct lwpsinfo {
	int pr_flag;		/* 0 (DTrace: deprecated) */
	id_t pr_lwpid;		/* thread id (Linux: the pid) */
	uintptr_t pr_addr;	/* the task_struct */
	uintptr_t pr_wchan;	/* no cheap Linux equivalent: 0 */
	char pr_stype;		/* no Linux meaning: 0 */
	char pr_state;		/* SSLEEP .. SWAIT */
	char pr_sname;		/* 'S' 'R' 'Z' 'T' 'I' 'O' 'W' */
	char pr_nice;		/* nice, -20 .. 19 */
	short pr_syscall;	/* 0: not recorded */
	int pr_pri;		/* 139 - prio: high value, high priority */
	string pr_clname;	/* scheduling class: "TS" "RT" "DL" "IA" */
	processorid_t pr_onpro;		/* the CPU it last ran on */
	processorid_t pr_bindpro;	/* its one allowed CPU, or -1 */
	psetid_t pr_bindpset;		/* no Linux meaning: -1 */
} lwpsinfo_t;

translator psinfo_t < struct task_struct *T > {
	pr_nlwp = T->signal->nr_threads;
	pr_pid = T->tgid;
	pr_ppid = T->real_parent->tgid;
	pr_pgid = T->signal->pids[PIDTYPE_PGID]->numbers[0].nr;
	pr_sid = T->signal->pids[PIDTYPE_SID]->numbers[0].nr;
	pr_uid = T->cred->uid.val;
	pr_euid = T->cred->euid.val;
	pr_gid = T->cred->gid.val;
	pr_egid = T->cred->egid.val;
	pr_addr = (uintptr_t)T->group_leader;
	pr_ttydev = T->signal->tty ?
	    (dev_t)(T->signal->tty->driver->major << 20 |
	    (T->signal->tty->driver->minor_start + T->signal->tty->index)) :
	    (dev_t)-1;
	pr_start = T->group_leader->start_time;
	pr_fname = stringof(T->group_leader->comm);
	pr_psargs = T->mm == curthread->mm ? execargs() :
	    stringof(T->group_leader->comm);
	pr_argc = 0;
	pr_argv = T->mm ? T->mm->arg_start : 0;
	pr_envp = T->mm ? T->mm->env_start : 0;
	pr_dmodel = PR_MODEL_LP64;
	pr_taskid = 0;
	pr_projid = 0;
	pr_poolid = 0;
	pr_zoneid = 0;
};

translator lwpsinfo_t < struct task_struct *T > {
	pr_flag = 0;
	pr_lwpid = T->pid;
	pr_addr = (uintptr_t)T;
	pr_wchan = 0;
	pr_stype = 0;
	pr_state = T->exit_state & 0x20 ? SZOMB :
	    T->__state == 0 ? (T->on_cpu ? SONPROC : SRUN) :
	    T->__state & 0x3 ? SSLEEP :
	    T->__state & 0xc ? SSTOP :
	    T->__state & 0x800 ? SIDL : SWAIT;
	pr_sname = T->exit_state & 0x20 ? 'Z' :
	    T->__state == 0 ? (T->on_cpu ? 'O' : 'R') :
	    T->__state & 0x3 ? 'S' :
	    T->__state & 0xc ? 'T' :
	    T->__state & 0x800 ? 'I' : 'W';
	pr_nice = T->static_prio - 120;
	pr_syscall = 0;
	pr_pri = 139 - T->prio;
	pr_clname = T->policy == 1 || T->policy == 2 ? "RT" :
	    T->policy == 6 ? "DL" : T->policy == 5 ? "IA" : "TS";
	pr_onpro = T->thread_info.cpu;
	pr_bindpro = T->nr_cpus_allowed == 1 ? T->thread_info.cpu : -1;
	pr_bindpset = -1;
};

/* DTrace's zone of the firing process: Linux has no zones, all is global */
inline string zonename = "global";

inline psinfo_t *curpsinfo = xlate <psinfo_t *> (curthread);
inline lwpsinfo_t *curlwpsinfo = xlate <lwpsinfo_t *> (curthread);

/*
 * cwd and root, DTrace's strings for the current process's working and
 * root directories: d_path() of the task's fs_struct (the walk reads
 * without locks: a rename racing with the firing can tear the path, never
 * fault).  A task that has let its fs go (late in exit) faults into ERROR.
 */
inline string cwd = d_path(&curthread->fs->pwd);
inline string root = d_path(&curthread->fs->root);
