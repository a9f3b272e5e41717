/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * xdt's stable providers: DTrace's proc, sched and io probes, by DTrace's
 * names, over what Linux 6.1 offers -- its tracepoints and, where it has
 * none, a kprobe on the function that does the work.
 *
 * One line per probe, read by both halves, as illumos keeps its sdt
 * argument descriptions (sdt_argdesc_t) beside the probes:
 *  - the module (providers/stable.c) creates the probe and hooks @source,
 *    with @shim computing the native arguments (and whether this call is
 *    the probe's event at all: sched_switch is off-cpu, and also sleep or
 *    preempt);
 *  - the compiler types args[]: args[i] is the native argument i, cast to
 *    native type i, then translated to translated type i by the D
 *    library's translators (dlib/, installed at /usr/lib/xdt).  "dtrace
 *    -l -v" prints both.
 *
 * XDT_STABLE_PROBES(X): X(provider, name, kind, source, shim, native
 * types, translated types), the types ';'-separated, one per argument,
 * "" for a probe without arguments.  kind:
 *   TP   the tracepoint @source;
 *   KP   a kprobe at the entry of the function @source (a compiler's
 *        suffix such as .isra.0 is accepted).  Only a function nothing
 *        inlines will do: activate_task() looked right for enqueue, but
 *        core.c inlines it into every hot caller, so its kprobe saw only
 *        migrations; the scheduling classes' enqueue_task methods are
 *        called through pointers, never inlined -- one probe per class,
 *        as illumos has one per function that enqueues;
 *   KRP  a kretprobe on @source.
 *
 * Linux has no place for sched's remain-cpu (schedule() keeping the same
 * task passes no tracepoint), change-pri, surrender, cpucaps-* and tick,
 * or io's wait-start / wait-done (nothing waits on one request: a waiter
 * sleeps in io_schedule() for whatever it waits on); docs/stable.md says
 * what each probe and translated member means on Linux.
 */
#ifndef _UAPI_XDT_STABLE_H
#define _UAPI_XDT_STABLE_H

#define XDT_TASK2	"struct task_struct *;struct task_struct *"
#define XDT_LWPPS	"lwpsinfo_t *;psinfo_t *"
#define XDT_RQ3		"struct request *;struct request *;struct request *"

#define XDT_STABLE_PROBES(X) \
	X("proc", "create",        TP,  "sched_process_fork", proc_create, \
	  "struct task_struct *", "psinfo_t *") \
	X("proc", "lwp-create",    TP,  "sched_process_fork", proc_lwp_create, \
	  XDT_TASK2, XDT_LWPPS) \
	X("proc", "exec",          KP,  "bprm_execve",        proc_exec, \
	  "char *", "string") \
	X("proc", "exec-failure",  KRP, "bprm_execve",        proc_exec_failure, \
	  "int", "int") \
	X("proc", "exec-success",  TP,  "sched_process_exec", proc_exec_success, \
	  "", "") \
	X("proc", "exit",          TP,  "sched_process_exit", proc_exit, \
	  "int", "int") \
	X("proc", "lwp-exit",      TP,  "sched_process_exit", proc_lwp_exit, \
	  "", "") \
	X("proc", "signal-send",   TP,  "signal_generate",    proc_signal_send, \
	  XDT_TASK2 ";int", XDT_LWPPS ";int") \
	X("proc", "signal-handle", TP,  "signal_deliver",     proc_signal_handle, \
	  "int;struct kernel_siginfo *;void *", \
	  "int;struct kernel_siginfo *;void *") \
	X("sched", "on-cpu",       KP,  "finish_task_switch", sched_on_cpu, \
	  "", "") \
	X("sched", "off-cpu",      TP,  "sched_switch",       sched_off_cpu, \
	  XDT_TASK2, XDT_LWPPS) \
	X("sched", "sleep",        TP,  "sched_switch",       sched_sleep, \
	  "", "") \
	X("sched", "preempt",      TP,  "sched_switch",       sched_preempt, \
	  "", "") \
	X("sched", "wakeup",       TP,  "sched_waking",       sched_wakeup, \
	  XDT_TASK2, XDT_LWPPS) \
	X("sched", "enqueue",      KP,  "enqueue_task_fair",  sched_queue,   \
	  XDT_TASK2 ";int", XDT_LWPPS ";cpuinfo_t *") \
	X("sched", "enqueue",      KP,  "enqueue_task_rt",    sched_queue,   \
	  XDT_TASK2 ";int", XDT_LWPPS ";cpuinfo_t *") \
	X("sched", "enqueue",      KP,  "enqueue_task_dl",    sched_queue,   \
	  XDT_TASK2 ";int", XDT_LWPPS ";cpuinfo_t *") \
	X("sched", "dequeue",      KP,  "dequeue_task_fair",  sched_queue,   \
	  XDT_TASK2 ";int", XDT_LWPPS ";cpuinfo_t *") \
	X("sched", "dequeue",      KP,  "dequeue_task_rt",    sched_queue,   \
	  XDT_TASK2 ";int", XDT_LWPPS ";cpuinfo_t *") \
	X("sched", "dequeue",      KP,  "dequeue_task_dl",    sched_queue,   \
	  XDT_TASK2 ";int", XDT_LWPPS ";cpuinfo_t *") \
	X("io", "start",           TP,  "block_rq_issue",     io_start, \
	  XDT_RQ3, "bufinfo_t *;devinfo_t *;fileinfo_t *") \
	X("io", "done",            TP,  "block_rq_complete",  io_done, \
	  XDT_RQ3, "bufinfo_t *;devinfo_t *;fileinfo_t *")

#endif
