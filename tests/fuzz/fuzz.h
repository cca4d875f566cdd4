/*
 * Helpers shared by the libFuzzer harnesses (tests/fuzz/fuzz_*.c).
 *
 * A harness checks invariants of what it calls; a broken one is reported
 * with FUZZ_CHECK(), which prints the condition and aborts, so libFuzzer
 * saves the input as a crash. Each harness gets one private temp
 * directory (removed at exit) for the files its entry point reads.
 */
#ifndef GFS_FUZZ_H
#define GFS_FUZZ_H

#include <stddef.h>
#include <stdint.h>

#define FUZZ_CHECK(cond)                                                       \
	do {                                                                   \
		if (!(cond))                                                   \
			fuzz_fail(__FILE__, __LINE__, #cond);                  \
	} while (0)

void fuzz_fail(const char *file, int line, const char *what)
    __attribute__((noreturn));

/* fuzz_dir() - this process's temp directory, made on first use. */
const char *fuzz_dir(void);

/* fuzz_path() - @name inside fuzz_dir(), in a static buffer per call
   site's choice: the caller copies it if it keeps two. */
const char *fuzz_path(const char *name);

/* fuzz_write() - replace the file at @path by @len bytes of @data. */
void fuzz_write(const char *path, const void *data, size_t len);

/* fuzz_mkdirs() - mkdir -p of @rel inside fuzz_dir(). */
void fuzz_mkdirs(const char *rel);

/* fuzz_str() - a NUL-terminated, malloc'd copy of @len bytes (a NUL in
   them ends the string early, as it would for a C caller). */
char *fuzz_str(const uint8_t *data, size_t len);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerInitialize(int *argc, char ***argv);

#endif
