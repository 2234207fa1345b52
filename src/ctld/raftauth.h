/* SPDX-License-Identifier: Apache-2.0 */
/* libraft's TCP transport, with each connection between controllers
 * proving the cluster key first (raftauth.c). */
#ifndef SPUR_CTLD_RAFTAUTH_H
#define SPUR_CTLD_RAFTAUTH_H

#include "common/auth.h"

#include <raft/uv.h>
#include <uv.h>

/* key is borrowed (it must outlive the transport); NULL with *rc set (a
 * RAFT_* code) on failure. */
struct raft_uv_transport *ctld_raft_auth_new(uv_loop_t *loop, const struct spur_auth_key *key,
					     int *rc);
/* After raft_uv_close(): free it. */
void ctld_raft_auth_free(struct raft_uv_transport *t);

#endif
