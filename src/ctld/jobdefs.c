/* SPDX-License-Identifier: Apache-2.0 */
/* A submission's memory and CPU-per-GPU defaults (see jobdefs.h). */
#include "jobdefs.h"

#include "common/gres.h"
#include "common/jobfmt.h"
#include "common/rlimit.h"
#include "common/wire.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/* Does the job ask for whole GPUs (--gpus*, --gres=gpu)? */
/* --gres=gpu[:TYPE]:N: N per node, 0 when none. */
static json_int_t gres_gpus(const json_t *job)
{
	const char *gres = spur_json_str(job, "gres", NULL);
	struct spur_gres_list g = { 0 };
	struct spur_error e;
	json_int_t n;

	if (!gres || !*gres || spur_gres_parse(gres, 0, &g, &e))
		return 0;
	n = (json_int_t)spur_gres_count(&g, "gpu", NULL);
	spur_gres_fini(&g);
	return n;
}

static bool job_has_gpus(const json_t *job)
{
	return spur_json_int(job, "gpus_per_node", 0) || spur_json_int(job, "gpus", 0) ||
	       spur_json_int(job, "gpus_per_task", 0) || gres_gpus(job) > 0;
}

/* --ntasks-per-gpu=N, as Slurm: N tasks for each GPU of the job, or with
 * -n and no GPUs asked, a GPU for each N tasks. */
static void tasks_per_gpu(json_t *job)
{
	json_int_t per = spur_json_int(job, "ntasks_per_gpu", 1), total;

	if (per <= 0)
		return;
	if (!job_has_gpus(job) && spur_json_int(job, "ntasks", 0) > 0) {
		json_object_set_new(job, "gpus",
				    json_integer((spur_json_int(job, "ntasks", 0) + per - 1) / per));
		return;
	}
	if (json_object_get(job, "ntasks"))
		return;
	total = spur_json_int(job, "gpus", 0);
	if (!total)
		total = (spur_json_int(job, "gpus_per_node", 0) ? spur_json_int(job, "gpus_per_node", 0)
								: gres_gpus(job)) *
			spur_json_int(job, "nodes", 1);
	if (total)
		json_object_set_new(job, "ntasks", json_integer(total * per));
}

static const struct spur_conf_partition *job_partition(const struct spur_conf *cf,
							const json_t *job)
{
	const char *pl = spur_json_str(job, "partition", NULL);
	char name[128];

	if (!pl || !*pl)
		return spur_conf_default_partition(cf);
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(pl, ","), pl);
	return spur_conf_partition(cf, name);
}

static uint64_t pick(uint64_t part, uint64_t cluster)
{
	return part ? part : cluster;
}

bool ctld_rlimit_list_ok(const char *list)
{
	const char *bad;
	size_t l;

	return spur_rlimit_list_ok(list, &bad, &l);
}

json_t *ctld_job_rlimits(const struct spur_conf *cf, const json_t *req)
{
	const json_t *have = json_object_get(req, "rlimits");
	const char *want = spur_json_str(req, "propagate", NULL), *except = NULL;
	json_t *out = json_object();

	if (!want) {
		want = cf->propagate_limits && *cf->propagate_limits ? cf->propagate_limits : "ALL";
		except = cf->propagate_except;
	}
	for (size_t i = 0; i < SPUR_RLIMIT_COUNT; i++) {
		const char *name = spur_rlimit_name(i);
		const json_t *v = json_object_get(have, name);

		if (!json_is_integer(v) || spur_jobfmt_in_list(want, "NONE") ||
		    (except && spur_jobfmt_in_list(except, name)) ||
		    !(spur_jobfmt_in_list(want, "ALL") || spur_jobfmt_in_list(want, name)))
			continue;
		json_object_set(out, name, (json_t *)v);
	}
	return out;
}

int ctld_job_defaults(const struct spur_conf *cf, json_t *job, struct spur_error *err)
{
	static const char *const mems[] = { "mem_per_node", "mem_per_cpu", "mem_per_gpu" };
	const struct spur_conf_partition *pt = job_partition(cf, job);
	bool gpus = job_has_gpus(job);
	int named = 0;

	for (size_t i = 0; i < 3; i++)
		named += json_object_get(job, mems[i]) != NULL;
	if (named > 1)
		return spur_error_set(err, SPUR_EINVAL,
				      "--mem, --mem-per-cpu, and --mem-per-gpu are mutually exclusive");
	if (json_object_get(job, "ntasks_per_gpu")) {
		tasks_per_gpu(job);
		gpus = job_has_gpus(job);
	}
	if (!gpus && (json_object_get(job, "mem_per_gpu") || json_object_get(job, "cpus_per_gpu") ||
		      json_object_get(job, "ntasks_per_gpu")))
		return spur_error_set(err, SPUR_EINVAL,
				      "--mem-per-gpu, --cpus-per-gpu and --ntasks-per-gpu need GPUs "
				      "(--gpus, --gpus-per-node, --gpus-per-task or --gres=gpu)");
	if (json_object_get(job, "cpus_per_gpu") && json_object_get(job, "cpus_per_task"))
		return spur_error_set(err, SPUR_EINVAL,
				      "--cpus-per-gpu is mutually exclusive with --cpus-per-task");
	/* OverSubscribe=EXCLUSIVE: whole nodes for every job; -s shares CPUs
	 * where the partition lets jobs share (YES, FORCE: the scheduler); with
	 * NO it changes nothing, as in Slurm */
	if (pt && pt->oversubscribe && !strcasecmp(pt->oversubscribe, "EXCLUSIVE"))
		json_object_set_new(job, "exclusive", json_true());
	if (!named) {
		uint64_t g = pick(pt ? pt->def_mem_per_gpu_mb : 0, cf->def_mem_per_gpu_mb);
		uint64_t c = pick(pt ? pt->def_mem_per_cpu_mb : 0, cf->def_mem_per_cpu_mb);
		uint64_t n = pick(pt ? pt->def_mem_per_node_mb : 0, cf->def_mem_per_node_mb);

		if (gpus && g)
			json_object_set_new(job, "mem_per_gpu", json_integer((json_int_t)g));
		else if (c)
			json_object_set_new(job, "mem_per_cpu", json_integer((json_int_t)c));
		else if (n)
			json_object_set_new(job, "mem_per_node", json_integer((json_int_t)n));
	}
	if (gpus && !json_object_get(job, "cpus_per_gpu") && !json_object_get(job, "cpus_per_task")) {
		uint32_t d = pt && pt->def_cpu_per_gpu ? pt->def_cpu_per_gpu : cf->def_cpu_per_gpu;

		if (d)
			json_object_set_new(job, "cpus_per_gpu", json_integer(d));
	}
	return 0;
}
