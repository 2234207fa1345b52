/* SPDX-License-Identifier: Apache-2.0 */
/* Who may use a partition (see partaccess.h). */
#include "partaccess.h"

#include "common/jobfmt.h"
#include "common/wire.h"

#include <grp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* "ALL" (or unset) lets everyone in. */
static bool everyone(const char *list)
{
	return !list || !*list || !strcasecmp(list, "ALL");
}

/* Is one of the user's groups (primary and supplementary) in list? */
static bool in_groups(const char *list, const char *user, gid_t gid)
{
	gid_t groups[256];
	int n = 256;

	if (getgrouplist(user, gid, groups, &n) < 0)
		n = 256; /* more groups than room: the first 256 are looked at */
	for (int i = 0; i < n; i++) {
		struct group *gr = getgrgid(groups[i]);

		if (gr && spur_jobfmt_in_list(list, gr->gr_name))
			return true;
	}
	return false;
}

int ctld_part_access(const struct spur_conf_partition *pt, const json_t *job, uid_t uid,
		     struct spur_error *err)
{
	const char *user = spur_json_str(job, "user", ""), *acct = spur_json_str(job, "account", "");
	const char *qos = spur_json_str(job, "qos", "");
	json_int_t mem = spur_json_int(job, "mem_per_node", 0);

	if (uid == 0) /* root, as Slurm's SlurmUser and root, is not held by them */
		return 0;
	if (pt->root_only)
		return spur_error_set(err, SPUR_EPERM,
				      "Access/permission denied (partition %s: RootOnly=YES)", pt->name);
	if (!everyone(pt->allow_groups) &&
	    !in_groups(pt->allow_groups, user, (gid_t)spur_json_int(job, "gid", 0)))
		return spur_error_set(err, SPUR_EPERM,
				      "Access/permission denied (partition %s: AllowGroups=%s)",
				      pt->name, pt->allow_groups);
	if ((!everyone(pt->allow_accounts) && !spur_jobfmt_in_list(pt->allow_accounts, acct)) ||
	    (pt->deny_accounts && *pt->deny_accounts && *acct &&
	     spur_jobfmt_in_list(pt->deny_accounts, acct)))
		return spur_error_set(err, SPUR_EPERM,
				      "Invalid account or account/partition combination specified "
				      "(partition %s: account '%s')",
				      pt->name, acct);
	if ((!everyone(pt->allow_qos) && !spur_jobfmt_in_list(pt->allow_qos, *qos ? qos : "normal")) ||
	    (pt->deny_qos && *pt->deny_qos && spur_jobfmt_in_list(pt->deny_qos, *qos ? qos : "normal")))
		return spur_error_set(err, SPUR_EPERM,
				      "Invalid qos specification (partition %s: AllowQos=%s DenyQos=%s)",
				      pt->name, pt->allow_qos ? pt->allow_qos : "ALL",
				      pt->deny_qos ? pt->deny_qos : "");
	if (pt->max_mem_per_node_mb && mem > 0 && (uint64_t)mem > pt->max_mem_per_node_mb)
		return spur_error_set(err, SPUR_EINVAL,
				      "Memory required by task is not available (partition %s: "
				      "MaxMemPerNode=%llu)",
				      pt->name, (unsigned long long)pt->max_mem_per_node_mb);
	return 0;
}
