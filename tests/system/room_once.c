// SPDX-License-Identifier: Apache-2.0
/* Preloaded into spurctld by t0017: the first look at free space reports
 * plenty, whatever the disk holds, as when the disk fills up between the
 * controller's check for room and the opening of its log. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <sys/statvfs.h>

int statvfs64(const char *path, struct statvfs64 *buf);

int statvfs64(const char *path, struct statvfs64 *buf)
{
	static int calls;
	int (*real)(const char *, struct statvfs64 *) =
		(int (*)(const char *, struct statvfs64 *))dlsym(RTLD_NEXT, "statvfs64");
	int rc = real ? real(path, buf) : -1;

	if (!rc && calls++ == 0) {
		buf->f_bavail = 1u << 20;
		buf->f_frsize = 4096;
	}
	return rc;
}
