/* SPDX-License-Identifier: Apache-2.0 */
/* The CLI's requests to spurctld (docs/rfc/0003-wire.md). */
#ifndef SPUR_CLI_CLIENT_H
#define SPUR_CLI_CLIENT_H

#include "cli.h"

#include "common/wire.h"

/* The command's name for messages ("sbatch"); set by main(). */
extern const char *cli_prog;

/* Connect to the controller; an fd or a negative error. */
int cli_connect(struct spur_error *err);
/* Send req (borrowed) on fd and wait for the reply; an "error" reply
 * becomes NULL with its message in err. */
json_t *cli_request(int fd, json_t *req, int timeout_ms, struct spur_error *err);
/* Connect, request (req stolen), close. */
json_t *cli_call(json_t *req, struct spur_error *err);

#endif
