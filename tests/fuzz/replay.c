/* SPDX-License-Identifier: Apache-2.0 */
/* A main() for fuzz targets built without libFuzzer: runs each file (or each
 * file in each directory) given as an argument once, for corpus replay in
 * `make check`. */
#include "fuzz.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	static uint8_t buf[1 << 20];
	size_t n;

	if (!f) {
		fprintf(stderr, "replay: %s: cannot open\n", path);
		return 1;
	}
	n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	LLVMFuzzerTestOneInput(buf, n);
	return 0;
}

int main(int argc, char **argv)
{
	int runs = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		struct stat st;
		DIR *d;
		struct dirent *e;

		if (stat(argv[i], &st) != 0) {
			fprintf(stderr, "replay: %s: not found\n", argv[i]);
			return 1;
		}
		if (!S_ISDIR(st.st_mode)) {
			bad |= run_file(argv[i]);
			runs++;
			continue;
		}
		d = opendir(argv[i]);
		while (d && (e = readdir(d))) {
			char path[4096];

			if (e->d_name[0] == '.')
				continue;
			snprintf(path, sizeof(path), "%s/%s", argv[i], e->d_name);
			bad |= run_file(path);
			runs++;
		}
		if (d)
			closedir(d);
	}
	printf("replay: %d inputs\n", runs);
	return bad || runs == 0;
}
