/* SPDX-License-Identifier: Apache-2.0 */
/* squeue's output format ("%.18i %.9P %.8j ..."), shared by the CLI and the
 * controller (which formats a large queue itself: docs/rfc/0003-wire.md). */
#ifndef SPUR_COMMON_JOBFMT_H
#define SPUR_COMMON_JOBFMT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SPUR_SQUEUE_DEFAULT "%.18i %.9P %.8j %.8u %.2t %.10M %.6D %R"

/* The fields a format can show; strings borrowed. */
struct spur_jobfmt_job {
	uint32_t job_id, array_job_id, nodes, ntasks, cpus_per_task, priority;
	int32_t array_task_id; /* -1 when not an array task */
	const char *partition, *name, *user, *account, *state, *reason, *nodelist, *gres,
		*workdir, *qos, *licenses;
	int64_t start, submit, end, time_limit; /* time_limit 0: UNLIMITED */
	const char *array_tasks; /* pending tasks shown as one row: "[1-3,7]"; NULL: one task */
	uint32_t uid;
};

/* True when every %x of fmt is a known field. */
bool spur_jobfmt_valid(const char *fmt);

/* Append one line (with '\n') for j, or the header when j is NULL, to
 * buf[*len..cap) and advance *len; false when it does not fit. `now` dates
 * run times. */
bool spur_jobfmt_line(const char *fmt, const struct spur_jobfmt_job *j, int64_t now, char *buf,
		      size_t *len, size_t cap);

/* After a '%' of a Slurm format: "[.][WIDTH]" ('.' right-justifies);
 * returns where the field letter is. Shared with sinfo's -o. */
const char *spur_fmt_field_spec(const char *p, bool *right, int *width);

/* Slurm's two-letter code for a state name ("RUNNING" -> "R"). */
const char *spur_jobfmt_state_code(const char *state);

/* "5" or "5_3". */
void spur_jobfmt_id(const struct spur_jobfmt_job *j, char *buf, size_t len);

/* squeue -S/--sort: a comma list of -o field letters squeue sorts by,
 * each with '-' (descending) or '+'. False, with the first one that is
 * not in *bad, when one is not such a letter. */
bool spur_jobfmt_sort_valid(const char *spec, char *bad);

/* True when v is in the comma list (case-insensitive); NULL list: true. */
bool spur_jobfmt_in_list(const char *list, const char *v);

#endif
