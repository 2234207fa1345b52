/* SPDX-License-Identifier: Apache-2.0 */
/* The project's one error table (SPUR_E* codes) and the error-with-context struct. */
#ifndef SPUR_COMMON_ERROR_H
#define SPUR_COMMON_ERROR_H

#include <stddef.h>

/* X(NAME, message): every code is negative; 0 means success. */
#define SPUR_ERRNO_MAP(X)                                  \
	X(NOMEM, "out of memory")                          \
	X(INVAL, "invalid argument")                       \
	X(PARSE, "parse error")                            \
	X(RANGE, "value out of range")                     \
	X(NOENT, "not found")                              \
	X(EXIST, "already exists")                         \
	X(IO, "I/O error")                                 \
	X(TOOBIG, "too large")                             \
	X(UNSUPP, "not supported")                         \
	X(PERM, "permission denied")                       \
	X(AGAIN, "try again")                              \
	X(STATE, "invalid state")                          \
	X(RETRY, "not done: send it again")                \
	X(LIMIT, "over an accounting limit")

enum spur_errno {
	SPUR_OK = 0,
	SPUR__EBASE = -1000,
#define SPUR__ERR_ENUM(name, msg) SPUR_E##name,
	SPUR_ERRNO_MAP(SPUR__ERR_ENUM)
#undef SPUR__ERR_ENUM
	SPUR__ELAST
};

/* Static text for a code (never NULL; unknown codes get "unknown error"). */
const char *spur_strerror(int code);

/* Symbolic name of a code, e.g. "SPUR_EPARSE". */
const char *spur_errname(int code);

#define SPUR_ERROR_MSG_MAX 512

/* Human detail for a failed call. Embedded by the caller; msg is always
 * NUL-terminated. Functions take a nullable `struct spur_error *`. */
struct spur_error {
	int code;
	char msg[SPUR_ERROR_MSG_MAX];
};

/* Reset to "no error". NULL-safe. */
void spur_error_init(struct spur_error *err);

/* Record code and a formatted message; returns code so callers can
 * `return spur_error_set(err, SPUR_EPARSE, "...")`. NULL-safe. */
int spur_error_set(struct spur_error *err, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Prefix the current message with "context: "; keeps the code; returns it.
 * With no message yet, the code's text is used as the detail. NULL-safe. */
int spur_error_wrap(struct spur_error *err, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The message, or the code's text when the message is empty. */
const char *spur_error_text(const struct spur_error *err);

#endif
