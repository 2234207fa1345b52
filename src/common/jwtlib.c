/* SPDX-License-Identifier: Apache-2.0 */
#include "jwtlib.h"

#include <dlfcn.h>
#include <stddef.h>

/* Debian's libjwt0 (the ABI of the headers built against) */
#define JWT_SONAME "libjwt.so.0"

static const struct {
	const char *name;
	size_t off;
} syms[] = {
#define S(f) { #f, offsetof(struct spur_jwt_api, f) }
	S(jwt_new),	   S(jwt_free),	      S(jwt_set_alg),	 S(jwt_get_alg),
	S(jwt_add_grant),  S(jwt_add_grant_int), S(jwt_encode_str), S(jwt_decode),
	S(jwt_get_grant),  S(jwt_get_grant_int),
#undef S
};

const struct spur_jwt_api *spur_jwt(struct spur_error *err)
{
	static struct spur_jwt_api api;
	static void *lib;
	struct spur_jwt_api loaded;
	void *h;

	if (lib)
		return &api;
	if (!(h = dlopen(JWT_SONAME, RTLD_NOW | RTLD_LOCAL))) {
		spur_error_set(err, SPUR_EIO, "cannot load %s (install libjwt0): %s", JWT_SONAME,
			       dlerror());
		return NULL;
	}
	for (size_t i = 0; i < sizeof(syms) / sizeof(syms[0]); i++) {
		void *f = dlsym(h, syms[i].name);

		if (!f) {
			spur_error_set(err, SPUR_EIO, "%s has no %s", JWT_SONAME, syms[i].name);
			dlclose(h);
			return NULL;
		}
		*(void **)((char *)&loaded + syms[i].off) = f;
	}
	api = loaded;
	lib = h;
	return &api;
}
