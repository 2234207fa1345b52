/* SPDX-License-Identifier: Apache-2.0 */
/* cgroup v2 and v1 limits for batch jobs (see cgroup.h). */
#include "agent/cgroup.h"

#include "agent/devfence.h"

#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

static const char *const controllers[] = { "cpuset", "memory", "pids", "devices" };

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


/* The whole of DIR/file (get keeps the first line only). */
static int get_all(const char *dir, const char *file, char *buf, size_t len)
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
	return 0;
}

/* The mount point of a cgroup2 hierarchy (ctl NULL), or of the v1
 * hierarchy holding controller ctl, from /proc/self/mounts. */
static int find_mount(const char *ctl, char *root, size_t len)
{
	char line[4096], dev[256], mnt[4096], type[64], opts[1024];
	FILE *f = fopen("/proc/self/mounts", "r");
	int found = -1;

	if (!f)
		return -1;
	while (found && fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%255s %4095s %63s %1023s", dev, mnt, type, opts) != 4)
			continue;
		if (!ctl && !strcmp(type, "cgroup2"))
			found = 0;
		if (ctl && !strcmp(type, "cgroup")) {
			/* the options name the controllers: rw,relatime,cpu,cpuacct */
			for (char *o = strtok(opts, ","); o && found; o = strtok(NULL, ","))
				if (!strcmp(o, ctl))
					found = 0;
		}
		if (!found)
			snprintf(root, len, "%s", mnt);
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

static void add_why(struct spurd_cgroup *cg, const char *what, const char *arg)
{
	size_t n = strlen(cg->why);

	snprintf(cg->why + n, sizeof(cg->why) - n, "%s%s %s", *cg->why ? "; " : "", what, arg);
}

/* v1 cpuset: a folder takes no task until it has cpus and mems; a new one
 * is empty, so it gets its parent's. */
static int cpuset_inherit(const char *parent, const char *dir)
{
	char v[4096];

	return get(parent, "cpuset.cpus", v, sizeof(v)) || put(dir, "cpuset.cpus", v) ||
	       get(parent, "cpuset.mems", v, sizeof(v)) || put(dir, "cpuset.mems", v);
}

static int init_v2(struct spurd_cgroup *cg, const char *mnt, const char *name, const char *node)
{
	char have[512], missing[128] = "", lvl[2][4200], why[300];
	struct statfs fs;
	bool *on[] = { &cg->cpuset, &cg->memory, &cg->pids };

	if (get(mnt, "cgroup.controllers", have, sizeof(have))) {
		snprintf(cg->why, sizeof(cg->why), "%s/cgroup.controllers: %s", mnt, strerror(errno));
		return -1;
	}
	snprintf(lvl[0], sizeof(lvl[0]), "%s/%s", mnt, name);
	snprintf(lvl[1], sizeof(lvl[1]), "%s/%s", lvl[0], node);
	if ((mkdir(lvl[0], 0755) && errno != EEXIST) || (mkdir(lvl[1], 0755) && errno != EEXIST)) {
		snprintf(cg->why, sizeof(cg->why), "cannot make %s: %s", lvl[1], strerror(errno));
		return -1;
	}
	/* each level hands the controllers down to the next */
	for (size_t i = 0; i < 3; i++) {
		char plus[32];

		snprintf(plus, sizeof(plus), "+%s", controllers[i]);
		*on[i] = has_word(have, controllers[i]) && !put(mnt, "cgroup.subtree_control", plus) &&
			 !put(lvl[0], "cgroup.subtree_control", plus) &&
			 !put(lvl[1], "cgroup.subtree_control", plus);
		if (!*on[i])
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), "%s%s",
				 *missing ? ", " : "", controllers[i]);
		if (*on[i])
			snprintf(cg->base[i], sizeof(cg->base[i]), "%s", lvl[1]);
	}
	if (*missing)
		snprintf(cg->why, sizeof(cg->why),
			 "%s not available in the cgroup v2 hierarchy %s, which has: %s", missing, mnt,
			 *have ? have : "no controllers");
	/* v2 has no devices controller: a BPF program fences them, on any
	 * cgroup2 folder (also one without controllers: a hybrid host's) */
	if (statfs(mnt, &fs) || fs.f_type != CGROUP2_SUPER_MAGIC)
		snprintf(why, sizeof(why), "%s is not a cgroup2 file system", mnt);
	else if ((cg->devices = spurd_devfence_works(why, sizeof(why))))
		snprintf(cg->base[3], sizeof(cg->base[3]), "%s", lvl[1]);
	if (!cg->cpuset && !cg->memory && !cg->pids && !cg->devices) {
		rmdir(lvl[1]);
		rmdir(lvl[0]);
		return -1;
	}
	if (!cg->devices)
		add_why(cg, "no device fencing on cgroup v2:", why);
	cg->version = 2;
	return 0;
}

static void init_v1(struct spurd_cgroup *cg, const char *name, const char *node)
{
	bool *on[] = { &cg->cpuset, &cg->memory, &cg->pids, &cg->devices };

	for (size_t i = 0; i < 4; i++) {
		char mnt[4096], lvl[4200], probe[4300];

		if (find_mount(controllers[i], mnt, sizeof(mnt))) {
			add_why(cg, "no cgroup v1 hierarchy has", controllers[i]);
			continue;
		}
		snprintf(lvl, sizeof(lvl), "%s/%s", mnt, name);
		snprintf(cg->base[i], sizeof(cg->base[i]), "%s/%s", lvl, node);
		if ((mkdir(lvl, 0755) && errno != EEXIST) ||
		    (mkdir(cg->base[i], 0755) && errno != EEXIST) ||
		    (i == 0 && (cpuset_inherit(mnt, lvl) || cpuset_inherit(lvl, cg->base[i])))) {
			snprintf(probe, sizeof(probe), "%s: %s", cg->base[i], strerror(errno));
			add_why(cg, "cannot prepare", probe);
			cg->base[i][0] = '\0';
			continue;
		}
		*on[i] = true;
		if (i == 1) {
			snprintf(probe, sizeof(probe), "%s/memory.memsw.limit_in_bytes", cg->base[i]);
			cg->memsw = access(probe, F_OK) == 0;
		}
	}
	if (cg->cpuset || cg->memory || cg->pids || cg->devices)
		cg->version = 1;
}

void spurd_cgroup_init(struct spurd_cgroup *cg, const char *root, const char *name,
		       const char *node)
{
	char mnt[4096], have[512] = "";

	memset(cg, 0, sizeof(*cg));
	name = name && *name ? name : "spur";
	if (root) { /* a folder given: shaped as cgroup v2 */
		init_v2(cg, root, name, node);
		return;
	}
	/* v2 where its mount has any of the controllers; else v1 */
	if (!find_mount(NULL, mnt, sizeof(mnt)) && !get(mnt, "cgroup.controllers", have, sizeof(have)) &&
	    (has_word(have, "cpuset") || has_word(have, "memory") || has_word(have, "pids"))) {
		init_v2(cg, mnt, name, node);
		return;
	}
	init_v1(cg, name, node);
}

void spurd_cgroup_describe(const struct spurd_cgroup *cg, char *buf, size_t len)
{
	if (!cg->version) {
		snprintf(buf, len, "cgroup: none, jobs run without limits: %s",
			 *cg->why ? cg->why : "no cgroup hierarchy is mounted");
		return;
	}
	if (cg->version == 2)
		snprintf(buf, len, "cgroup: v2 %s: %s%s%s%s%s%s",
			 cg->base[0][0]	  ? cg->base[0]
			 : cg->base[1][0] ? cg->base[1]
			 : cg->base[2][0] ? cg->base[2]
					  : cg->base[3],
			 cg->cpuset ? "cpuset " : "", cg->memory ? "memory.max " : "",
			 cg->pids ? "pids.max " : "", cg->devices ? "devices(bpf) " : "",
			 *cg->why ? "; " : "", cg->why);
	else
		snprintf(buf, len, "cgroup: v1: %s%s%s%s%s%s%s", cg->cpuset ? "cpuset " : "",
			 cg->memory ? "memory.limit_in_bytes " : "",
			 cg->memsw ? "memory.memsw.limit_in_bytes " : "", cg->pids ? "pids.max " : "",
			 cg->devices ? "devices.deny " : "", *cg->why ? "; " : "", cg->why);
}

static void job_path(const struct spurd_cgroup *cg, int c, uint32_t id, uint32_t run, char *buf,
		     size_t len)
{
	if (run > 1)
		snprintf(buf, len, "%s/job_%u.%u", cg->base[c], id, run);
	else
		snprintf(buf, len, "%s/job_%u", cg->base[c], id);
}

/* v1: a folder cannot go while a process is in it */
static void empty_v1(const char *dir)
{
	char pids[8192];

	for (int round = 0; round < 20; round++) {
		bool any = false;

		if (get_all(dir, "cgroup.procs", pids, sizeof(pids)))
			return;
		for (char *p = strtok(pids, "\n"); p; p = strtok(NULL, "\n")) {
			kill((pid_t)atol(p), SIGKILL);
			any = true;
		}
		if (!any || !rmdir(dir))
			return;
		usleep(10000); /* a killed process leaves its cgroup when it is reaped */
	}
	/* still busy (a process slow to die): the sweep tries again later */
}

/* A folder's processes killed, and the folder gone. */
static void remove_dir(const struct spurd_cgroup *cg, const char *dir)
{
	if (cg->version == 2)
		put(dir, "cgroup.kill", "1"); /* also what left the job's group */
	else
		empty_v1(dir);
	rmdir(dir);
}

/* The step folders (spurd_cgroup_step) and the containers' (oci_*, the OCI
 * runtime's) under a job's folder: gone first,
 * a folder with folders in it cannot go. */
static void remove_steps(const struct spurd_cgroup *cg, const char *job)
{
	DIR *d = opendir(job);
	struct dirent *e;
	char dir[4500];

	while (d && (e = readdir(d)))
		if (!strncmp(e->d_name, "step_", 5) || !strncmp(e->d_name, "oci_", 4)) {
			snprintf(dir, sizeof(dir), "%s/%s", job, e->d_name);
			remove_dir(cg, dir);
		}
	if (d)
		closedir(d);
}

/* The job's folders, their processes killed, gone; false when one is left
 * (a process that did not die in time). */
static bool remove_job(const struct spurd_cgroup *cg, uint32_t id, uint32_t run)
{
	static const char *const files[] = { "cpuset.cpus", "memory.max", "pids.max",
					     "cgroup.procs", "cgroup.kill" };
	char dir[4200], path[4300];
	bool gone = true;

	for (int c = 0; c < SPURD_CG_MAX; c++) {
		if (!cg->base[c][0] || (c > 0 && !strcmp(cg->base[c], cg->base[c - 1])))
			continue;
		job_path(cg, c, id, run, dir, sizeof(dir));
		remove_steps(cg, dir);
		if (cg->version == 2)
			put(dir, "cgroup.kill", "1"); /* processes that left the job's group */
		else
			empty_v1(dir);
		if (!rmdir(dir) || errno == ENOENT)
			continue;
		if (errno == ENOTEMPTY) {
			/* not cgroupfs (a test's folder): its files are plain files */
			for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
				snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
				unlink(path);
			}
			if (!rmdir(dir))
				continue;
		}
		gone = false;
	}
	return gone;
}

/* The limits of controller c in the job's folder dir; the file that could
 * not be written, or NULL. */
static const char *set_limits(const struct spurd_cgroup *cg, int c, const char *dir,
			      const struct spurd_cgroup_limits *lim)
{
	const char *cpus = lim->cpus;
	uint64_t mem_mb = lim->mem_mb, pids = lim->pids;
	char v[64];

	if (c == 3 && cg->devices) {
		struct spurd_devfence_dev devs[SPURD_DEVFENCE_MAX];
		size_t n = spurd_devfence_devs(lim->deny, devs, SPURD_DEVFENCE_MAX);
		char why[300];
		int rc;

		if (cg->version == 2) {
			if (n && (rc = spurd_devfence_attach(dir, devs, n, why, sizeof(why)))) {
				errno = -rc;
				return "BPF device program";
			}
			return NULL;
		}
		/* read and write: mknod alone opens nothing, and a container
		 * runtime's folder under the job's asks for "c *:* m", which
		 * a denied "m" would refuse */
		for (size_t i = 0; i < n; i++) {
			snprintf(v, sizeof(v), "%c %u:%u rw", devs[i].block ? 'b' : 'c',
				 devs[i].major, devs[i].minor);
			if (put(dir, "devices.deny", v))
				return "devices.deny";
		}
	}

	if (c == 0 && cg->cpuset && cg->version == 1) {
		/* a new v1 cpuset takes no task until it has mems and cpus; each
		 * write of cpuset.cpus rebuilds the kernel's scheduling domains,
		 * so the job's go in at once */
		if (get(cg->base[0], "cpuset.mems", v, sizeof(v)) || put(dir, "cpuset.mems", v))
			return "cpuset.mems";
		if (put(dir, "cpuset.cpus", cpus))
			return "cpuset.cpus";
	} else if (c == 0 && cg->cpuset && cpus && *cpus && put(dir, "cpuset.cpus", cpus)) {
		return "cpuset.cpus";
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)mem_mb * 1024 * 1024);
	if (c == 1 && cg->memory && mem_mb) {
		if (cg->version == 2 && put(dir, "memory.max", v))
			return "memory.max";
		if (cg->version == 1 && put(dir, "memory.limit_in_bytes", v))
			return "memory.limit_in_bytes";
		if (cg->version == 1 && cg->memsw && put(dir, "memory.memsw.limit_in_bytes", v))
			return "memory.memsw.limit_in_bytes";
	}
	snprintf(v, sizeof(v), "%llu", (unsigned long long)pids);
	if (c == 2 && cg->pids && pids && put(dir, "pids.max", v))
		return "pids.max";
	return NULL;
}

/* v1: is controller c's folder of no use to this job (no CPUs to pin it
 * to, no device to deny)? It is then not made: each folder costs the
 * kernel a mkdir, its files and an rmdir a job. The memory folder is made
 * always (peak use, OOM kills, and what kills the job's last processes). */
static bool v1_idle(const struct spurd_cgroup *cg, int c, const struct spurd_cgroup_limits *lim)
{
	struct spurd_devfence_dev devs[SPURD_DEVFENCE_MAX];

	if (cg->version != 1)
		return false;
	if (c == 0)
		return !lim->cpus || !*lim->cpus;
	return c == 3 && !spurd_devfence_devs(lim->deny, devs, SPURD_DEVFENCE_MAX);
}

int spurd_cgroup_job(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
		     const struct spurd_cgroup_limits *lim, struct spurd_cgroup_dirs *dirs,
		     char *why, size_t wlen)
{
	memset(dirs, 0, sizeof(*dirs));
	for (int c = 0; c < SPURD_CG_MAX; c++) {
		char *dir = dirs->dir[dirs->n];
		const char *failed;

		if (!cg->base[c][0] || v1_idle(cg, c, lim))
			continue;
		job_path(cg, c, id, run, dir, sizeof(dirs->dir[0]));
		/* v2: one folder holds the three */
		if (dirs->n && !strcmp(dir, dirs->dir[dirs->n - 1])) {
			dir = dirs->dir[dirs->n - 1];
		} else {
			if (mkdir(dir, 0755) && errno != EEXIST) {
				snprintf(why, wlen, "cannot make %s: %s", dir, strerror(errno));
				goto fail;
			}
			dirs->n++;
		}
		if ((failed = set_limits(cg, c, dir, lim))) {
			snprintf(why, wlen, "%s/%s: %s", dir, failed, strerror(errno));
			goto fail;
		}
	}
	return 0;
fail:
	remove_job(cg, id, run);
	memset(dirs, 0, sizeof(*dirs));
	return -1;
}

void spurd_cgroup_job_dirs(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
			   struct spurd_cgroup_dirs *dirs)
{
	memset(dirs, 0, sizeof(*dirs));
	for (int c = 0; c < SPURD_CG_MAX; c++) {
		if (!cg->base[c][0])
			continue;
		job_path(cg, c, id, run, dirs->dir[dirs->n], sizeof(dirs->dir[0]));
		/* v1: only the folders the job was given (v1_idle) */
		if (cg->version == 1 && access(dirs->dir[dirs->n], F_OK))
			continue;
		if (!dirs->n || strcmp(dirs->dir[dirs->n], dirs->dir[dirs->n - 1]))
			dirs->n++;
	}
}

bool spurd_cgroup_job_oom(const struct spurd_cgroup *cg, uint32_t id, uint32_t run)
{
	char dir[4200], text[1024];
	const char *p;

	if (!cg->memory)
		return false;
	job_path(cg, 1, id, run, dir, sizeof(dir));
	/* v2 memory.events and v1 memory.oom_control both count "oom_kill N" */
	if (get_all(dir, cg->version == 2 ? "memory.events" : "memory.oom_control", text,
		    sizeof(text)))
		return false;
	p = strstr(text, "oom_kill ");
	return p && atol(p + 9) > 0;
}

uint64_t spurd_cgroup_job_peak_kb(const struct spurd_cgroup *cg, uint32_t id, uint32_t run)
{
	char dir[4200], text[64];

	if (!cg->memory)
		return 0;
	job_path(cg, 1, id, run, dir, sizeof(dir));
	/* v1 memory.max_usage_in_bytes; v2 memory.peak (Linux 5.19 and later) */
	if (get_all(dir, cg->version == 2 ? "memory.peak" : "memory.max_usage_in_bytes", text,
		    sizeof(text)))
		return 0;
	return strtoull(text, NULL, 10) / 1024;
}

/* utime + stime (ms) and RSS (KiB) of process pid from /proc. */
void spurd_proc_usage(long pid, struct spurd_usage *u)
{
	char path[64], text[1024], *p;
	unsigned long long ut = 0, st = 0;
	long long rss = 0;

	snprintf(path, sizeof(path), "/proc/%ld", pid);
	if (get_all(path, "stat", text, sizeof(text)) || !(p = strrchr(text, ')')))
		return;
	/* after "(comm)": state, then fields 4..; utime 14, stime 15, rss 24 */
	if (sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %*d %*d %*d %*d "
			  "%*d %*d %*u %*u %lld",
		   &ut, &st, &rss) != 3)
		return;
	u->cpu_ms += (ut + st) * 1000 / (unsigned long long)sysconf(_SC_CLK_TCK);
	u->rss_kb += (uint64_t)(rss > 0 ? rss : 0) * (uint64_t)(sysconf(_SC_PAGESIZE) / 1024);
	u->pids++;
}

/* Every process's parent, from /proc/N/stat (the kernel may not have
 * /proc/N/task/N/children); n of them in v, NULL when out of memory. */
static long (*proc_parents(size_t *n))[2]
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	long (*v)[2] = NULL;
	size_t cap = 0;

	*n = 0;
	while (d && (e = readdir(d))) {
		char dir[64], text[512], *p;
		long ppid;

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s", e->d_name);
		if (get_all(dir, "stat", text, sizeof(text)) || !(p = strrchr(text, ')')) ||
		    sscanf(p + 2, "%*c %ld", &ppid) != 1)
			continue;
		if (*n == cap) {
			long (*w)[2] = realloc(v, (cap = cap ? 2 * cap : 256) * sizeof(*v));

			if (!w)
				break;
			v = w;
		}
		v[*n][0] = atol(e->d_name);
		v[(*n)++][1] = ppid;
	}
	if (d)
		closedir(d);
	return v;
}

void spurd_proc_tree_usage(long pid, struct spurd_usage *u)
{
	size_t n, nq = 0;
	long (*pp)[2] = proc_parents(&n), *q = calloc(n + 1, sizeof(long));

	if (!q) {
		spurd_proc_usage(pid, u);
		free(pp);
		return;
	}
	q[nq++] = pid;
	/* breadth first: each process found, then its children */
	for (size_t i = 0; i < nq; i++) {
		spurd_proc_usage(q[i], u);
		for (size_t k = 0; pp && k < n && nq < n + 1; k++)
			if (pp[k][1] == q[i])
				q[nq++] = pp[k][0];
	}
	free(q);
	free(pp);
}

int spurd_cgroup_job_usage(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
			   struct spurd_usage *u)
{
	char dir[4200], text[65536], *save = NULL;

	memset(u, 0, sizeof(*u));
	if (!cg->memory)
		return -1;
	job_path(cg, 1, id, run, dir, sizeof(dir));
	if (get_all(dir, "cgroup.procs", text, sizeof(text)))
		return -1;
	for (char *t = strtok_r(text, "\n", &save); t; t = strtok_r(NULL, "\n", &save))
		spurd_proc_usage(atol(t), u);
	if (!get_all(dir, cg->version == 2 ? "memory.current" : "memory.usage_in_bytes", text,
		     sizeof(text)))
		u->mem_kb = strtoull(text, NULL, 10) / 1024;
	u->peak_kb = spurd_cgroup_job_peak_kb(cg, id, run);
	return 0;
}

bool spurd_cgroup_job_done(const struct spurd_cgroup *cg, uint32_t id, uint32_t run)
{
	return !cg->version || remove_job(cg, id, run);
}

/* "job_7" (run 1) or "job_7.2": false for any other name. */
static bool job_name(const char *name, uint32_t *id, uint32_t *run)
{
	char *end;
	unsigned long v;

	if (strncmp(name, "job_", 4) || name[4] < '0' || name[4] > '9')
		return false;
	v = strtoul(name + 4, &end, 10);
	*id = (uint32_t)v;
	*run = 1;
	if (*end == '.' && end[1] >= '0' && end[1] <= '9') {
		*run = (uint32_t)strtoul(end + 1, &end, 10);
		if (*run < 2)
			return false;
	}
	return !*end && v <= UINT32_MAX;
}

int spurd_cgroup_sweep(const struct spurd_cgroup *cg, spurd_cgroup_live_fn live, void *arg)
{
	int left = 0;

	for (int c = 0; cg->version && c < SPURD_CG_MAX; c++) {
		DIR *d;
		struct dirent *e;
		uint32_t id, run;

		if (!cg->base[c][0] || (c > 0 && !strcmp(cg->base[c], cg->base[c - 1])) ||
		    !(d = opendir(cg->base[c])))
			continue;
		while ((e = readdir(d)))
			if (job_name(e->d_name, &id, &run) && !live(arg, id, run) &&
			    !remove_job(cg, id, run))
				left++;
		closedir(d);
	}
	return left;
}

void spurd_cgroup_job_cpus(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, char *buf,
			   size_t len)
{
	char dir[4200];

	buf[0] = '\0';
	if (!cg->cpuset)
		return;
	job_path(cg, 0, id, run, dir, sizeof(dir));
	get(dir, "cpuset.cpus", buf, len);
}

/* The folder of step in the devices hierarchy (v1) or the job's (v2). */
static void step_path(const struct spurd_cgroup *cg, int c, uint32_t id, uint32_t run,
		      uint32_t step, char *job, size_t jlen, char *buf, size_t len)
{
	job_path(cg, c, id, run, job, jlen);
	snprintf(buf, len, "%s/step_%u", job, step);
}

/* Does the step need a folder of its own in controller c's hierarchy? */
static bool step_wants(const struct spurd_cgroup *cg, int c,
		       const struct spurd_cgroup_limits *lim)
{
	struct spurd_devfence_dev devs[SPURD_DEVFENCE_MAX];

	if (!cg->base[c][0])
		return false;
	if (c == 1)
		return cg->memory && lim->mem_mb;
	return c == 3 && cg->devices && spurd_devfence_devs(lim->deny, devs, SPURD_DEVFENCE_MAX);
}

int spurd_cgroup_step(const struct spurd_cgroup *cg, uint32_t id, uint32_t run, uint32_t step,
		      const struct spurd_cgroup_limits *lim, struct spurd_cgroup_dirs *dirs,
		      char *why, size_t wlen)
{
	static const int ctl[] = { 1, 3 }; /* memory, devices */
	struct spurd_cgroup_dirs made = *dirs;
	char job[4200], dir[4300];
	const char *failed;

	for (size_t i = 0; i < sizeof(ctl) / sizeof(ctl[0]); i++) {
		int c = ctl[i], k;

		if (!step_wants(cg, c, lim))
			continue;
		step_path(cg, c, id, run, step, job, sizeof(job), dir, sizeof(dir));
		/* v1: a job given all of the node's GPUs (or no memory limit)
		 * had no folder there */
		if ((mkdir(job, 0755) && errno != EEXIST) || (mkdir(dir, 0755) && errno != EEXIST)) {
			snprintf(why, wlen, "cannot make %s: %s", dir, strerror(errno));
			goto fail;
		}
		if ((failed = set_limits(cg, c, dir, lim))) {
			snprintf(why, wlen, "%s/%s: %s", dir, failed, strerror(errno));
			goto fail;
		}
		/* the step's folder stands for the job's in its hierarchy (v2:
		 * one folder for both) */
		for (k = 0; k < made.n && strcmp(made.dir[k], job) && strcmp(made.dir[k], dir); k++)
			;
		if (k == made.n && made.n < SPURD_CG_MAX)
			made.n++;
		snprintf(made.dir[k < SPURD_CG_MAX ? k : SPURD_CG_MAX - 1], sizeof(made.dir[0]), "%s",
			 dir);
	}
	*dirs = made;
	return 0;
fail:
	spurd_cgroup_step_done(cg, id, run, step);
	return -1;
}

void spurd_cgroup_step_done(const struct spurd_cgroup *cg, uint32_t id, uint32_t run,
			    uint32_t step)
{
	char job[4200], dir[4300];

	for (int c = 1; c <= 3; c += 2) {
		if (!cg->base[c][0])
			continue;
		step_path(cg, c, id, run, step, job, sizeof(job), dir, sizeof(dir));
		if (!access(dir, F_OK))
			remove_dir(cg, dir);
	}
}
