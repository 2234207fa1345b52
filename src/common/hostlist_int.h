/* SPDX-License-Identifier: Apache-2.0 */
/* Library-internal hooks shared by the hostlist_*.c files. */
#ifndef SPUR_COMMON_HOSTLIST_INT_H
#define SPUR_COMMON_HOSTLIST_INT_H

#include <stddef.h>

/* Sort an array of names in Slurm's hostlistsorted order (hostlist_ranged.c). */
void spur__hostlist_sort_names(char **names, size_t n);

#endif
