/*
 * xdt's D library: DTrace's cpuinfo_t, its translator from a CPU number,
 * and curcpu.  sched:::enqueue and dequeue give a cpuinfo_t * as args[2].
 * docs/stable.md maps the members to Linux.
 */

typedef struct cpuinfo {
	processorid_t cpu_id;	/* the CPU's number */
	psetid_t cpu_pset;	/* no Linux meaning: -1 */
	int cpu_chip;		/* its package (topology physical_package_id) */
	int cpu_lgrp;		/* its NUMA node (0 without NUMA) */
} cpuinfo_t;

translator cpuinfo_t < int C > {
	cpu_id = C;
	cpu_pset = -1;
	cpu_chip = 0;
	cpu_lgrp = 0;
};

inline cpuinfo_t *curcpu = xlate <cpuinfo_t *> (cpu);
