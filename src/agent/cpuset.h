/* SPDX-License-Identifier: Apache-2.0 */
/* Which host CPUs the jobs of a node hold (their cpusets): whole, or shared
 * by up to N jobs each (OverSubscribe=YES|FORCE:N). Pure: a count per CPU. */
#ifndef SPUR_AGENT_CPUSET_H
#define SPUR_AGENT_CPUSET_H

#include <stddef.h>
#include <stdint.h>

/* A CPU held whole (by a job that shares nothing). */
#define SPURD_CPU_WHOLE 255

/* n of the ncpu CPUs as a cpuset list ("0-3,6") into buf and taken: for a
 * job that shares nothing (share <= 1) free ones, lowest first; for one
 * sharing N ways, ones fewer than N jobs share (none held whole), the least
 * shared first. "" (nothing taken) when there are not n. */
void spurd_cpus_pick(uint8_t *used, unsigned ncpu, uint32_t n, unsigned share, char *buf,
		     size_t len);

/* Take (sign 1) or give back (-1) the CPUs of list for a job sharing
 * `share` ways (<= 1: whole). */
void spurd_cpus_take(uint8_t *used, unsigned ncpu, const char *list, unsigned share, int sign);

#endif
