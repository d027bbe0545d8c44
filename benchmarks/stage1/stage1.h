/* Stage 1 of the structural-index parser: the harness's side (issue 21; docs/parser-design.md).
 *
 * Stage 1 reads the whole input 64 bytes per step and writes the positions ("the index") of
 * every byte the second stage must look at:
 *
 *   - the operators { } [ ] : , outside strings;
 *   - the first byte of every scalar (a string's opening quote, true, 12.5, ...): a byte that
 *     is neither an operator nor whitespace (space, tab, LF, CR) and whose predecessor is an
 *     operator, whitespace, a closing quote or the start of the input.  (So in `true"x"` the
 *     quote is not indexed, though it opens a string: stage 2 refuses `true"` as a bad literal.
 *     This is simdjson's definition too, which lets the self-test compare the two indexes.)
 *
 * A quote is "unescaped" unless it is preceded by an odd run of backslashes.  Bytes between an
 * opening quote and its closing quote are inside the string; nothing inside is indexed.
 *
 * Stage 1 refuses (returns S1_REFUSE) when the input is not valid UTF-8 (Python's strict
 * decoder's verdict), when a string holds an unescaped byte below 0x20, or when the input ends
 * inside a string.  It locates nothing: a refused input is re-read by the one-pass parser, which
 * reports the exact NUIF_* code, line and column.  Everything else (grammar, numbers, escapes,
 * I-JSON) is stage 2's work.
 *
 * Routes: s1_ref (byte at a time, the specification above, written for clarity, the self-test's
 * oracle), and the routes nuif-core ships in packages/nuif-core/csrc/nuif_stage1.h, run over a
 * whole input in chunks of s1_chunk bytes after the codec's UTF-8 check (csrc/nuif_utf8.h):
 * s1_portable (SWAR), s1_ssse3 and s1_avx2 (x86-64, PCLMUL for the in-string prefix XOR),
 * s1_neon (arm64). */
#ifndef S1_STAGE1_H
#define S1_STAGE1_H

#include <stddef.h>
#include <stdint.h>

#define S1_OK 0
#define S1_REFUSE 1

extern size_t s1_chunk; /* input bytes per chunk of the shipped routes (stage1.c) */

/* out must hold n + 72 entries (the routes write up to 8 entries past the last index). */
typedef int (*s1_fn)(const uint8_t *p, size_t n, uint32_t *out, size_t *count);

int s1_ref(const uint8_t *p, size_t n, uint32_t *out, size_t *count);
int s1_portable(const uint8_t *p, size_t n, uint32_t *out, size_t *count);
int s1_utf8_scalar(const uint8_t *p, size_t n); /* 1 valid, 0 not */
#if defined(__x86_64__)
int s1_avx2(const uint8_t *p, size_t n, uint32_t *out, size_t *count);
int s1_have_avx2(void);
int s1_ssse3(const uint8_t *p, size_t n, uint32_t *out, size_t *count);
int s1_have_ssse3(void);
#endif
#if defined(__aarch64__)
int s1_neon(const uint8_t *p, size_t n, uint32_t *out, size_t *count);
#endif

#endif
