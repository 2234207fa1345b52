/* SPDX-License-Identifier: Apache-2.0 */
/* What every CLI binary (spur, spur-node) shares: error lines, the version. */
#include "cli.h"

#include <stdarg.h>
#include <stdio.h>

void cli_error(const char *prog, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: error: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void cli_version(void)
{
	/* the Slurm release whose commands these are, for tools that ask */
	printf("slurm 22.05.8 (Spur %s)\n", SPUR_VERSION);
}
