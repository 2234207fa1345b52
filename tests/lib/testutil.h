/* SPDX-License-Identifier: Apache-2.0 */
/* Helpers shared by the unit tests (cmocka). */
#ifndef SPUR_TESTS_TESTUTIL_H
#define SPUR_TESTS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "common/alloc.h"
#include "common/error.h"

/* Run `body` (an expression returning 0 on success, non-zero on failure)
 * with the n-th allocation failing, for n = 0, 1, ... until it succeeds.
 * Every failing run must report SPUR_ENOMEM through `err_code`; `cleanup`
 * runs after every attempt. ASan checks that nothing leaked. */
#define ALLOC_SWEEP(body, err_code, cleanup)                                          \
	do {                                                                          \
		for (long n_ = 0;; n_++) {                                            \
			int rc_;                                                      \
			spur_alloc_fail_after(n_);                                    \
			rc_ = (body);                                                 \
			spur_alloc_fail_after(-1);                                    \
			if (rc_ == 0) {                                               \
				cleanup;                                              \
				break;                                                \
			}                                                             \
			assert_int_equal((err_code), SPUR_ENOMEM);                    \
			cleanup;                                                      \
			assert_true(n_ < 100000);                                     \
		}                                                                     \
	} while (0)

#endif
