/*
 * fuzz-main.c -- one libFuzzer harness per target (FUZZ_TARGET is
 * fuzz_scenario, fuzz_trace or fuzz_h5), built by ./configure --enable-fuzz
 * and run by `make fuzz`.  SRCDIR (default ".") is the source tree.
 */
#include <stdlib.h>

#include "tests/fuzz/targets.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n);

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *src = getenv("SRCDIR");

	(void)argc;
	(void)argv;
	if (fuzz_init(src ? src : ".") < 0)
		abort();
	atexit(fuzz_fini);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	return FUZZ_TARGET(data, n);
}
