/* SPDX-License-Identifier: Apache-2.0 */
/* Job folders in the agent's spool, kept for the next job (see spool.h). */
#include "agent/spool.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static void pool_path(const struct spurd_spool *s, unsigned n, char *buf, size_t len)
{
	snprintf(buf, len, "%s/.free/%u", s->dir, n);
}

/* A folder of the pool, or a job's, and the files a job leaves: gone. */
static void remove_dir(const char *dir)
{
	static const char *const files[] = { "slurm_script", "state" };
	char path[4300];

	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int spurd_spool_init(struct spurd_spool *s, const char *dir)
{
	char pool[4200], path[4300];

	memset(s, 0, sizeof(*s));
	s->dir = dir;
	snprintf(pool, sizeof(pool), "%s/.free", dir);
	/* the last run's pool is not trusted to be what it left: emptied */
	for (unsigned n = 0; n < SPURD_SPOOL_POOL; n++) {
		pool_path(s, n, path, sizeof(path));
		remove_dir(path);
	}
	if (mkdir(pool, 0700) && errno != EEXIST)
		return -1;
	return chmod(pool, 0700);
}

int spurd_spool_make(struct spurd_spool *s, const char *dir)
{
	char from[4200];

	while (s->nfree) {
		pool_path(s, s->free[--s->nfree], from, sizeof(from));
		if (!rename(from, dir))
			return 0;
		remove_dir(from);
	}
	if (mkdir(dir, 0700) && errno != EEXIST)
		return -1;
	return 0;
}

/* A pool slot no folder holds; nfree < SPURD_SPOOL_POOL. */
static unsigned free_slot(const struct spurd_spool *s)
{
	for (unsigned n = 0;; n++) {
		bool taken = false;

		for (unsigned i = 0; i < s->nfree; i++)
			taken |= s->free[i] == n;
		if (!taken)
			return n;
	}
}

void spurd_spool_free(struct spurd_spool *s, const char *dir)
{
	char path[4300], to[4200];
	unsigned n;
	int fd;

	snprintf(path, sizeof(path), "%s/slurm_script", dir);
	unlink(path);
	snprintf(path, sizeof(path), "%s/state", dir);
	/* the supervisor's state file stays, emptied (root's, in root's
	 * folder: no job can have put a link in its place) */
	fd = open(path, O_WRONLY | O_TRUNC | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || s->nfree >= SPURD_SPOOL_POOL) {
		if (fd >= 0)
			close(fd);
		remove_dir(dir);
		return;
	}
	close(fd);
	n = free_slot(s);
	pool_path(s, n, to, sizeof(to));
	if (rename(dir, to)) {
		remove_dir(dir);
		return;
	}
	s->free[s->nfree++] = n;
}
