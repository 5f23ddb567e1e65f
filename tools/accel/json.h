/* json.h: a tiny streaming JSON writer for `accel report --json`: nested
 * objects and arrays, indented two spaces, with strings escaped (control
 * characters, quotes, backslashes; invalid UTF-8 becomes U+FFFD). */
#ifndef ACCEL_TOOLS_JSON_H
#define ACCEL_TOOLS_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 16

typedef struct json_writer {
    FILE *out;
    int depth;
    bool has_items[JSON_MAX_DEPTH]; /* a comma is due before the next item */
    bool after_key;                 /* the next value completes a "key": pair */
    bool overflow;                  /* nesting went past JSON_MAX_DEPTH */
} json_writer_t;

void json_init(json_writer_t *w, FILE *out);

/* Containers. Inside an object, call json_key before every value. */
void json_object_begin(json_writer_t *w);
void json_object_end(json_writer_t *w);
void json_array_begin(json_writer_t *w);
void json_array_end(json_writer_t *w);
void json_key(json_writer_t *w, const char *key);

/* Values. json_string(w, NULL) writes null. */
void json_string(json_writer_t *w, const char *text);
void json_uint(json_writer_t *w, uint64_t value);
void json_int(json_writer_t *w, int64_t value);
void json_double(json_writer_t *w, double value);
void json_bool(json_writer_t *w, bool value);
void json_null(json_writer_t *w);
/* A value that is already JSON (another tool's document), written as is. */
void json_raw(json_writer_t *w, const char *text);

/* Finish the document (a final newline); false if the nesting was unbalanced
 * or too deep. */
bool json_finish(json_writer_t *w);

#endif
