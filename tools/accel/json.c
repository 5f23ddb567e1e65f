/* json.c: the streaming JSON writer behind `accel report --json` (json.h).
 * Output is valid JSON for any input string: strings go through the escaper
 * the library's trace writer uses too (src/common/json_string.h). */
#include <math.h>
#include <string.h>

#include "json.h"
#include "json_string.h"

void json_init(json_writer_t *w, FILE *out)
{
    memset(w, 0, sizeof *w);
    w->out = out;
}

static void json_newline(json_writer_t *w)
{
    fputc('\n', w->out);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->out);
}

/* Separator and indentation before any value or key. */
static void json_before_item(json_writer_t *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (w->depth == 0)
        return;
    if (w->has_items[w->depth - 1])
        fputc(',', w->out);
    w->has_items[w->depth - 1] = true;
    json_newline(w);
}

static void json_open(json_writer_t *w, char bracket)
{
    json_before_item(w);
    fputc(bracket, w->out);
    if (w->depth >= JSON_MAX_DEPTH) {
        w->overflow = true;
        return;
    }
    w->has_items[w->depth++] = false;
}

static void json_close(json_writer_t *w, char bracket)
{
    if (w->depth == 0) {
        w->overflow = true;
        return;
    }
    bool had_items = w->has_items[--w->depth];
    if (had_items)
        json_newline(w);
    fputc(bracket, w->out);
}

void json_object_begin(json_writer_t *w)
{
    json_open(w, '{');
}
void json_object_end(json_writer_t *w)
{
    json_close(w, '}');
}
void json_array_begin(json_writer_t *w)
{
    json_open(w, '[');
}
void json_array_end(json_writer_t *w)
{
    json_close(w, ']');
}

void json_key(json_writer_t *w, const char *key)
{
    json_before_item(w);
    accel_json_write_string(w->out, key);
    fputs(": ", w->out);
    w->after_key = true;
}

void json_string(json_writer_t *w, const char *text)
{
    if (!text) {
        json_null(w);
        return;
    }
    json_before_item(w);
    accel_json_write_string(w->out, text);
}

void json_uint(json_writer_t *w, uint64_t value)
{
    json_before_item(w);
    fprintf(w->out, "%llu", (unsigned long long)value);
}

void json_int(json_writer_t *w, int64_t value)
{
    json_before_item(w);
    fprintf(w->out, "%lld", (long long)value);
}

void json_double(json_writer_t *w, double value)
{
    if (!isfinite(value)) {
        json_null(w); /* JSON has no NaN or infinity */
        return;
    }
    json_before_item(w);
    fprintf(w->out, "%.17g", value);
}

void json_bool(json_writer_t *w, bool value)
{
    json_before_item(w);
    fputs(value ? "true" : "false", w->out);
}

void json_null(json_writer_t *w)
{
    json_before_item(w);
    fputs("null", w->out);
}

void json_raw(json_writer_t *w, const char *text)
{
    json_before_item(w);
    fputs(text, w->out);
}

bool json_finish(json_writer_t *w)
{
    fputc('\n', w->out);
    return w->depth == 0 && !w->overflow && !w->after_key;
}
