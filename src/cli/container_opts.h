/* SPDX-License-Identifier: Apache-2.0 */
/* pyxis's container options and Slurm's --container, for sbatch, salloc and
 * srun (in a job and outside): they make the job's or the step's
 * "container" object (docs/containers.md). */
#ifndef SPUR_CLI_CONTAINER_OPTS_H
#define SPUR_CLI_CONTAINER_OPTS_H

#include <getopt.h>
#include <jansson.h>

enum {
	CLI_CTR_IMAGE = 1500, CLI_CTR_MOUNTS, CLI_CTR_WORKDIR, CLI_CTR_ENV, CLI_CTR_NAME,
	CLI_CTR_REMAP, CLI_CTR_NO_REMAP, CLI_CTR_HOME, CLI_CTR_NO_HOME, CLI_CTR_BUNDLE,
	CLI_CTR_LAST = CLI_CTR_BUNDLE
};

/* getopt entries for them, spread into a command's table */
#define CLI_CTR_OPTIONS                                                         \
	{ "container-image", required_argument, NULL, CLI_CTR_IMAGE },          \
	{ "container-mounts", required_argument, NULL, CLI_CTR_MOUNTS },        \
	{ "container-workdir", required_argument, NULL, CLI_CTR_WORKDIR },      \
	{ "container-env", required_argument, NULL, CLI_CTR_ENV },              \
	{ "container-name", required_argument, NULL, CLI_CTR_NAME },            \
	{ "container-remap-root", no_argument, NULL, CLI_CTR_REMAP },           \
	{ "no-container-remap-root", no_argument, NULL, CLI_CTR_NO_REMAP },     \
	{ "container-mount-home", no_argument, NULL, CLI_CTR_HOME },            \
	{ "no-container-mount-home", no_argument, NULL, CLI_CTR_NO_HOME },      \
	{ "container", required_argument, NULL, CLI_CTR_BUNDLE }

/* Take one into obj's "container" (made when missing): 0, or the exit code
 * after saying what is wrong (prog: "sbatch"...). */
int cli_container_opt(const char *prog, json_t *obj, int opt, const char *arg);
/* Once all are in: 0, or 1 after saying what does not go together. */
int cli_container_check(const char *prog, const json_t *obj);

#endif
