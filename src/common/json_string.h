/* json_string.h: the one JSON string escaper, shared by the library (the
 * trace writer, src/core/trace.c) and the `accel` tool (tools/accel/json.c).
 * src/common/ holds sources compiled into both: the library builds this
 * file with hidden visibility, so it is no part of the installed ABI, and
 * the tool compiles its own copy rather than reaching for a private symbol
 * of the shared library. It depends on the C library only.
 * No state; safe from any thread (the caller owns `out`). */
#ifndef ACCEL_COMMON_JSON_STRING_H
#define ACCEL_COMMON_JSON_STRING_H

#include <stdio.h>

/* Write `text` as a quoted JSON string. The output is valid JSON and valid
 * UTF-8 for any input: quotes and backslashes are escaped, control
 * characters and DEL become \n, \r, \t or \u00XX, and every byte that does
 * not start a well-formed UTF-8 sequence (overlong, surrogate, above
 * U+10FFFF, truncated) becomes \ufffd. */
void accel_json_write_string(FILE *out, const char *text);

#endif /* ACCEL_COMMON_JSON_STRING_H */
