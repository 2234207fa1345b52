/* SPDX-License-Identifier: Apache-2.0 */
/* The OCI executor (oci.h). */
#define _GNU_SOURCE
#include "agent/oci.h"

#include "common/wire.h"
#include "container/image.h"
#include "container/ocispec.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <linux/openat2.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define OCI_STATE "/run/spur-oci" /* the runtime's --root (an agent not root: BASE/state) */
#define OCI_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

void spurd_oci_dir(const char *spool, uint32_t id, uint32_t run, char *buf, size_t len)
{
	snprintf(buf, len, "%s/ctr/%u.%u", spool, id, run);
}

static int mkdir_p(const char *path, mode_t mode)
{
	char p[4096];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = p + 1; *s; s++)
		if (*s == '/') {
			*s = '\0';
			if (mkdir(p, mode) && errno != EEXIST)
				return -1;
			*s = '/';
		}
	return mkdir(p, mode) && errno != EEXIST ? -1 : 0;
}

/* A program in OCI_PATH: 0 with its path, or -1. */
static int find_program(const char *name, char *out, size_t len)
{
	char list[] = OCI_PATH, *save = NULL;

	if (strchr(name, '/')) {
		snprintf(out, len, "%s", name);
		return access(out, X_OK);
	}
	for (char *d = strtok_r(list, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(out, len, "%s/%s", d, name);
		if (!access(out, X_OK))
			return 0;
	}
	return -1;
}

/* The runtime's state folder: root's in /run; an agent that is not root
 * (the runtime rootless, as its user) keeps it in its spool (base). */
static void state_dir(const char *base, char *out, size_t len)
{
	if (geteuid())
		snprintf(out, len, "%s/state", base);
	else
		snprintf(out, len, "%s", OCI_STATE);
}

/* Run the runtime on bundle as id; its exit status (-1: did not run). */
static int run_runtime(const char *rt, const char *state, const char *bundle, const char *id,
		       bool quiet)
{
	int st = 0;
	pid_t pid = fork();

	if (pid < 0)
		return -1;
	if (!pid) {
		if (quiet) { /* its words kept in BUNDLE.err, for why it failed */
			char errp[4200];
			int null = open("/dev/null", O_RDWR);
			int e;

			snprintf(errp, sizeof(errp), "%s.err", bundle);
			e = open(errp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
			dup2(null, 0);
			dup2(null, 1);
			dup2(e >= 0 ? e : null, 2);
		}
		execl(rt, rt, "--root", state, "run", "--bundle", bundle, id, (char *)NULL);
		_exit(127);
	}
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Does rt run a container here? One of the host's /usr/bin/true, the
 * host's /usr and libraries bound in an empty root. */
static bool runtime_works(const char *rt, const char *base, char *said, size_t slen)
{
	FILE *f;
	static const char *const binds[] = { "/usr", "/lib", "/lib64", "/bin" };
	char b[4096], root[4200], cfgp[4200], id[64], state[4200];
	json_t *mounts = json_array(), *cfg;
	bool ok, rootless = geteuid() != 0;

	snprintf(b, sizeof(b), "%s/probe-%d", base, (int)getpid());
	snprintf(root, sizeof(root), "%s/rootfs", b);
	snprintf(cfgp, sizeof(cfgp), "%s/config.json", b);
	snprintf(id, sizeof(id), "spur-probe-%d", (int)getpid());
	mkdir_p(root, 0755);
	for (size_t i = 0; i < sizeof(binds) / sizeof(binds[0]); i++)
		if (!access(binds[i], F_OK))
			json_array_append_new(mounts,
					      json_pack("{s:s,s:s,s:s,s:[s,s]}", "destination",
							binds[i], "type", "bind", "source", binds[i],
							"options", "rbind", "ro"));
	json_array_append_new(mounts, json_pack("{s:s,s:s,s:s,s:[s]}", "destination", "/proc", "type",
						rootless ? "bind" : "proc", "source",
						rootless ? "/proc" : "proc", "options", rootless ? "rbind" : "nosuid"));
	cfg = json_pack("{s:s,s:{s:b,s:{s:i,s:i},s:[s],s:[s],s:s},s:{s:s},s:o,s:{s:[{s:s}]}}",
			"ociVersion", "1.0.2", "process", "terminal", 0, "user", "uid", 0, "gid", 0, "args", "/usr/bin/true", "env", "PATH=/usr/bin:/bin",
			"cwd", "/", "root", "path", root, "mounts", mounts, "linux", "namespaces",
			"type", "mount");
	if (rootless) { /* root inside is the agent's user */
		json_t *l = json_object_get(cfg, "linux");

		json_array_append_new(json_object_get(l, "namespaces"), json_pack("{s:s}", "type", "user"));
		json_object_set_new(l, "uidMappings", json_pack("[{s:i,s:i,s:i}]", "containerID", 0,
								"hostID", (int)geteuid(), "size", 1));
		json_object_set_new(l, "gidMappings", json_pack("[{s:i,s:i,s:i}]", "containerID", 0,
								"hostID", (int)getegid(), "size", 1));
	} else { /* its own cgroup, not under the job's (whose devices it may not widen) */
		json_object_set_new(json_object_get(cfg, "linux"), "cgroupsPath", json_string(id));
	}
	state_dir(base, state, sizeof(state));
	ok = cfg && !json_dump_file(cfg, cfgp, 0) && run_runtime(rt, state, b, id, true) == 0;
	json_decref(cfg);
	snprintf(cfgp, sizeof(cfgp), "%s.err", b);
	if (ok || (f = fopen(cfgp, "re")) == NULL) {
		unlink(cfgp);
	} else {
		char line[512];

		while (fgets(line, sizeof(line), f))
			snprintf(said, slen, "%.*s", (int)strcspn(line, "\n"), line);
		fclose(f);
		unlink(cfgp);
	}
	snprintf(cfgp, sizeof(cfgp), "%s/config.json", b);
	unlink(cfgp);
	rmdir(root);
	rmdir(b);
	return ok;
}

/* The runtime to use: want (a program), or the first of crun and runc
 * that runs a container here, found once per node (BASE/runtime). */
static int runtime_pick(const char *base, const char *want, char *out, size_t len, char *why,
			size_t wlen)
{
	static const char *const cands[] = { "crun", "runc" };
	char cache[4200], lockp[4200], tried[1024] = "", said[300] = "";
	int lfd, rc = -1;
	FILE *f;

	if (want && *want && strcmp(want, "auto")) {
		if (!find_program(want, out, len))
			return 0;
		snprintf(why, wlen, "ContainerRuntime=%s: not found", want);
		return -1;
	}
	snprintf(cache, sizeof(cache), "%s/runtime", base);
	snprintf(lockp, sizeof(lockp), "%s/runtime.lock", base);
	if ((lfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0 || flock(lfd, LOCK_EX)) {
		snprintf(why, wlen, "%s: %s", lockp, strerror(errno));
		goto out;
	}
	if ((f = fopen(cache, "re"))) {
		bool got = fgets(out, (int)len, f) != NULL;

		fclose(f);
		out[strcspn(out, "\n")] = '\0';
		if (got && !access(out, X_OK)) {
			rc = 0;
			goto out;
		}
	}
	for (size_t i = 0; i < 2 && rc; i++) {
		if (find_program(cands[i], out, len))
			continue;
		*said = '\0';
		if (runtime_works(out, base, said, sizeof(said)) && (f = fopen(cache, "we"))) {
			fprintf(f, "%s\n", out);
			fclose(f);
			rc = 0;
		} else {
			snprintf(tried + strlen(tried), sizeof(tried) - strlen(tried), "%s%s: %s",
				 *tried ? "; " : "", out, *said ? said : "failed");
		}
	}
	if (rc)
		snprintf(why, wlen, "no OCI runtime runs a container on this node (%s)",
			 *tried ? tried : "neither crun nor runc is installed");
out:
	if (lfd >= 0)
		close(lfd);
	return rc;
}

/* The container's root: an overlay of the image's (its changes kept in the
 * container's folder, shared by the steps that name it); where overlays
 * cannot be had, the image's own, read-only. */
static int container_root(const char *inst, const char *lower, char *root, size_t len, bool *ro,
			  char *why, size_t wlen)
{
	char up[4200], work[4200], lockp[4200], opts[13000];
	struct stat a, b;
	int lfd, rc = 0;

	snprintf(up, sizeof(up), "%s/upper", inst);
	snprintf(work, sizeof(work), "%s/work", inst);
	snprintf(root, len, "%s/rootfs", inst);
	snprintf(lockp, sizeof(lockp), "%s/lock", inst);
	if (mkdir_p(up, 0755) || mkdir_p(work, 0700) || mkdir_p(root, 0755) ||
	    (lfd = open(lockp, O_RDWR | O_CREAT | O_CLOEXEC, 0600)) < 0) {
		snprintf(why, wlen, "%s: %s", inst, strerror(errno));
		return -1;
	}
	flock(lfd, LOCK_EX);
	*ro = false;
	if (!stat(root, &a) && !stat(inst, &b) && a.st_dev != b.st_dev)
		goto out; /* mounted by a task before this one */
	snprintf(opts, sizeof(opts), "lowerdir=%s,upperdir=%s,workdir=%s", lower, up, work);
	/* not nodev: the runtime makes the GPUs' nodes there */
	if (mount("overlay", root, "overlay", MS_NOSUID, opts)) {
		snprintf(root, len, "%s", lower);
		*ro = true;
	}
out:
	close(lfd);
	return rc;
}

/* A named container's image folder (INST/image), for its later steps. */
static void remember_image(const char *inst, const char *lower)
{
	char p[4300];
	FILE *f;

	snprintf(p, sizeof(p), "%s/image", inst);
	if (access(p, F_OK) && (f = fopen(p, "we"))) {
		fprintf(f, "%.*s\n", (int)(strlen(lower) - strlen("/rootfs")), lower);
		fclose(f);
	}
}

/* Is the script's interpreter (#!PATH) in the container's root? */
static bool interpreter_in(const char *script, const char *root)
{
	char line[256] = "", path[256];
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	int rfd, fd;
	FILE *f = fopen(script, "re");

	if (!f)
		return true;
	if (!fgets(line, sizeof(line), f))
		*line = '\0';
	fclose(f);
	if (strncmp(line, "#!", 2))
		return true; /* the runtime says what it says */
	snprintf(path, sizeof(path), "%.*s", (int)strcspn(line + 2 + strspn(line + 2, " \t"), " \t\n"),
		 line + 2 + strspn(line + 2, " \t"));
	if ((rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) < 0)
		return true;
	fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	close(rfd);
	if (fd < 0)
		return errno != ENOENT;
	close(fd);
	return true;
}

/* The image's root and config: from the store, or --container's bundle. */
static int image_root(const struct spurd_oci *o, char *lower, size_t len, json_t **config,
		      char *why, size_t wlen)
{
	const char *bundle = spur_json_str(o->ctr, "bundle", "");
	struct spur_image_user who = { o->uid, o->gid, o->groups, o->ngroups };
	struct spur_error err;
	char dir[4096], p[4200];
	json_error_t je;

	if (*bundle) {
		json_t *bc;

		snprintf(p, sizeof(p), "%s/config.json", bundle);
		if (!(bc = json_load_file(p, 0, &je))) {
			snprintf(why, wlen, "--container=%s: %s: %s", bundle, p, je.text);
			return -1;
		}
		snprintf(lower, len, "%s/%s", bundle,
			 spur_json_str(json_object_get(bc, "root"), "path", "rootfs"));
		if (*spur_json_str(json_object_get(bc, "root"), "path", "") == '/')
			snprintf(lower, len, "%s", spur_json_str(json_object_get(bc, "root"), "path", ""));
		*config = json_pack("{s:O,s:s}", "Env",
				    json_object_get(json_object_get(bc, "process"), "env")
					    ? json_object_get(json_object_get(bc, "process"), "env")
					    : json_array(),
				    "WorkingDir",
				    spur_json_str(json_object_get(bc, "process"), "cwd", "/"));
		json_decref(bc);
		return 0;
	}
	if (!*spur_json_str(o->ctr, "image", "") && *spur_json_str(o->ctr, "name", "")) {
		/* --container-name alone: a container an earlier step of the job made */
		snprintf(p, sizeof(p), "%s/n-%s/image", o->dir, spur_json_str(o->ctr, "name", ""));
		FILE *f = fopen(p, "re");

		if (!f || !fgets(dir, sizeof(dir), f)) {
			if (f)
				fclose(f);
			snprintf(why, wlen,
				 "--container-name=%s: no such container in this job on this node "
				 "(give --container-image to make it)",
				 spur_json_str(o->ctr, "name", ""));
			return -1;
		}
		fclose(f);
		dir[strcspn(dir, "\n")] = '\0';
	} else if (spur_image_get(o->store, spur_json_str(o->ctr, "image", ""), &who, dir,
				  sizeof(dir), &err)) {
		snprintf(why, wlen, "%s", err.msg);
		return -1;
	}
	snprintf(lower, len, "%s/rootfs", dir);
	snprintf(p, sizeof(p), "%s/config.json", dir);
	*config = json_load_file(p, 0, &je);
	return 0;
}

/* The cgroup path the runtime takes: folder relative to its hierarchy's
 * mount, with the container's own folder under it. */
static void cgroup_rel(const char *folder, const char *id, char *out, size_t len)
{
	char best[4096] = "", dev[64], mnt[4096], type[64];
	FILE *f = fopen("/proc/self/mounts", "re");

	while (f && fscanf(f, "%63s %4095s %63s %*[^\n]", dev, mnt, type) == 3)
		if ((!strcmp(type, "cgroup") || !strcmp(type, "cgroup2")) &&
		    !strncmp(folder, mnt, strlen(mnt)) && folder[strlen(mnt)] == '/' &&
		    strlen(mnt) > strlen(best))
			snprintf(best, sizeof(best), "%s", mnt);
	if (f)
		fclose(f);
	snprintf(out, len, "%s/oci_%s", folder + strlen(best), id);
}

static int write_bundle(const struct spurd_oci *o, const struct spur_oci_req *req,
			char *bundle, size_t len, char *why, size_t wlen)
{
	char p[4300];
	json_t *cfg;

	snprintf(bundle, len, "%s/b-%s", o->dir, o->id);
	snprintf(p, sizeof(p), "%s/config.json", bundle);
	if (mkdir_p(bundle, 0700)) {
		snprintf(why, wlen, "%s: %s", bundle, strerror(errno));
		return -1;
	}
	if (!(cfg = spur_oci_config(req, why, wlen)))
		return -1;
	if (json_dump_file(cfg, p, JSON_COMPACT)) {
		snprintf(why, wlen, "%s: cannot write", p);
		json_decref(cfg);
		return -1;
	}
	json_decref(cfg);
	return 0;
}

/* The runtime's log's errors ({"level":"error","msg":...} lines) on stderr. */
static void say_errors(const char *log)
{
	char line[4096];
	FILE *f = fopen(log, "re");

	while (f && fgets(line, sizeof(line), f)) {
		json_t *j = json_loads(line, 0, NULL);

		if (j && !strcmp(spur_json_str(j, "level", ""), "error"))
			fprintf(stderr, "slurmstepd: error: container: %s\n", spur_json_str(j, "msg", ""));
		json_decref(j);
	}
	if (f)
		fclose(f);
}

static volatile sig_atomic_t shim_sig;

static void on_shim_signal(int sig)
{
	shim_sig = sig;
}

/* Every process of the container's cgroup (rel, in each hierarchy) sent sig:
 * the runtime passes a signal to the container's first process only.
 * Without a cgroup (a rootless runtime): the runtime's children (the
 * container's first process) and the shim's own but the runtime (what the
 * container left behind: the shim is their subreaper), with their process
 * groups (the runtime makes the first one a session leader). */
static void signal_container(const char *rel, pid_t runtime, int sig)
{
	char dev[64], mnt[4096], type[64], p[8300];
	FILE *f = rel ? fopen("/proc/self/mounts", "re") : NULL;
	DIR *d;
	struct dirent *e;

	while (rel && f && fscanf(f, "%63s %4095s %63s %*[^\n]", dev, mnt, type) == 3) {
		FILE *procs;
		long pid;

		if (strcmp(type, "cgroup") && strcmp(type, "cgroup2"))
			continue;
		snprintf(p, sizeof(p), "%s%s/cgroup.procs", mnt, rel);
		if (!(procs = fopen(p, "re")))
			continue;
		while (fscanf(procs, "%ld", &pid) == 1)
			kill((pid_t)pid, sig);
		fclose(procs);
	}
	if (f)
		fclose(f);
	if (rel || !(d = opendir("/proc")))
		return;
	while ((e = readdir(d))) {
		long pid = atol(e->d_name), ppid = 0;
		FILE *st;

		if (pid <= 0)
			continue;
		snprintf(p, sizeof(p), "/proc/%ld/stat", pid);
		if (!(st = fopen(p, "re")))
			continue;
		/* pid (comm) state ppid: comm may hold anything but ')' last */
		if (pid != runtime && fgets(p, sizeof(p), st) && strrchr(p, ')') &&
		    sscanf(strrchr(p, ')') + 1, " %*c %ld", &ppid) == 1 &&
		    (ppid == runtime || ppid == getpid())) {
			kill(-(pid_t)pid, sig);
			kill((pid_t)pid, sig);
		}
		fclose(st);
	}
	closedir(d);
}

/* Run the runtime and wait for it, its log kept out of the task's output
 * (its errors said there when it fails); exit as it did. A signal the
 * shim is sent goes to every process of the container; SPURD_OCI_KILL
 * kills them, again every 50 ms until the runtime ends (a container still
 * being created has none yet), and what is left when it ends is killed.
 * Signals are held from the fork until the handlers are in place, so none
 * is lost in between. Returns only when the runtime could not be started. */
static void shim(const char *rt, const char *state, const char *bundle, const char *id,
		 const char *cgrel, char *why, size_t wlen)
{
	static const int fwd[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGUSR1, SIGUSR2, SIGALRM, SIGCONT };
	struct sigaction sa = { .sa_handler = on_shim_signal };
	sigset_t all, old;
	bool killing = false;
	char log[4400];
	int st = 0;
	pid_t pid;

	snprintf(log, sizeof(log), "%s/runtime.log", bundle);
	if (!cgrel) /* what the container leaves behind comes to the shim */
		prctl(PR_SET_CHILD_SUBREAPER, 1);
	sigfillset(&all);
	sigprocmask(SIG_SETMASK, &all, &old);
	pid = fork();
	if (pid < 0) {
		snprintf(why, wlen, "fork: %s", strerror(errno));
		sigprocmask(SIG_SETMASK, &old, NULL);
		return;
	}
	if (!pid) {
		sigprocmask(SIG_SETMASK, &old, NULL);
		execl(rt, rt, "--root", state, "--log", log, "--log-format", "json", "run",
		      "--bundle", bundle, id, (char *)NULL);
		fprintf(stderr, "slurmstepd: error: container: %s: %s\n", rt, strerror(errno));
		_exit(127);
	}
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fwd) / sizeof(fwd[0]); i++)
		sigaction(fwd[i], &sa, NULL);
	sigaction(SPURD_OCI_KILL, &sa, NULL);
	sigprocmask(SIG_SETMASK, &old, NULL);
	for (;;) {
		pid_t w = waitpid(pid, &st, killing ? WNOHANG : 0);

		if (w == pid || (w < 0 && errno != EINTR))
			break;
		if (shim_sig) {
			killing |= shim_sig == SPURD_OCI_KILL;
			if (shim_sig != SPURD_OCI_KILL)
				signal_container(cgrel, pid, shim_sig);
			shim_sig = 0;
		}
		if (killing) {
			signal_container(cgrel, pid, SIGKILL);
			nanosleep(&(struct timespec){ .tv_nsec = 50000000 }, NULL);
		}
	}
	signal_container(cgrel, pid, SIGKILL);
	while (!cgrel && waitpid(-1, NULL, 0) > 0) /* the leftovers, reaped */
		;
	if (!killing && (!WIFEXITED(st) || WEXITSTATUS(st)))
		say_errors(log);
	if (WIFSIGNALED(st))
		_exit(128 + WTERMSIG(st));
	_exit(WEXITSTATUS(st));
}

void spurd_oci_exec(const struct spurd_oci *o, char *const *argv, char *const *env,
		    const char *cwd, char *why, size_t wlen)
{
	char lower[4096], root[4300], inst[4300], rt[4096], base[4096], bundle[4300], cgp[4600],
		state[4200];
	const char *name = spur_json_str(o->ctr, "name", ""), *binds[5] = { NULL };
	char *args[260] = { NULL };
	struct spur_oci_req req = { 0 };
	json_t *config = NULL;
	bool ro = false;
	size_t n = 0;

	snprintf(base, sizeof(base), "%.*s", (int)(strrchr(o->dir, '/') - o->dir), o->dir);
	state_dir(base, state, sizeof(state));
	if (mkdir_p(o->dir, 0711) || mkdir_p(state, 0700)) {
		snprintf(why, wlen, "%s: %s", o->dir, strerror(errno));
		return;
	}
	if (runtime_pick(base, o->runtime, rt, sizeof(rt), why, wlen) ||
	    image_root(o, lower, sizeof(lower), &config, why, wlen))
		goto out;
	if (*spur_json_str(o->ctr, "bundle", "")) {
		snprintf(root, sizeof(root), "%s", lower);
	} else {
		/* a named container is the job's, shared by its steps here */
		snprintf(inst, sizeof(inst), "%s/%s%s", o->dir, *name ? "n-" : "t-", *name ? name : o->id);
		if (container_root(inst, lower, root, sizeof(root), &ro, why, wlen))
			goto out;
		if (*name)
			remember_image(inst, lower);
	}
	if (o->script) {
		binds[0] = o->script;
		binds[1] = "/.spur/script";
		if (!interpreter_in(o->script, root) && !access("/bin/busybox", X_OK)) {
			/* an image without the script's shell: the host's static one */
			binds[2] = "/bin/busybox";
			binds[3] = "/.spur/sh";
			args[n++] = "/.spur/sh";
		}
		args[n++] = "/.spur/script";
		for (size_t i = 1; argv && argv[i] && n < 258; i++)
			args[n++] = argv[i];
	} else {
		for (size_t i = 0; argv && argv[i] && n < 258; i++)
			args[n++] = argv[i];
	}
	if (o->cgroup)
		cgroup_rel(o->cgroup, o->id, cgp, sizeof(cgp));
	req = (struct spur_oci_req){ .ctr = o->ctr, .rootfs = root, .rootfs_ro = ro,
				     .image_config = config, .argv = args, .env = env,
				     .host_cwd = cwd, .home = o->home, .uid = o->uid, .gid = o->gid,
				     .groups = o->groups, .ngroups = o->ngroups,
				     .cgroups_path = o->cgroup ? cgp : NULL, .edits = o->edits,
				     .binds = binds };
	if (geteuid()) { /* the agent's user runs the job and, rootless, the runtime */
		req.rootless = true;
		req.uid = geteuid();
		req.gid = getegid();
		req.cgroups_path = NULL;
	}
	if (write_bundle(o, &req, bundle, sizeof(bundle), why, wlen))
		goto out;
	if (chdir(bundle)) {
		snprintf(why, wlen, "%s: %s", bundle, strerror(errno));
		goto out;
	}
	shim(rt, state, bundle, o->id, o->cgroup ? cgp : NULL, why, wlen);
out:
	json_decref(config);
}

static int rm_one(const char *p, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)f;
	return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* The folders the runtime made for the job in the hierarchies the agent
 * does not use (cpu, blkio, freezer...): gone when empty. */
static void cgroup_leftovers(const char *cgroup)
{
	char rel[4096] = "", dev[64], mnt[4096], type[64], p[8300];
	FILE *f = fopen("/proc/self/mounts", "re");
	struct dirent *e;
	DIR *d;

	cgroup_rel(cgroup, "", rel, sizeof(rel));
	rel[strlen(rel) - strlen("/oci_")] = '\0';
	while (f && *rel && fscanf(f, "%63s %4095s %63s %*[^\n]", dev, mnt, type) == 3) {
		if (strcmp(type, "cgroup"))
			continue;
		snprintf(p, sizeof(p), "%s%s", mnt, rel);
		if (!(d = opendir(p)))
			continue;
		while ((e = readdir(d)))
			if (!strncmp(e->d_name, "oci_", 4)) {
				char c[8600];

				snprintf(c, sizeof(c), "%s/%s", p, e->d_name);
				rmdir(c);
			}
		closedir(d);
		rmdir(p);
	}
	if (f)
		fclose(f);
}

void spurd_oci_job_done(const char *dir, const char *cgroup)
{
	char p[4400];
	struct dirent *e;
	DIR *d = opendir(dir);

	while (d && (e = readdir(d))) {
		if (strncmp(e->d_name, "n-", 2) && strncmp(e->d_name, "t-", 2))
			continue;
		snprintf(p, sizeof(p), "%s/%s/rootfs", dir, e->d_name);
		umount2(p, MNT_DETACH);
	}
	if (d) {
		closedir(d);
		nftw(dir, rm_one, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	}
	if (cgroup)
		cgroup_leftovers(cgroup);
}
