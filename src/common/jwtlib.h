/* SPDX-License-Identifier: Apache-2.0 */
/* libjwt, loaded the first time a token is signed or checked. A command run
 * on the controller's host never needs it (the Unix socket tells the
 * controller who is calling), and libjwt brings libcrypto, whose loading
 * was half of a command's start (bench/README.md). */
#ifndef SPUR_COMMON_JWTLIB_H
#define SPUR_COMMON_JWTLIB_H

#include "error.h"

#include <jwt.h>

/* The libjwt functions Spur calls, by their libjwt names. */
struct spur_jwt_api {
	int (*jwt_new)(jwt_t **jwt);
	void (*jwt_free)(jwt_t *jwt);
	int (*jwt_set_alg)(jwt_t *jwt, jwt_alg_t alg, const unsigned char *key, int len);
	jwt_alg_t (*jwt_get_alg)(jwt_t *jwt);
	int (*jwt_add_grant)(jwt_t *jwt, const char *grant, const char *val);
	int (*jwt_add_grant_int)(jwt_t *jwt, const char *grant, long val);
	char *(*jwt_encode_str)(jwt_t *jwt);
	int (*jwt_decode)(jwt_t **jwt, const char *token, const unsigned char *key, int key_len);
	const char *(*jwt_get_grant)(jwt_t *jwt, const char *grant);
	long (*jwt_get_grant_int)(jwt_t *jwt, const char *grant);
};

/* The loaded library (loaded once, never unloaded), or NULL with err set
 * when it cannot be loaded. Not for concurrent first calls. */
const struct spur_jwt_api *spur_jwt(struct spur_error *err);

#endif
