// SPDX-License-Identifier: Apache-2.0
/* Preloaded into spurctld by t0017: a look at free space reports plenty,
 * whatever the disk holds. ROOM_LIE=once: only the first look, as when the
 * disk fills up between the controller's check for room and the opening of
 * its log; ROOM_LIE=always: every look, as on a disk whose free count
 * says nothing of what may be written (a quota), where only the writes
 * fail. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

int statvfs64(const char *path, struct statvfs64 *buf);

int statvfs64(const char *path, struct statvfs64 *buf)
{
	static int calls;
	const char *mode = getenv("ROOM_LIE");
	int (*real)(const char *, struct statvfs64 *) =
		(int (*)(const char *, struct statvfs64 *))dlsym(RTLD_NEXT, "statvfs64");
	int rc = real ? real(path, buf) : -1;

	if (!rc && ((mode && !strcmp(mode, "always")) || calls++ == 0)) {
		buf->f_bavail = 1u << 20;
		buf->f_frsize = 4096;
	}
	return rc;
}
