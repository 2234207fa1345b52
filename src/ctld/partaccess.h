/* SPDX-License-Identifier: Apache-2.0 */
/* A partition's access controls at submission, as Slurm applies them:
 * AllowGroups (the user's groups, supplementary ones included),
 * AllowAccounts, DenyAccounts, AllowQos and MaxMemPerNode. Root is not
 * held by them. */
#ifndef SPUR_CTLD_PARTACCESS_H
#define SPUR_CTLD_PARTACCESS_H

#include "common/conf.h"
#include "common/error.h"

#include <jansson.h>
#include <sys/types.h>

/* 0 when job (its "user", "gid", "account", "qos", "mem_per_node") may
 * use partition pt; else an error whose message starts with Slurm's words
 * for it, the detail in parentheses. */
int ctld_part_access(const struct spur_conf_partition *pt, const json_t *job, uid_t uid,
		     struct spur_error *err);

#endif
