/* SPDX-License-Identifier: Apache-2.0 */
/* The OCI executor: a task, or a batch script, run in a container by an
 * existing OCI runtime (crun or runc: the first that runs a container on
 * this host, found once by running one; or spur.conf's ContainerRuntime).
 * In the task's process, as root, once its cgroups, CPUs and stdio are
 * set: the image comes from the node's store (unpacked once), the
 * container's root is an overlay of it (a named container's is kept for
 * the job's later steps), config.json says who runs what (ocispec.h), and
 * the runtime is exec'd in the task's place: its exit is the task's. */
#ifndef SPUR_AGENT_OCI_H
#define SPUR_AGENT_OCI_H

#include <jansson.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* Sent to a container task's process: every process of its container is
 * killed (SIGKILL would end only the runtime, leaving the container). */
#define SPURD_OCI_KILL (SIGRTMIN + 1)

struct spurd_oci {
	const json_t *ctr;	  /* the job's container options */
	const char *store;	  /* the node's image store */
	const char *dir;	  /* the job's containers on this node (spurd_oci_dir) */
	const char *id;		  /* the container's id, unique on the host */
	const char *runtime;	  /* ContainerRuntime: a program, or NULL/"auto" */
	const char *cgroup;	  /* a folder of the job's cgroups (its container's go
				   * under it); NULL: none */
	const json_t *edits;	  /* the CDI containerEdits of its GPUs (an array) */
	const char *script;	  /* a batch script, run inside; NULL: argv */
	const char *home;	  /* the user's home */
	uid_t uid;
	gid_t gid;
	const gid_t *groups;
	int ngroups;
};

/* SPOOL/ctr/ID[.RUN]: where a job's containers live on this node. */
void spurd_oci_dir(const char *spool, uint32_t id, uint32_t run, char *buf, size_t len);
/* Run argv (with env; cwd: the job's folder on the host) in o's container:
 * returns only when it cannot, with why. */
void spurd_oci_exec(const struct spurd_oci *o, char *const *argv, char *const *env,
		    const char *cwd, char *why, size_t wlen);
/* The job's end on this node: its containers' roots unmounted, dir gone,
 * and the cgroup folders the runtime made beside the job's removed. */
void spurd_oci_job_done(const char *dir, const char *cgroup);

#endif
