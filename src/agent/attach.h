/* SPDX-License-Identifier: Apache-2.0 */
/* sattach's connections to a step's tasks on this node: each gets the
 * step's hello and the exits of the tasks already done (greet), then
 * every frame of output and every exit from then on, as srun does
 * (docs/rfc/0003-wire.md §5). sattach hanging up changes nothing for the
 * step; the step's end closes them. */
#ifndef SPURD_ATTACH_H
#define SPURD_ATTACH_H

#include <jansson.h>
#include <uv.h>

struct spurd_attach;

/* The frames a new connection is sent first (a JSON array, stolen). */
typedef json_t *(*spurd_attach_greet_fn)(void *ctx);

struct spurd_attach_set {
	struct spurd_attach *head;
	spurd_attach_greet_fn greet;
	void *ctx;
};

/* Connect to sattach at host:port for set (greet called once connected).
 * set NULL: send the frames of greet(ctx) and hang up (a node without the
 * step says so). 0 or a libuv error. */
int spurd_attach_open(uv_loop_t *loop, struct spurd_attach_set *set, spurd_attach_greet_fn greet,
		      void *ctx, const char *host, int port);
/* m (borrowed) to every connection of set that has been greeted. */
void spurd_attach_send(struct spurd_attach_set *set, const json_t *m);
/* The step ended: every connection of set closes, after what was sent. */
void spurd_attach_close_all(struct spurd_attach_set *set);

#endif
