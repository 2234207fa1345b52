/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup v2 limits for batch jobs (see cgroup.h). */
#include "agent/cgroup.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *const controllers[] = { "cpuset", "memory", "pids" };

static int put(const char *dir, const char *file, const char *text)
{
	char path[4300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	n = write(fd, text, strlen(text));
	if (close(fd) || n != (ssize_t)strlen(text))
		return -1;
	return 0;
}

static int get(const char *dir, const char *file, char *buf, size_t len)
{
	char path[4300];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	buf[0] = '\0';
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* The cgroup2 mount point, from /proc/self/mounts. */
static int find_root(char *root, size_t len)
{
	char line[4096], dev[256], mnt[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f))
		if (sscanf(line, "%255s %4095s %63s", dev, mnt, type) == 3 &&
		    !strcmp(type, "cgroup2")) {
			snprintf(root, len, "%s", mnt);
			found = 0;
		}
	fclose(f);
	return found;
}

static bool has_word(const char *list, const char *w)
{
	size_t n = strlen(w);

	for (const char *p = list; (p = strstr(p, w)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return true;
	return false;
}

void spurd_cgroup_init(struct spurd_cgroup *cg, const char *root, const char *node)
{
	char mnt[4096], spur[4200], have[512], missing[128] = "";
	bool *on[] = { &cg->cpuset, &cg->memory, &cg->pids };

	memset(cg, 0, sizeof(*cg));
	if (root)
		snprintf(mnt, sizeof(mnt), "%s", root);
	else if (find_root(mnt, sizeof(mnt))) {
		snprintf(cg->why, sizeof(cg->why), "no cgroup v2 hierarchy is mounted");
		return;
	}
	if (get(mnt, "cgroup.controllers", have, sizeof(have))) {
		snprintf(cg->why, sizeof(cg->why), "%s/cgroup.controllers: %s", mnt, strerror(errno));
		return;
	}
	snprintf(spur, sizeof(spur), "%s/spur", mnt);
	snprintf(cg->base, sizeof(cg->base), "%s/%s", spur, node);
	if ((mkdir(spur, 0755) && errno != EEXIST) || (mkdir(cg->base, 0755) && errno != EEXIST)) {
		snprintf(cg->why, sizeof(cg->why), "cannot make %s: %s", cg->base, strerror(errno));
		cg->base[0] = '\0';
		return;
	}
	/* each level hands the controllers down to the next */
	for (size_t i = 0; i < 3; i++) {
		char plus[32];

		snprintf(plus, sizeof(plus), "+%s", controllers[i]);
		*on[i] = has_word(have, controllers[i]) && !put(mnt, "cgroup.subtree_control", plus) &&
			 !put(spur, "cgroup.subtree_control", plus) &&
			 !put(cg->base, "cgroup.subtree_control", plus);
		if (!*on[i])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 *missing ? ", " : "", controllers[i]);
	}
	if (*missing)
		snprintf(cg->why, sizeof(cg->why),
			 "%s not available in the cgroup v2 hierarchy %s, which has: %s", missing, mnt,
			 *have ? have : "no controllers");
	if (!cg->cpuset && !cg->memory && !cg->pids) {
		rmdir(cg->base);
		rmdir(spur);
		cg->base[0] = '\0';
	}
}

void spurd_cgroup_describe(const struct spurd_cgroup *cg, char *buf, size_t len)
{
	if (!cg->base[0]) {
		snprintf(buf, len, "cgroup: none, jobs run without limits: %s", cg->why);
		return;
	}
	snprintf(buf, len, "cgroup: v2 %s: %s%s%s%s%s", cg->base, cg->cpuset ? "cpuset " : "",
		 cg->memory ? "memory.max " : "", cg->pids ? "pids.max " : "",
		 *cg->why ? "; " : "", cg->why);
}

static void job_path(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, char *buf,
		     size_t len)
{
	if (run > 1)
		snprintf(buf, len, "%s/job_%u.%u", cg->base, id, run);
	else
		snprintf(buf, len, "%s/job_%u", cg->base, id);
}

int spurd_cgroup_job(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, const char *cpus,
		     uint64_t mem_mb, uint64_t pids, char *dir, size_t len, char *why, size_t wlen)
{
	char v[64];
	const char *failed = NULL;

	dir[0] = '\0';
	if (!cg->base[0])
		return 0;
	job_path(cg, id, run, dir, len);
	if (mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(why, wlen, "cannot make %s: %s", dir, strerror(errno));
		dir[0] = '\0';
		return -1;
	}
	if (cg->cpuset && cpus && *cpus && put(dir, "cpuset.cpus", cpus))
		failed = "cpuset.cpus";
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mem_mb * 1024 * 1024);
	if (!failed && cg->memory && mem_mb && put(dir, "memory.max", v))
		failed = "memory.max";
	snprintf(v, sizeof(v), "%llu", (unsigned long long)pids);
	if (!failed && cg->pids && pids && put(dir, "pids.max", v))
		failed = "pids.max";
	if (failed) {
		snprintf(why, wlen, "%s/%s: %s", dir, failed, strerror(errno));
		rmdir(dir);
		dir[0] = '\0';
		return -1;
	}
	return 0;
}

void spurd_cgroup_job_done(const struct spurd_cgroup *cg, uint32_t id, uint32_t run)
{
	static const char *const files[] = { "cpuset.cpus", "memory.max", "pids.max",
					     "cgroup.procs", "cgroup.kill" };
	char dir[4200], path[4300];

	if (!cg->base[0])
		return;
	job_path(cg, id, run, dir, sizeof(dir));
	put(dir, "cgroup.kill", "1"); /* processes that left the job's group */
	if (!rmdir(dir) || errno != ENOTEMPTY)
		return;
	/* not cgroupfs (a test's folder): its files are plain files */
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

void spurd_cgroup_job_cpus(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, char *buf,
			   size_t len)
{
	char dir[4200];

	buf[0] = '\0';
	if (!cg->base[0] || !cg->cpuset)
		return;
	job_path(cg, id, run, dir, sizeof(dir));
	get(dir, "cpuset.cpus", buf, len);
}
