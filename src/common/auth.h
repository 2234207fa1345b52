/* SPDX-License-Identifier: Apache-2.0 */
/* Who a request comes from: the cluster's HS256 key, the JWTs it signs
 * (Slurm's auth/jwt tokens: "sun" user name, "iat", "exp"; Spur adds
 * "spur_role" for agents and controllers), and peer credentials. */
#ifndef SPUR_COMMON_AUTH_H
#define SPUR_COMMON_AUTH_H

#include "common/error.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct spur_conf;

#define SPUR_AUTH_KEY_MAX 1024
#define SPUR_AUTH_KEY_MIN 32 /* bytes; Slurm asks for a long random key too */

struct spur_auth_key {
	unsigned char bytes[SPUR_AUTH_KEY_MAX];
	size_t len;
};

enum spur_auth_role {
	SPUR_ROLE_USER = 0,
	SPUR_ROLE_AGENT,      /* a node's spurd */
	SPUR_ROLE_CONTROLLER, /* a spurctld (to its agents, forwarding for a user) */
};

/* A verified identity. */
struct spur_ident {
	char user[64];
	uint32_t uid, gid;
	enum spur_auth_role role;
	char node[64]; /* an agent's node */
	int64_t exp;   /* the token's end, 0 for peer credentials */
};

/* The key file: AuthAltParameters=jwt_key=PATH, else jwt_hs256.key beside
 * slurm.conf. */
void spur_auth_key_path(const struct spur_conf *conf, char *buf, size_t len);
/* Read the key; it must be at least SPUR_AUTH_KEY_MIN bytes and readable by
 * its owner only. create: when it does not exist, make a random one (one
 * of several controllers starting at once wins; the others read it). */
int spur_auth_key_load(const char *path, bool create, struct spur_auth_key *key,
		       struct spur_error *err);

/* A token for user (role, node may be NULL) valid from now for lifespan
 * seconds; malloc'd, NULL on failure. */
char *spur_token_sign(const struct spur_auth_key *key, const char *user, enum spur_auth_role role,
		      const char *node, int64_t now, int64_t lifespan, struct spur_error *err);
/* Check a token's signature (HS256 only), its times and its claims; fill
 * id (user, role, node, exp; uid/gid are not looked up here). */
int spur_token_verify(const struct spur_auth_key *key, const char *token, int64_t now,
		      struct spur_ident *id, struct spur_error *err);

/* Fill uid and gid from the user name (getpwnam), or the name from the
 * uid (getpwuid; the number when the host does not know it). */
int spur_ident_by_name(struct spur_ident *id, struct spur_error *err);
void spur_ident_by_uid(struct spur_ident *id, uint32_t uid, uint32_t gid);

/* The abstract Unix socket name a controller at host:port listens on
 * ("\0spur/ctld/host:port"): its length in *len, including the NUL. */
void spur_ctld_socket_name(const char *host, unsigned port, char *buf, size_t cap, size_t *len);

#endif
