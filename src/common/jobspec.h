/* SPDX-License-Identifier: Apache-2.0 */
/* Slurm job-option formats: --array task lists and --dependency lists. */
#ifndef SPUR_COMMON_JOBSPEC_H
#define SPUR_COMMON_JOBSPEC_H

#include "error.h"

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#define SPUR_ARRAY_MAX_TASKS 1000001u
/* The largest task id any log may hold (Slurm's MaxArraySize is at most
 * 4000001); the controller admits ids below MaxArraySize only. */
#define SPUR_ARRAY_MAX_ID 4000000u

/* --array=0-99%10, 1,3,5, 0-15:4. Task ids ascending, unique. */
struct spur_array_spec {
	uint32_t *ids;
	size_t n;
	uint32_t throttle; /* %N; 0 = none */
};

/* Parse into `out` (zeroed by the caller). max_id bounds every id
 * (MaxArraySize - 1). On error `out` is left empty. */
int spur_array_parse(const char *s, uint32_t max_id, struct spur_array_spec *out,
		     struct spur_error *err);
void spur_array_fini(struct spur_array_spec *a);

enum spur_dep_type {
	SPUR_DEP_AFTER,	     /* the other job started (or ended) */
	SPUR_DEP_AFTERANY,   /* the other job ended, any way */
	SPUR_DEP_AFTEROK,    /* ... with exit code 0 */
	SPUR_DEP_AFTERNOTOK, /* ... failed, timed out or was cancelled */
	SPUR_DEP_AFTERCORR,  /* the same task id of another array ended OK */
	SPUR_DEP_SINGLETON,  /* no other job of this name and user is running */
};

struct spur_dep {
	enum spur_dep_type type;
	uint32_t job_id;     /* 0 for singleton */
	int32_t task_id;     /* array task of job_id, or -1 for all tasks */
	uint32_t delay_secs; /* after:ID+MINUTES */
};

/* A parsed --dependency: all (',') or any ('?') of the terms must hold. */
struct spur_dep_list {
	struct spur_dep *deps;
	size_t n;
	int any; /* '?' separators */
};

/* Parse "afterok:12:13,afterany:14_2,singleton", "after:5+10", "a?b".
 * Mixing ',' and '?' is an error, as in Slurm. On error `out` is empty. */
int spur_dep_parse(const char *s, struct spur_dep_list *out, struct spur_error *err);
void spur_dep_fini(struct spur_dep_list *l);

const char *spur_dep_type_name(enum spur_dep_type t);

/* A job's output file (key "output" or "error" of m: a job's spec or the
 * controller's job object), Slurm's %j %J %x %u %N %A %a %% expanded,
 * relative to workdir; slurm-%j.out (slurm-%A_%a.out) when unset. */
void spur_job_output_path(const json_t *m, const char *key, const char *node, const char *workdir,
			  char *path, size_t len);

#endif
