/* SPDX-License-Identifier: Apache-2.0 */
/* Owns the error table text and struct spur_error formatting. */
#include "error.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char *const err_msgs[] = {
#define SPUR__ERR_MSG(name, msg) msg,
	SPUR_ERRNO_MAP(SPUR__ERR_MSG)
#undef SPUR__ERR_MSG
};

static const char *const err_names[] = {
#define SPUR__ERR_NAME(name, msg) "SPUR_E" #name,
	SPUR_ERRNO_MAP(SPUR__ERR_NAME)
#undef SPUR__ERR_NAME
};

static int err_index(int code)
{
	if (code <= SPUR__EBASE || code >= SPUR__ELAST)
		return -1;
	return code - SPUR__EBASE - 1;
}

const char *spur_strerror(int code)
{
	int i = err_index(code);

	if (code == 0)
		return "success";
	return i < 0 ? "unknown error" : err_msgs[i];
}

const char *spur_errname(int code)
{
	int i = err_index(code);

	if (code == 0)
		return "SPUR_OK";
	return i < 0 ? "SPUR_E?" : err_names[i];
}

void spur_error_init(struct spur_error *err)
{
	if (!err)
		return;
	err->code = 0;
	err->msg[0] = '\0';
}

int spur_error_set(struct spur_error *err, int code, const char *fmt, ...)
{
	va_list ap;

	if (!err)
		return code;
	err->code = code;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return code;
}

int spur_error_wrap(struct spur_error *err, const char *fmt, ...)
{
	char prefix[SPUR_ERROR_MSG_MAX];
	char old[SPUR_ERROR_MSG_MAX];
	va_list ap;

	if (!err)
		return 0;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	snprintf(old, sizeof(old), "%s", spur_error_text(err));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	return err->code;
}

const char *spur_error_text(const struct spur_error *err)
{
	if (!err)
		return "";
	return err->msg[0] ? err->msg : spur_strerror(err->code);
}
