/* SPDX-License-Identifier: Apache-2.0 */
/* The libFuzzer entry point every target defines. */
#ifndef SPUR_TESTS_FUZZ_H
#define SPUR_TESTS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Copy fuzz input into a NUL-terminated string (NULL past 64 KiB). */
char *fuzz_cstr(const uint8_t *data, size_t size);

#endif
