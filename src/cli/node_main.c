/* SPDX-License-Identifier: Apache-2.0 */
/* spur-node: the CLI's commands about this node's GPUs and images (spur
 * cdi, spur image), a binary of their own: they need libarchive, libcrypto
 * and libyaml, whose loading (libarchive brings libxml2 and ICU) tripled
 * the start of every sbatch and squeue when they lived in spur. spur runs
 * this for them. */
#include "cli.h"

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "cdi"))
		return cli_cdi_main("spur cdi", argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "image"))
		return cli_image_main("spur image", argc - 2, argv + 2);
	if (argc >= 2 && (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))) {
		cli_version();
		return 0;
	}
	fprintf(stderr, "Usage: spur-node cdi|image ARGS... (as spur cdi, spur image)\n");
	return argc >= 2 && !strcmp(argv[1], "--help") ? 0 : 1;
}
