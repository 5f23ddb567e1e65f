/* test_json_string.c: unit tests of the one JSON string escaper
 * (src/common/json_string.c): escapes, UTF-8 passed through, every
 * ill-formed sequence replaced; and the library's trace writer using it (an
 * overlong sequence in a range name must not reach the trace file). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "accel/accel.h"
#include "common/json_string.h"

/* The escaper's output for `text`, in a static buffer. */
static const char *escaped(const char *text)
{
    static char result[256];
    FILE *out = fmemopen(result, sizeof result, "w");
    assert_non_null(out);
    accel_json_write_string(out, text);
    assert_int_equal(fclose(out), 0);
    return result;
}

static void test_escapes(void **state)
{
    (void)state;
    assert_string_equal(escaped("plain"), "\"plain\"");
    assert_string_equal(escaped(""), "\"\"");
    assert_string_equal(escaped("a\"b\\c"), "\"a\\\"b\\\\c\"");
    assert_string_equal(escaped("\n\r\t"), "\"\\n\\r\\t\"");
    assert_string_equal(escaped("\x01\x1f\x7f"), "\"\\u0001\\u001f\\u007f\"");
}

static void test_utf8_passes(void **state)
{
    (void)state;
    /* é (2 bytes), € (3), U+1F600 (4), U+10FFFF (the last code point). */
    assert_string_equal(escaped("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf"),
                        "\"\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xf4\x8f\xbf\xbf\"");
}

static void test_ill_formed_replaced(void **state)
{
    (void)state;
    assert_string_equal(escaped("a\x80z"), "\"a\\ufffdz\"");        /* lone continuation */
    assert_string_equal(escaped("\xc0\xaf"), "\"\\ufffd\\ufffd\""); /* overlong '/' */
    assert_string_equal(escaped("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\""); /* surrogate */
    assert_string_equal(escaped("\xf4\x90\x80\x80"),
                        "\"\\ufffd\\ufffd\\ufffd\\ufffd\"");        /* above U+10FFFF */
    assert_string_equal(escaped("\xe2\x82"), "\"\\ufffd\\ufffd\""); /* cut short */
    assert_string_equal(escaped("\xff"), "\"\\ufffd\"");
}

/* The trace writer shares the escaper: an overlong sequence in a range name
 * comes out replaced (it used to be copied through, leaving ill-formed UTF-8
 * in the file). */
static void test_trace_uses_escaper(void **state)
{
    (void)state;
    char path[] = "/tmp/accel-test-json-XXXXXX";
    char text[65536];
    accel_t *acc;
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(accel_get(&acc), ACCEL_OK);
    assert_int_equal(accel_trace_start(path), ACCEL_OK);
    assert_int_equal(accel_range_push(acc, "bad\xc0\xafname", NULL, NULL), ACCEL_OK);
    assert_int_equal(accel_range_pop(acc, NULL), ACCEL_OK);
    assert_int_equal(accel_trace_stop(), ACCEL_OK);
    FILE *in = fopen(path, "r");
    assert_non_null(in);
    size_t n = fread(text, 1, sizeof text - 1, in);
    fclose(in);
    unlink(path);
    text[n] = '\0';
    assert_non_null(strstr(text, "\"bad\\ufffd\\ufffdname\""));
    assert_null(strstr(text, "\xc0"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_utf8_passes),
        cmocka_unit_test(test_ill_formed_replaced),
        cmocka_unit_test(test_trace_uses_escaper),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
