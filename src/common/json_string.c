/* json_string.c: the one JSON string escaper (json_string.h), compiled into
 * both the library and the `accel` tool. Strict UTF-8: only well-formed
 * sequences pass through, so the output always parses. No state. */
#include <stddef.h>
#include <stdint.h>

#include "json_string.h"

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

void accel_json_write_string(FILE *out, const char *text)
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
            case '"': fputs("\\\"", out); break;
            case '\\': fputs("\\\\", out); break;
            case '\n': fputs("\\n", out); break;
            case '\r': fputs("\\r", out); break;
            case '\t': fputs("\\t", out); break;
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
