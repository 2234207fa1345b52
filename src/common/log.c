/* SPDX-License-Identifier: Apache-2.0 */
/* Owns the process logger's destination and level. */
#define _GNU_SOURCE
#include "log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

static struct {
	enum spur_log_level level;
	const char *ident;
	FILE *file; /* NULL: stderr */
} logger = { SPUR_LOG_INFO, NULL, NULL };

static const char *const level_names[] = {
	"quiet", "error", "warning", "info", "verbose", "debug", "debug2",
};

const char *spur_log_level_name(enum spur_log_level level)
{
	if ((unsigned)level > SPUR_LOG_DEBUG2)
		return "?";
	return level_names[level];
}

int spur_log_level_parse(const char *s, enum spur_log_level *out, struct spur_error *err)
{
	unsigned i;

	if (s && s[0] >= '0' && s[0] <= '6' && s[1] == '\0') {
		*out = (enum spur_log_level)(s[0] - '0');
		return 0;
	}
	for (i = 0; s && i <= SPUR_LOG_DEBUG2; i++) {
		if (strcasecmp(s, level_names[i]) == 0) {
			*out = (enum spur_log_level)i;
			return 0;
		}
	}
	if (s && strcasecmp(s, "warn") == 0) {
		*out = SPUR_LOG_WARN;
		return 0;
	}
	/* Slurm's finer levels: Spur's finest (debug2) is all it has */
	if (s && (!strcasecmp(s, "debug3") || !strcasecmp(s, "debug4") || !strcasecmp(s, "debug5") ||
		  ((s[0] == '7' || s[0] == '8' || s[0] == '9') && s[1] == '\0'))) {
		*out = SPUR_LOG_DEBUG2;
		return 0;
	}
	if (s && strcasecmp(s, "fatal") == 0) { /* Slurm's: fatal errors only */
		*out = SPUR_LOG_ERROR;
		return 0;
	}
	return spur_error_set(err, SPUR_EINVAL,
			      "invalid log level '%s' (expected quiet, error, warning, info, "
			      "verbose, debug, debug2..debug5, fatal or 0-9)",
			      s ? s : "");
}

int spur_log_open(const char *ident, enum spur_log_level level, const char *path,
		  struct spur_error *err)
{
	FILE *f = NULL;
	int fd;

	if (path && strcmp(path, "-") != 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
		if (fd < 0)
			return spur_error_set(err, SPUR_EIO, "open log file %s: %s", path,
					      strerror(errno));
		f = fdopen(fd, "a");
		if (!f) {
			close(fd);
			return spur_error_set(err, SPUR_EIO, "open log file %s: %s", path,
					      strerror(errno));
		}
		setvbuf(f, NULL, _IOLBF, 0);
	}
	spur_log_close();
	logger.file = f;
	logger.ident = ident;
	logger.level = level;
	return 0;
}

void spur_log_close(void)
{
	if (logger.file)
		fclose(logger.file);
	logger.file = NULL;
}

void spur_log_set_level(enum spur_log_level level)
{
	logger.level = level;
}

enum spur_log_level spur_log_get_level(void)
{
	return logger.level;
}

int spur_log_enabled(enum spur_log_level level)
{
	return level != SPUR_LOG_QUIET && level <= logger.level;
}

void spur_log(enum spur_log_level level, const char *fmt, ...)
{
	FILE *out = logger.file ? logger.file : stderr;
	char line[2048];
	char stamp[40];
	struct timeval tv;
	struct tm tm;
	int saved = errno;
	va_list ap;

	if (!spur_log_enabled(level))
		return;
	gettimeofday(&tv, NULL);
	localtime_r(&tv.tv_sec, &tm);
	strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%S", &tm);
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	/* One fprintf per line keeps concurrent writers' lines whole. */
	fprintf(out, "[%s.%03ld] %s%s%s: %s\n", stamp, (long)(tv.tv_usec / 1000),
		logger.ident ? logger.ident : "", logger.ident ? ": " : "",
		spur_log_level_name(level), line);
	errno = saved;
}
