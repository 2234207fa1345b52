/* SPDX-License-Identifier: Apache-2.0 */
/* JobSubmitPlugins=lua: the site's job_submit.lua (beside slurm.conf) runs
 * unchanged on every submission, through Debian's Lua 5.4, with Slurm's
 * API: slurm_job_submit(job_desc, part_list, submit_uid) and
 * slurm_job_modify(...) defined by the script; slurm.log_info, log_verbose,
 * log_debug to log_debug5, log_error, log_user and slurm.user_msg; slurm.SUCCESS, ERROR, FAILURE, the
 * common ESLURM_* codes, NO_VAL and INFINITE; job_desc's fields as Slurm
 * names them (unset numbers read NO_VAL, unset strings nil), written back
 * to the job. A field Spur does not carry is refused by name when the
 * script sets it, never dropped. Loaded again when the file changes. */
#ifndef SPUR_CTLD_JOBSUBMIT_H
#define SPUR_CTLD_JOBSUBMIT_H

#include "common/conf.h"
#include "common/error.h"

#include <jansson.h>
#include <stdint.h>

struct ctld_jobsubmit;

/* For JobSubmitPlugins: NULL (none) when not set, refused by name for a
 * plugin other than lua; the script loaded. */
int ctld_jobsubmit_open(const struct spur_conf *conf, const char *conf_path,
			struct ctld_jobsubmit **out, struct spur_error *err);
/* Run slurm_job_submit on job (a submission's spec, changed in place).
 * 0; or the script's refusal: err->code its return code, err->msg Slurm's
 * message for it. user_msg gets what the script told the user ("" none). */
int ctld_jobsubmit_run(struct ctld_jobsubmit *js, const struct spur_conf *conf, json_t *job,
		       uint32_t submit_uid, char *user_msg, size_t len, struct spur_error *err);
void ctld_jobsubmit_close(struct ctld_jobsubmit *js);

#endif
