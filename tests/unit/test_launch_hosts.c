/* test_launch_hosts.c: unit tests of `accel launch`'s hostfile and selection
 * parser (tools/accel/launch_hosts.c): DeepSpeed's hostfile format and its
 * --include/--exclude/--num_nodes/--num_gpus meaning, and a sentence naming
 * the line or host for each refusal, with the pool left as it was. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "launch_hosts.h"

static char err[512];

static launch_hosts_t parse_ok(const char *text)
{
    launch_hosts_t hosts = {0};
    err[0] = '\0';
    if (!launch_hosts_parse(text, "hostfile H", &hosts, err, sizeof err))
        fail_msg("refused: %s", err);
    return hosts;
}

/* The refusal of `text`, which must name `expected`. */
static void parse_refused(const char *text, const char *expected)
{
    launch_hosts_t hosts = {0};
    err[0] = '\0';
    assert_false(launch_hosts_parse(text, "hostfile H", &hosts, err, sizeof err));
    assert_null(hosts.hosts);
    assert_int_equal(hosts.count, 0);
    if (strstr(err, expected) == NULL)
        fail_msg("'%s' does not contain '%s'", err, expected);
}

/* "a:0,1 b:2" for comparing selections. */
static const char *describe(const launch_hosts_t *hosts)
{
    static char text[512];
    size_t used = 0;
    text[0] = '\0';
    for (size_t h = 0; h < hosts->count; h++) {
        used += (size_t)snprintf(text + used, sizeof text - used, "%s%s:", h ? " " : "",
                                 hosts->hosts[h].name);
        for (size_t i = 0; i < hosts->hosts[h].count; i++)
            used += (size_t)snprintf(text + used, sizeof text - used, "%s%d", i ? "," : "",
                                     hosts->hosts[h].ids[i]);
    }
    return text;
}

static launch_selection_t none(void)
{
    return (launch_selection_t){.include = "", .exclude = "", .num_nodes = -1, .num_gpus = -1};
}

static const char *pool = "# the cluster\n"
                          "worker-0 slots=4\n"
                          "\n"
                          "   worker-1   slots=2   max_slots=8 # trailing words are ignored\n"
                          "\t# indented comment\r\n"
                          "10.0.0.7 slots=3";

static const char *selected(launch_selection_t selection)
{
    launch_hosts_t hosts = parse_ok(pool);
    if (!launch_hosts_select(&hosts, &selection, err, sizeof err))
        fail_msg("refused: %s", err);
    static char text[512];
    snprintf(text, sizeof text, "%s", describe(&hosts));
    launch_hosts_free(&hosts);
    return text;
}

/* The refusal of `selection` on the pool, naming `expected`; the pool is
 * unchanged afterwards. */
static void select_refused(launch_selection_t selection, const char *expected)
{
    launch_hosts_t hosts = parse_ok(pool);
    char before[512];
    snprintf(before, sizeof before, "%s", describe(&hosts));
    assert_false(launch_hosts_select(&hosts, &selection, err, sizeof err));
    if (strstr(err, expected) == NULL)
        fail_msg("'%s' does not contain '%s'", err, expected);
    assert_string_equal(describe(&hosts), before);
    launch_hosts_free(&hosts);
}

static void test_hostfile_format(void **state)
{
    (void)state;
    launch_hosts_t hosts = parse_ok(pool);
    assert_int_equal(hosts.count, 3);
    assert_string_equal(hosts.hosts[1].name, "worker-1");
    assert_int_equal(hosts.hosts[1].slots, 2);
    assert_string_equal(describe(&hosts), "worker-0:0,1,2,3 worker-1:0,1 10.0.0.7:0,1,2");
    assert_int_equal(launch_hosts_total(&hosts), 9);
    launch_hosts_free(&hosts);
    hosts = parse_ok("solo slots=1");
    assert_string_equal(describe(&hosts), "solo:0");
    launch_hosts_free(&hosts);
}

static void test_hostfile_refusals(void **state)
{
    (void)state;
    parse_refused("", "hostfile H lists no host");
    parse_refused("# only a comment\n\n", "lists no host");
    parse_refused("a slots=1\nb slot=2\n", "hostfile H, line 2: 'b slot=2' is not 'NAME slots=N'");
    parse_refused("a\n", "line 1: 'a' is not 'NAME slots=N'");
    parse_refused("a slots=1\nb slots=0\n", "line 2: host 'b' has slots=0");
    parse_refused("a slots=4abc\n", "line 1: host 'a' has slots=4abc");
    parse_refused("a slots=-1\n", "host 'a' has slots=-1");
    parse_refused("a slots=99999999999999999999\n", "slots must be a whole number from 1 to 4096");
    parse_refused("a slots=2\n\nb slots=1\na slots=3\n", "line 4: host 'a' is listed a second");
    parse_refused("user@a slots=2\n", "line 1: host 'user@a' has a character other than");
    parse_refused("a:0 slots=2\n", "host 'a:0' has a character");
    parse_refused("-oProxy slots=2\n", "line 1: '-oProxy' is not a host name");
    parse_refused("aslots=2\n", "'aslots=2' is not 'NAME slots=N'");
}

/* A selection on the pool: the four options (-1: a count not given) and
 * what it keeps ("a:0,1 b:2"), or, for a refused one, part of the
 * refusal. */
typedef struct selection_case {
    const char *include, *exclude;
    int num_nodes, num_gpus;
    const char *expected;
} selection_case_t;

#define CASE_COUNT(cases) (sizeof(cases) / sizeof(cases)[0])

static void check_selections(const selection_case_t *cases, size_t count, bool refused)
{
    for (size_t i = 0; i < count; i++) {
        launch_selection_t s = {.include = cases[i].include,
                                .exclude = cases[i].exclude,
                                .num_nodes = cases[i].num_nodes,
                                .num_gpus = cases[i].num_gpus};
        if (refused)
            select_refused(s, cases[i].expected);
        else
            assert_string_equal(selected(s), cases[i].expected);
    }
}

static void test_include(void **state)
{
    static const selection_case_t cases[] = {
        {"", "", -1, -1, "worker-0:0,1,2,3 worker-1:0,1 10.0.0.7:0,1,2"},
        {"worker-1", "", -1, -1, "worker-1:0,1"},
        /* hostfile order, ascending unique ids, whatever order they are named in */
        {"10.0.0.7:2,0,2@worker-0:3,1", "", -1, -1, "worker-0:1,3 10.0.0.7:0,2"},
        /* one host named twice: the slots add up; named whole once: all */
        {"worker-0:1@worker-0:0", "", -1, -1, "worker-0:0,1"},
        {"worker-0:1@worker-0", "", -1, -1, "worker-0:0,1,2,3"},
    };
    (void)state;
    check_selections(cases, CASE_COUNT(cases), false);
}

static void test_exclude(void **state)
{
    static const selection_case_t cases[] = {
        {"", "worker-0:0,2", -1, -1, "worker-0:1,3 worker-1:0,1 10.0.0.7:0,1,2"},
        {"", "worker-1@10.0.0.7:1", -1, -1, "worker-0:0,1,2,3 10.0.0.7:0,2"},
        {"", "worker-1:0,1", -1, -1, "worker-0:0,1,2,3 10.0.0.7:0,1,2"},
    };
    (void)state;
    check_selections(cases, CASE_COUNT(cases), false);
}

static void test_counts(void **state)
{
    static const selection_case_t cases[] = {
        {"", "", 2, -1, "worker-0:0,1,2,3 worker-1:0,1"},
        {"", "", 2, 2, "worker-0:0,1 worker-1:0,1"},
        {"", "", -1, 2, "worker-0:0,1 worker-1:0,1 10.0.0.7:0,1"},
        /* only worker-0 is kept, and it has 4 */
        {"", "", 1, 4, "worker-0:0,1,2,3"},
    };
    (void)state;
    check_selections(cases, CASE_COUNT(cases), false);
}

static void test_selection_refusals(void **state)
{
    static const selection_case_t cases[] = {
        {"worker-9:0", "", -1, -1,
         "--include: host 'worker-9' is not one of the hosts to launch on "
         "(worker-0, worker-1, 10.0.0.7)"},
        {"worker-1:2", "", -1, -1, "--include: host 'worker-1' has no slot 2 (its slots: 0 to 1)"},
        {"worker-1:x", "", -1, -1, "slot 'x' of host 'worker-1' is not a device number"},
        {"worker-1:", "", -1, -1, "slot '' of host 'worker-1'"},
        {"worker-1:0,,1", "", -1, -1, "slot '' of host 'worker-1'"},
        {"worker-1:0:1", "", -1, -1, "'worker-1:0:1' has more than one ':'"},
        {"worker-0@@worker-1", "", -1, -1, "--include: '' names no host"},
        {"worker-0@", "", -1, -1, "names no host"},
        {":0", "", -1, -1, "':0' names no host"},
        {"worker-0", "worker-1", -1, -1, "--include and --exclude cannot be given together"},
        {"worker-0", "", 1, -1, "--num_nodes and --num_gpus cannot be combined with --include"},
        {"", "worker-0@worker-1@10.0.0.7", -1, -1,
         "--exclude 'worker-0@worker-1@10.0.0.7' leaves no device to run on"},
        {"", "worker-0@worker-1@10.0.0.7:0,1,2", -1, -1, "leaves no device to run on"},
        {"", "worker-1:5", -1, -1, "--exclude: host 'worker-1' has no slot 5"},
        {"", "", 4, -1, "--num_nodes 4: there are only 3 hosts to launch on"},
        {"", "", 0, -1, "--num_nodes 0 leaves no device to run on"},
        {"", "", -1, 0, "--num_gpus 0 leaves no device to run on"},
        {"", "", -1, 3, "--num_gpus 3: host 'worker-1' has only 2 slots"},
    };
    (void)state;
    check_selections(cases, CASE_COUNT(cases), true);
}

static void test_local(void **state)
{
    (void)state;
    launch_hosts_t hosts = {0};
    const int visible[] = {3, 1};
    assert_true(launch_hosts_local("localhost", visible, 2, &hosts, err, sizeof err));
    assert_string_equal(describe(&hosts), "localhost:3,1");
    assert_int_equal(hosts.hosts[0].slots, 4);
    launch_selection_t s = none();
    s.exclude = "localhost:3";
    assert_true(launch_hosts_select(&hosts, &s, err, sizeof err));
    assert_string_equal(describe(&hosts), "localhost:1");
    s.exclude = "localhost:2"; /* below slots but not one of its devices */
    assert_false(launch_hosts_select(&hosts, &s, err, sizeof err));
    assert_non_null(strstr(err, "host 'localhost' has no slot 2"));
    s.exclude = "";
    s.num_nodes = 2;
    assert_false(launch_hosts_select(&hosts, &s, err, sizeof err));
    assert_non_null(strstr(err, "--num_nodes 2: there is only 1 host to launch on"));
    launch_hosts_free(&hosts);
    assert_false(launch_hosts_local("localhost", NULL, 0, &hosts, err, sizeof err));
    assert_non_null(strstr(err, "localhost has no device to run on"));
    const int negative[] = {-1};
    assert_false(launch_hosts_local("localhost", negative, 1, &hosts, err, sizeof err));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hostfile_format), cmocka_unit_test(test_hostfile_refusals),
        cmocka_unit_test(test_include),         cmocka_unit_test(test_exclude),
        cmocka_unit_test(test_counts),          cmocka_unit_test(test_selection_refusals),
        cmocka_unit_test(test_local),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
