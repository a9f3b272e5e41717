// SPDX-License-Identifier: GPL-2.0
/*
 * driver.c - dt_cpp() (compiler/cpp.c) on its own, for tests/host/test_cpp.py
 * and tests/guest/test_cpp_guest.py:
 *
 *   driver FILE NAME [preprocessor options...]
 *
 * prints the preprocessed FILE (named NAME in its line markers) on stdout,
 * or "error: REASON" on stderr and exits 1.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include "cpp.h"

int main(int argc, char **argv)
{
	char err[4096], *src = NULL, *out;
	size_t n = 0, cap = 0, r;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: driver FILE NAME [options...]\n");
		return 2;
	}
	f = fopen(argv[1], "rb");
	if (!f) {
		perror(argv[1]);
		return 2;
	}
	do {
		if (n + 65536 + 1 > cap) {
			cap = 2 * cap + 65536 + 1;
			src = realloc(src, cap);
			if (!src)
				return 2;
		}
		r = fread(src + n, 1, 65536, f);
		n += r;
	} while (r > 0);
	fclose(f);
	src[n] = '\0';
	out = dt_cpp(src, argv[2], argv + 3, argc - 3, err, sizeof(err));
	free(src);
	if (!out) {
		fprintf(stderr, "error: %s\n", err);
		return 1;
	}
	fputs(out, stdout);
	free(out);
	return 0;
}
