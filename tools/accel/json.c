/* json.c: the streaming JSON writer behind `accel report --json` (json.h).
 * Output is valid JSON for any input string: bytes that are not UTF-8 are
 * replaced, control characters escaped. */
#include <math.h>
#include <string.h>

#include "json.h"

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

void json_object_begin(json_writer_t *w) { json_open(w, '{'); }
void json_object_end(json_writer_t *w) { json_close(w, '}'); }
void json_array_begin(json_writer_t *w) { json_open(w, '['); }
void json_array_end(json_writer_t *w) { json_close(w, ']'); }

/* Length of the valid UTF-8 sequence at `s` (1-4), or 0 if it is not one. */
static size_t utf8_sequence_length(const unsigned char *s)
{
    size_t length;
    uint32_t min;
    uint32_t code;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xe0) == 0xc0) {
        length = 2, min = 0x80, code = s[0] & 0x1f;
    } else if ((s[0] & 0xf0) == 0xe0) {
        length = 3, min = 0x800, code = s[0] & 0x0f;
    } else if ((s[0] & 0xf8) == 0xf0) {
        length = 4, min = 0x10000, code = s[0] & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < length; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0; /* also stops at the terminating NUL */
        code = (code << 6) | (s[i] & 0x3f);
    }
    if (code < min || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff))
        return 0;
    return length;
}

static void json_write_escaped(FILE *out, const char *text)
{
    const unsigned char *s = (const unsigned char *)text;
    fputc('"', out);
    while (*s) {
        size_t length = utf8_sequence_length(s);
        if (length == 0) {
            fputs("\\ufffd", out);
            s++;
        } else if (length > 1) {
            fwrite(s, 1, length, out);
            s += length;
        } else {
            switch (*s) {
            case '"':
                fputs("\\\"", out);
                break;
            case '\\':
                fputs("\\\\", out);
                break;
            case '\n':
                fputs("\\n", out);
                break;
            case '\r':
                fputs("\\r", out);
                break;
            case '\t':
                fputs("\\t", out);
                break;
            default:
                if (*s < 0x20 || *s == 0x7f)
                    fprintf(out, "\\u%04x", *s);
                else
                    fputc(*s, out);
            }
            s++;
        }
    }
    fputc('"', out);
}

void json_key(json_writer_t *w, const char *key)
{
    json_before_item(w);
    json_write_escaped(w->out, key);
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
    json_write_escaped(w->out, text);
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

bool json_finish(json_writer_t *w)
{
    fputc('\n', w->out);
    return w->depth == 0 && !w->overflow && !w->after_key;
}
