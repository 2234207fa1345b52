/* SPDX-License-Identifier: Apache-2.0 */
/* HealthCheckProgram: run as root when the agent starts and every
 * HealthCheckInterval seconds, when the node is in one of the
 * HealthCheckNodeState states (ANY, IDLE, ALLOC, MIXED; a comma list). A
 * run that exits non-zero (or is killed) fails the check: its first line of
 * output, or its exit code, is the reason the node is drained with. */
#ifndef SPUR_AGENT_HEALTHCHECK_H
#define SPUR_AGENT_HEALTHCHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <uv.h>

typedef void (*spurd_health_failed_fn)(void *ctx, const char *why);
/* Does the node run jobs now (ALLOC/MIXED), or none (IDLE)? */
typedef bool (*spurd_health_busy_fn)(void *ctx);

struct spurd_healthcheck {
	uv_loop_t *loop;
	uv_timer_t timer;
	uv_process_t proc;
	uv_pipe_t out;
	char program[4096];
	unsigned interval_s;
	unsigned states; /* bits: 1 IDLE, 2 busy (ALLOC, MIXED) */
	bool running, started;
	int open_handles;
	char output[256];
	size_t outlen;
	spurd_health_failed_fn failed;
	spurd_health_busy_fn busy;
	void *ctx;
};

/* Parse HealthCheckNodeState: 0, or -1 with why (CYCLE and unknown words
 * are refused by name). */
int spurd_healthcheck_states(const char *text, unsigned *states, char *why, size_t wlen);
/* Start running program (once now, then every interval_s; 0: at start
 * only). */
void spurd_healthcheck_start(struct spurd_healthcheck *h, uv_loop_t *loop, const char *program,
			     unsigned interval_s, unsigned states, spurd_health_failed_fn failed,
			     spurd_health_busy_fn busy, void *ctx);
/* Stop (the handles close with the loop's others). */
void spurd_healthcheck_stop(struct spurd_healthcheck *h);

#endif
