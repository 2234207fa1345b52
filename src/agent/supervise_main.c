/* SPDX-License-Identifier: Apache-2.0 */
/* spur-supervise: the job supervisor as a program of its own, linked with
 * libc only, so that starting one per job costs little (spurd falls back to
 * `spurd --supervise` when it is not installed beside it). */
#include "agent/supervise.h"

#include <string.h>

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--supervise"))
		return spurd_supervise(argc, argv);
	return spurd_supervise(1, argv); /* prints the usage */
}
