/* SPDX-License-Identifier: Apache-2.0 */
/* OpenID Connect for Spur-Cloud's sign-in (a site turns it on with
 * --oidc-issuer): the provider's endpoints from its discovery document,
 * the ID token checked against its JWKS (RS256). */
#ifndef SPUR_CLOUD_OIDC_H
#define SPUR_CLOUD_OIDC_H

#include <stddef.h>

struct cloud_oidc {
	const char *issuer;	   /* exactly as the ID token's iss says it */
	const char *client_id;
	const char *client_secret;
	const char *redirect_uri; /* this service's /v1/oidc/callback, as the provider knows it */
};

/* The provider's authorization URL for state and nonce (malloc'd), or
 * NULL with why. */
char *cloud_oidc_auth_url(const struct cloud_oidc *o, const char *state, const char *nonce,
			  char *why, size_t wlen);

/* The code traded at the provider's token endpoint and its ID token
 * checked (signature, issuer, audience, expiry, nonce, a verified email):
 * the email (malloc'd), or NULL with why. */
char *cloud_oidc_email(const struct cloud_oidc *o, const char *code, const char *nonce,
		       char *why, size_t wlen);

#endif
