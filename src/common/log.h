/* SPDX-License-Identifier: Apache-2.0 */
/* Process logging: levels, a destination (stderr or a file), Slurm-like lines. */
#ifndef SPUR_COMMON_LOG_H
#define SPUR_COMMON_LOG_H

#include "error.h"

enum spur_log_level {
	SPUR_LOG_QUIET = 0,
	SPUR_LOG_ERROR,
	SPUR_LOG_WARN,
	SPUR_LOG_INFO,
	SPUR_LOG_VERBOSE,
	SPUR_LOG_DEBUG,
	SPUR_LOG_DEBUG2,
};

/* Parse a level name: quiet, error, warn|warning, info, verbose, debug,
 * debug2 (Slurm's SlurmctldDebug names, case-insensitive) or a digit 0-6.
 * Returns 0 and sets *out, or SPUR_EINVAL with a message in err. */
int spur_log_level_parse(const char *s, enum spur_log_level *out, struct spur_error *err);

const char *spur_log_level_name(enum spur_log_level level);

/* Configure the process logger. `path` NULL or "-" means stderr; otherwise
 * the file is opened for append (created 0640). `ident` (borrowed, must
 * outlive logging; may be NULL) is printed after the timestamp. On failure
 * the previous destination is kept. Logging is the one place of process
 * state besides the allocator hook; the pure core never calls it. */
int spur_log_open(const char *ident, enum spur_log_level level, const char *path,
		  struct spur_error *err);

/* Close a file destination and return to stderr. */
void spur_log_close(void);

void spur_log_set_level(enum spur_log_level level);
enum spur_log_level spur_log_get_level(void);
int spur_log_enabled(enum spur_log_level level);

/* Write one line "[YYYY-MM-DDTHH:MM:SS.mmm] ident: level: message". */
void spur_log(enum spur_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

#define spur_error_log(...) spur_log(SPUR_LOG_ERROR, __VA_ARGS__)
#define spur_warn(...) spur_log(SPUR_LOG_WARN, __VA_ARGS__)
#define spur_info(...) spur_log(SPUR_LOG_INFO, __VA_ARGS__)
#define spur_verbose(...) spur_log(SPUR_LOG_VERBOSE, __VA_ARGS__)
#define spur_debug(...) spur_log(SPUR_LOG_DEBUG, __VA_ARGS__)

#endif
