/*
 * xdt's D library: DTrace's cpuinfo_t, its translator from a CPU number,
 * and curcpu, with DTrace's inlines of its members (pset, chip, lgrp).
 * sched:::enqueue and dequeue give a cpuinfo_t * as args[2].
 * docs/stable.md maps the members to Linux.
 */

typedef struct cpuinfo {
	processorid_t cpu_id;	/* the CPU's number */
	psetid_t cpu_pset;	/* no Linux meaning: -1 */
	chipid_t cpu_chip;	/* its package (topology physical_package_id) */
	lgrp_id_t cpu_lgrp;	/* its NUMA node (0 without NUMA) */
} cpuinfo_t;

translator cpuinfo_t < int C > {
	cpu_id = C;
	cpu_pset = -1;
	cpu_chip = 0;
	cpu_lgrp = 0;
};

inline cpuinfo_t *curcpu = xlate <cpuinfo_t *> (cpu);

/* As DTrace's sched.d: the firing CPU's processor set, chip and lgroup. */
inline psetid_t pset = curcpu->cpu_pset;
inline chipid_t chip = curcpu->cpu_chip;
inline lgrp_id_t lgrp = curcpu->cpu_lgrp;
