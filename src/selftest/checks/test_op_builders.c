/* test_op_builders.c: conformance tests of op builders: lookup by class
 * name, enumeration, names, is_compatible and load; then the optimizer ops
 * (accel_ops.h) every backend lists, device ops checked against host ops,
 * and async_io with the backend's device tensors. */
#include "conformance.h"

#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <accel/accel_ops.h>

static size_t op_builders_count(void)
{
    size_t count = 0;
    assert_ok(accel_op_builder_count(conformance_acc, &count));
    return count;
}

static bool op_builders_ends_with(const char *text, const char *suffix)
{
    size_t n = strlen(text), m = strlen(suffix);
    return n >= m && strcmp(text + n - m, suffix) == 0;
}

/* DeepSpeed's get_op_builder(unknown) gives NotImplementedBuilder: a handle
 * that is not compatible, says why and cannot load; never one of the list. */
void test_op_builders_unknown_name(void **state)
{
    accel_op_builder_t *builder = NULL, *again = NULL;
    const void *table = (const void *)&table;
    char reason[512] = "";
    bool compatible = true;
    size_t count = op_builders_count();
    (void)state;
    assert_ok(accel_get_op_builder(conformance_acc, "ConformanceNoSuchBuilder", &builder));
    assert_non_null(builder);
    assert_string_equal(accel_op_builder_class_name(builder), "NotImplementedBuilder");
    assert_string_equal(accel_op_builder_op_name(builder), "deepspeed_not_implemented");
    assert_ok(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason));
    assert_false(compatible);
    assert_non_null(strstr(reason, "not been implemented"));
    assert_non_null(strstr(reason, accel_name(conformance_acc)));
    assert_status(ACCEL_ERROR_UNSUPPORTED, accel_op_builder_load(builder, &table));
    assert_ptr_equal(table, (const void *)&table);
    assert_ok(accel_get_op_builder(conformance_acc, "AnotherMissingBuilder", &again));
    assert_ptr_equal(again, builder);
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *listed = NULL;
        assert_ok(accel_op_builder_at(conformance_acc, i, &listed));
        assert_ptr_not_equal(listed, builder);
    }
}

void test_op_builders_enumerate(void **state)
{
    size_t count = op_builders_count();
    (void)state;
    if (count == 0)
        print_message("note: backend has no op builders\n");
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *builder = NULL, *by_name = NULL;
        const char *class_name, *op_name;
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        assert_non_null(builder);
        class_name = accel_op_builder_class_name(builder);
        op_name = accel_op_builder_op_name(builder);
        assert_non_null(class_name);
        assert_non_null(op_name);
        assert_true(op_builders_ends_with(class_name, "Builder"));
        assert_true(op_name[0] != '\0');
        assert_ok(accel_get_op_builder(conformance_acc, class_name, &by_name));
        assert_ptr_equal(builder, by_name);
        for (size_t j = 0; j < i; j++) {
            accel_op_builder_t *earlier = NULL;
            assert_ok(accel_op_builder_at(conformance_acc, j, &earlier));
            assert_string_not_equal(class_name, accel_op_builder_class_name(earlier));
        }
    }
}

void test_op_builders_is_compatible_answers(void **state)
{
    size_t count = op_builders_count();
    (void)state;
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *builder = NULL;
        bool compatible = false, again = false;
        char reason[256];
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        reason[0] = '\0';
        assert_ok(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason));
        if (!compatible)
            assert_true(reason[0] != '\0');
        assert_ok(accel_op_builder_is_compatible(builder, &again, NULL, 0));
        assert_int_equal(compatible, again);
    }
}

void test_op_builders_load_cached(void **state)
{
    size_t count = op_builders_count();
    size_t loaded = 0;
    (void)state;
    for (size_t i = 0; i < count; i++) {
        accel_op_builder_t *builder = NULL;
        bool compatible = false;
        const void *table = NULL, *again = NULL;
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        assert_ok(accel_op_builder_is_compatible(builder, &compatible, NULL, 0));
        if (!compatible) {
            assert_refused(accel_op_builder_load(builder, &table));
            assert_null(table);
            continue;
        }
        assert_ok(accel_op_builder_load(builder, &table));
        assert_non_null(table);
        assert_ok(accel_op_builder_load(builder, &again));
        assert_ptr_equal(table, again);
        loaded++;
    }
    if (loaded == 0)
        print_message("note: no compatible op builder to load\n");
}

/* ds_report's columns: installed and what the op runs. The host ops are in
 * the library (installed) and name their instruction set and threads. */
void test_op_builders_installed_and_implementation(void **state)
{
    size_t count = op_builders_count();
    accel_op_builder_t *builder = NULL;
    char text[128];
    bool installed = false;
    (void)state;
    for (size_t i = 0; i < count; i++) {
        assert_ok(accel_op_builder_at(conformance_acc, i, &builder));
        assert_ok(accel_op_builder_is_installed(builder, &installed));
        text[0] = '\0';
        assert_ok(accel_op_builder_implementation(builder, text, sizeof text));
        assert_true(text[0] != '\0');
    }
    assert_ok(accel_get_op_builder(conformance_acc, "CPUAdamBuilder", &builder));
    assert_ok(accel_op_builder_is_installed(builder, &installed));
    assert_true(installed);
    assert_ok(accel_op_builder_implementation(builder, text, sizeof text));
    assert_true(strncmp(text, "avx512, ", 8) == 0 || strncmp(text, "avx2, ", 6) == 0 ||
                strncmp(text, "scalar, ", 8) == 0);
    assert_non_null(strstr(text, " thread"));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_implementation(builder, text, 4));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_is_installed(builder, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_is_installed(NULL, &installed));
    assert_ok(accel_get_op_builder(conformance_acc, "ConformanceNoSuchBuilder", &builder));
    assert_ok(accel_op_builder_is_installed(builder, &installed));
    assert_false(installed);
    assert_status(ACCEL_ERROR_UNSUPPORTED,
                  accel_op_builder_implementation(builder, text, sizeof text));
}

void test_op_builders_index_past_end(void **state)
{
    accel_op_builder_t *builder = (accel_op_builder_t *)&builder;
    accel_status_t status = accel_op_builder_at(conformance_acc, op_builders_count(), &builder);
    (void)state;
    /* the header names no code for this; either lookup failure is acceptable */
    assert_true(status == ACCEL_ERROR_NOT_FOUND || status == ACCEL_ERROR_INVALID_ARGUMENT);
    assert_true(accel_last_error()[0] != '\0');
    assert_ptr_equal(builder, (accel_op_builder_t *)&builder);
}

void test_op_builders_bad_arguments(void **state)
{
    accel_op_builder_t *builder = NULL;
    size_t count = 0;
    bool compatible = false;
    const void *table = NULL;
    (void)state;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_op_builder(conformance_acc, NULL, &builder));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_op_builder(NULL, "CPUAdamBuilder", &builder));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_get_op_builder(conformance_acc, "CPUAdamBuilder", NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_count(conformance_acc, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_count(NULL, &count));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_at(conformance_acc, 0, NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_at(NULL, 0, &builder));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  accel_op_builder_is_compatible(NULL, &compatible, NULL, 0));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_load(NULL, &table));
    assert_null(accel_op_builder_class_name(NULL));
    assert_null(accel_op_builder_op_name(NULL));
    assert_null(builder);
    if (op_builders_count() > 0) {
        assert_ok(accel_op_builder_at(conformance_acc, 0, &builder));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      accel_op_builder_is_compatible(builder, NULL, NULL, 0));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, accel_op_builder_load(builder, NULL));
    }
}

/* ---------------------------------------------------------------- optimizer ops
 *
 * Every backend lists DeepSpeed's optimizer builders. The device ops
 * (fused_adam, fused_lion) are checked against the host ops (cpu_adam,
 * cpu_lion), the numeric oracle, on the same inputs: the device tensors come
 * from accel_tensor_empty, the host copies are plain malloc'ed kDLCPU
 * tensors. Tolerance: relative 1e-5 for float32, one unit in the last place
 * of the stored type for float16 and bfloat16. */

typedef struct optim_builder_name {
    const char *class_name;
    const char *op_name;
} optim_builder_name_t;

static const optim_builder_name_t optim_builder_names[] = {
    {"CPUAdamBuilder", "cpu_adam"},     {"CPUAdagradBuilder", "cpu_adagrad"},
    {"CPULionBuilder", "cpu_lion"},     {"FusedAdamBuilder", "fused_adam"},
    {"FusedLionBuilder", "fused_lion"}, {"FusedLambBuilder", "fused_lamb"},
};
#define OPTIM_BUILDER_COUNT (sizeof optim_builder_names / sizeof optim_builder_names[0])

/* The (param, state) dtype pairs of accel_ops.h. */
static const accel_dtype_t optim_pairs[][2] = {
    {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32},   {ACCEL_DTYPE_F16, ACCEL_DTYPE_F32},
    {ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32},  {ACCEL_DTYPE_F16, ACCEL_DTYPE_F16},
    {ACCEL_DTYPE_BF16, ACCEL_DTYPE_BF16},
};
#define OPTIM_PAIR_COUNT (sizeof optim_pairs / sizeof optim_pairs[0])

/* 65537 is prime: no work-group or block size divides it, and it spans many. */
static const size_t optim_sizes[] = {0, 1, 7, 1000, 65537};
#define OPTIM_SIZE_COUNT (sizeof optim_sizes / sizeof optim_sizes[0])
#define OPTIM_STEPS      3

/* The table a builder loads, or NULL (with the reason printed) when the
 * builder says it cannot run here. */
static const void *optim_load(const char *class_name)
{
    accel_op_builder_t *builder = NULL;
    bool compatible = false;
    char reason[256] = "";
    const void *table = NULL;
    assert_ok(accel_get_op_builder(conformance_acc, class_name, &builder));
    assert_ok(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason));
    if (!compatible) {
        print_message("note: %s is not compatible here: %s\n", class_name, reason);
        return NULL;
    }
    assert_ok(accel_op_builder_load(builder, &table));
    assert_non_null(table);
    return table;
}

/* Load both tables of a (device op, host op) comparison, or skip. */
static void optim_load_pair(const char *device_class, const char *host_class,
                            const void **device_op, const void **host_op)
{
    *device_op = optim_load(device_class);
    *host_op = optim_load(host_class);
    if (*device_op == NULL || *host_op == NULL)
        conf_skip("%s or %s cannot run on this backend", device_class, host_class);
}

static int32_t optim_device_type(void)
{
    int32_t type = 0;
    assert_ok(accel_dlpack_device_type(conformance_acc, &type));
    return type;
}

static size_t optim_dtype_size(accel_dtype_t dtype)
{
    return dtype == ACCEL_DTYPE_F32 ? 4 : 2;
}

/* A small deterministic generator (xorshift64*): tests repeat exactly. */
static uint64_t optim_random(uint64_t *state)
{
    *state ^= *state >> 12;
    *state ^= *state << 25;
    *state ^= *state >> 27;
    return *state * 0x2545F4914F6CDD1Dull;
}

/* One value with magnitude in [2^low, 2^(high+1)), written straight in the
 * stored encoding (so no float-to-half rounding is needed here). */
static void optim_random_value(uint64_t *rng, accel_dtype_t dtype, int low, int high, bool signed_,
                               void *out)
{
    uint64_t r = optim_random(rng);
    uint32_t sign = signed_ ? (uint32_t)(r >> 63) : 0u;
    int exponent = low + (int)((r >> 40) % (uint64_t)(high - low + 1));
    uint32_t mantissa = (uint32_t)r;
    if (dtype == ACCEL_DTYPE_F32) {
        uint32_t bits = sign << 31 | (uint32_t)(exponent + 127) << 23 | (mantissa & 0x7fffffu);
        memcpy(out, &bits, 4);
    } else if (dtype == ACCEL_DTYPE_F16) {
        uint16_t bits =
            (uint16_t)(sign << 15 | (uint32_t)(exponent + 15) << 10 | (mantissa & 0x3ffu));
        memcpy(out, &bits, 2);
    } else {
        uint16_t bits =
            (uint16_t)(sign << 15 | (uint32_t)(exponent + 127) << 7 | (mantissa & 0x7fu));
        memcpy(out, &bits, 2);
    }
}

/* The tensors of one step, twice: `host` (malloc'ed, kDLCPU) for the host op
 * and `device` (accel_tensor_empty) for the op under test. Index 0 param,
 * 1 grad, 2 first state, 3 second state (Adam only). */
typedef struct optim_tensors {
    size_t count;
    size_t n; /* 3 or 4 tensors */
    accel_dtype_t dtypes[4];
    int64_t shape[1];
    DLTensor host[4];
    DLTensor device[4];
} optim_tensors_t;

/* Exponent ranges of the generated values: param, grad, exp_avg, exp_avg_sq. */
static const int optim_value_ranges[4][3] = {{-4, 0, 1}, {-6, 0, 1}, {-8, -2, 1}, {-12, -4, 0}};

static void optim_tensors_make(optim_tensors_t *t, size_t count, const accel_dtype_t pair[2],
                               size_t n, uint64_t seed)
{
    uint64_t rng = seed * 0x9E3779B97F4A7C15ull + 1;
    memset(t, 0, sizeof *t);
    t->count = count;
    t->n = n;
    t->shape[0] = (int64_t)count;
    for (size_t k = 0; k < n; k++) {
        size_t elem;
        unsigned char *data;
        t->dtypes[k] = k < 2 ? pair[0] : pair[1];
        elem = optim_dtype_size(t->dtypes[k]);
        data = malloc(count * elem + 1);
        assert_non_null(data);
        for (size_t i = 0; i < count; i++)
            optim_random_value(&rng, t->dtypes[k], optim_value_ranges[k][0],
                               optim_value_ranges[k][1], optim_value_ranges[k][2] != 0,
                               data + i * elem);
        t->host[k] = (DLTensor){.data = data,
                                .device = {.device_type = kDLCPU, .device_id = 0},
                                .ndim = 1,
                                .shape = t->shape};
        assert_ok(accel_dtype_to_dlpack(t->dtypes[k], &t->host[k].dtype));
        assert_ok(accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, t->dtypes[k], 1,
                                     t->shape, &t->device[k]));
        conf_to_device(t->device[k].data, data, count * elem);
    }
}

static void optim_tensors_free(optim_tensors_t *t)
{
    for (size_t k = 0; k < t->n; k++) {
        free(t->host[k].data);
        assert_ok(accel_tensor_free(conformance_acc, &t->device[k]));
    }
}

/* Position of a 16-bit float on the number line, in ulps. */
static int32_t optim_ordered16(uint16_t bits)
{
    return (bits & 0x8000u) ? -(int32_t)(bits & 0x7fffu) : (int32_t)bits;
}

/* Largest differences seen, for the note each comparison test prints. */
typedef struct optim_error {
    double f32_relative;
    int32_t ulps16;
} optim_error_t;

/* Element i of a host buffer and of the device result must agree within
 * the tolerance; `what` names the place for the failure message. */
static void optim_check_element(accel_dtype_t dtype, const unsigned char *want,
                                const unsigned char *got, const char *what, size_t i,
                                optim_error_t *error)
{
    if (dtype == ACCEL_DTYPE_F32) {
        float a, b;
        double diff, scale;
        memcpy(&a, want, 4);
        memcpy(&b, got, 4);
        diff = fabs((double)a - (double)b);
        scale = fmax(fabs((double)a), fabs((double)b));
        if (diff == 0.0)
            return;
        if (!(diff <= 1e-5 * scale))
            fail_msg("%s element %zu: host op %.9g, device op %.9g", what, i, (double)a, (double)b);
        if (diff / scale > error->f32_relative)
            error->f32_relative = diff / scale;
    } else {
        uint16_t a, b;
        int32_t ulps;
        memcpy(&a, want, 2);
        memcpy(&b, got, 2);
        ulps = abs(optim_ordered16(a) - optim_ordered16(b));
        if (ulps > 1)
            fail_msg("%s element %zu: host op 0x%04x, device op 0x%04x (%d ulps apart)", what, i, a,
                     b, (int)ulps);
        if (ulps > error->ulps16)
            error->ulps16 = ulps;
    }
}

/* Copy the device tensors back and compare them with the host ones; grad
 * must come back exactly as it went in. */
static void optim_compare(const optim_tensors_t *t, const char *label, optim_error_t *error)
{
    static const char *const names[4] = {"param", "grad", "state", "exp_avg_sq"};
    for (size_t k = 0; k < t->n; k++) {
        size_t elem = optim_dtype_size(t->dtypes[k]);
        unsigned char *back = malloc(t->count * elem + 1);
        char what[160];
        assert_non_null(back);
        conf_to_host(back, t->device[k].data, t->count * elem);
        snprintf(what, sizeof what, "%s: %s", label, names[k]);
        if (k == 1)
            assert_memory_equal(back, t->host[k].data, t->count * elem);
        for (size_t i = 0; k != 1 && i < t->count; i++)
            optim_check_element(t->dtypes[k], (const unsigned char *)t->host[k].data + i * elem,
                                back + i * elem, what, i, error);
        free(back);
    }
}

/* Fail unless the device tensors still hold what optim_tensors_make wrote. */
static void optim_expect_unchanged(const optim_tensors_t *t)
{
    for (size_t k = 0; k < t->n; k++) {
        size_t bytes = t->count * optim_dtype_size(t->dtypes[k]);
        unsigned char *back = malloc(bytes + 1);
        assert_non_null(back);
        conf_to_host(back, t->device[k].data, bytes);
        assert_memory_equal(back, t->host[k].data, bytes);
        free(back);
    }
}

static void optim_print_error(const char *op, const optim_error_t *error)
{
    print_message("note: %s vs the host op: largest float32 relative difference %.3g, largest "
                  "16-bit difference %d ulp\n",
                  op, error->f32_relative, (int)error->ulps16);
}

void test_op_builders_optimizers_listed(void **state)
{
    (void)state;
    for (size_t i = 0; i < OPTIM_BUILDER_COUNT; i++) {
        accel_op_builder_t *builder = NULL;
        bool compatible = false;
        char reason[256] = "";
        assert_ok(
            accel_get_op_builder(conformance_acc, optim_builder_names[i].class_name, &builder));
        assert_string_equal(accel_op_builder_class_name(builder),
                            optim_builder_names[i].class_name);
        assert_string_equal(accel_op_builder_op_name(builder), optim_builder_names[i].op_name);
        assert_ok(accel_op_builder_is_compatible(builder, &compatible, reason, sizeof reason));
        if (!compatible)
            assert_true(reason[0] != '\0');
    }
}

/* Every table starts with struct_size and implementation, then step. */
void test_op_builders_optimizer_tables(void **state)
{
    (void)state;
    for (size_t i = 0; i < OPTIM_BUILDER_COUNT; i++) {
        const char *class_name = optim_builder_names[i].class_name;
        const char *op_name = optim_builder_names[i].op_name;
        const void *table = optim_load(class_name);
        size_t struct_size;
        const char *implementation;
        bool has_step;
        if (table == NULL)
            continue;
        if (strstr(op_name, "adam") != NULL) {
            const accel_adam_op_t *op = table;
            struct_size = op->struct_size;
            implementation = op->implementation;
            has_step = op->step != NULL;
            assert_true(struct_size >= sizeof(accel_adam_op_t));
        } else if (strstr(op_name, "lamb") != NULL) {
            const accel_lamb_op_t *op = table;
            struct_size = op->struct_size;
            implementation = op->implementation;
            has_step = op->step != NULL;
            assert_true(struct_size >= sizeof(accel_lamb_op_t));
        } else if (strstr(op_name, "adagrad") != NULL) {
            const accel_adagrad_op_t *op = table;
            struct_size = op->struct_size;
            implementation = op->implementation;
            has_step = op->step != NULL;
            assert_true(struct_size >= sizeof(accel_adagrad_op_t));
        } else {
            const accel_lion_op_t *op = table;
            struct_size = op->struct_size;
            implementation = op->implementation;
            has_step = op->step != NULL;
            assert_true(struct_size >= sizeof(accel_lion_op_t));
        }
        assert_non_null(implementation);
        assert_true(implementation[0] != '\0');
        assert_true(has_step);
        print_message("note: %s -> %s (%s)\n", class_name, op_name, implementation);
    }
}

/* Two Adam settings: AdamW with bias correction, and L2 Adam without. */
static const accel_adam_config_t optim_adam_configs[] = {
    {1e-2f, 0.9f, 0.999f, 1e-8f, 0.01f, true, true},
    {1e-2f, 0.8f, 0.99f, 1e-6f, 0.05f, false, false},
};

static void optim_adam_case(const accel_adam_op_t *device_op, const accel_adam_op_t *host_op,
                            const accel_adam_config_t *config, size_t count,
                            const accel_dtype_t pair[2], optim_error_t *error)
{
    optim_tensors_t t;
    optim_tensors_make(&t, count, pair, 4, count * 31 + (size_t)pair[0] * 7 + (size_t)pair[1]);
    for (uint64_t step = 1; step <= OPTIM_STEPS; step++) {
        char label[160];
        assert_ok(host_op->step(conformance_acc, NULL, config, step, &t.host[0], &t.host[1],
                                &t.host[2], &t.host[3]));
        assert_ok(device_op->step(conformance_acc, NULL, config, step, &t.device[0], &t.device[1],
                                  &t.device[2], &t.device[3]));
        snprintf(label, sizeof label, "adam %s/%s, %zu elements, adamw %d, step %llu",
                 accel_dtype_name(pair[0]), accel_dtype_name(pair[1]), count,
                 (int)config->adamw_mode, (unsigned long long)step);
        optim_compare(&t, label, error);
    }
    optim_tensors_free(&t);
}

void test_op_builders_fused_adam_matches_host(void **state)
{
    const void *device_op, *host_op;
    optim_error_t error = {0};
    (void)state;
    optim_load_pair("FusedAdamBuilder", "CPUAdamBuilder", &device_op, &host_op);
    for (size_t c = 0; c < sizeof optim_adam_configs / sizeof optim_adam_configs[0]; c++)
        for (size_t p = 0; p < OPTIM_PAIR_COUNT; p++)
            for (size_t s = 0; s < OPTIM_SIZE_COUNT; s++)
                optim_adam_case(device_op, host_op, &optim_adam_configs[c], optim_sizes[s],
                                optim_pairs[p], &error);
    optim_print_error("fused_adam", &error);
}

/* Lion with and without decoupled weight decay. */
static const accel_lion_config_t optim_lion_configs[] = {
    {1e-3f, 0.9f, 0.99f, 0.1f},
    {1e-2f, 0.95f, 0.98f, 0.0f},
};

static void optim_lion_case(const accel_lion_op_t *device_op, const accel_lion_op_t *host_op,
                            const accel_lion_config_t *config, size_t count,
                            const accel_dtype_t pair[2], optim_error_t *error)
{
    optim_tensors_t t;
    optim_tensors_make(&t, count, pair, 3, count * 17 + (size_t)pair[0] * 5 + (size_t)pair[1]);
    for (int step = 1; step <= OPTIM_STEPS; step++) {
        char label[160];
        assert_ok(host_op->step(conformance_acc, NULL, config, &t.host[0], &t.host[1], &t.host[2]));
        assert_ok(device_op->step(conformance_acc, NULL, config, &t.device[0], &t.device[1],
                                  &t.device[2]));
        snprintf(label, sizeof label, "lion %s/%s, %zu elements, weight decay %g, step %d",
                 accel_dtype_name(pair[0]), accel_dtype_name(pair[1]), count,
                 (double)config->weight_decay, step);
        optim_compare(&t, label, error);
    }
    optim_tensors_free(&t);
}

void test_op_builders_fused_lion_matches_host(void **state)
{
    const void *device_op, *host_op;
    optim_error_t error = {0};
    (void)state;
    optim_load_pair("FusedLionBuilder", "CPULionBuilder", &device_op, &host_op);
    for (size_t c = 0; c < sizeof optim_lion_configs / sizeof optim_lion_configs[0]; c++)
        for (size_t p = 0; p < OPTIM_PAIR_COUNT; p++)
            for (size_t s = 0; s < OPTIM_SIZE_COUNT; s++)
                optim_lion_case(device_op, host_op, &optim_lion_configs[c], optim_sizes[s],
                                optim_pairs[p], &error);
    optim_print_error("fused_lion", &error);
}

/* FusedLamb: the backend's op against the host op of a "cpu" accelerator
 * (DeepSpeed has no CPU LAMB builder; on the cpu backend FusedLamb is the
 * host op). Settings: DeepSpeed's defaults with weight decay; eps inside
 * the sqrt, no bias correction, a loss scale and a tight clamp. 1048579
 * elements need two reduction levels (more than ACCEL_LAMB_SEGMENT
 * segments). */
static const accel_lamb_config_t optim_lamb_configs[] = {
    {1e-2f, 0.9f, 0.999f, 1e-8f, 0.01f, 10.0f, 0.01f, 1.0f, true, false},
    {1e-2f, 0.8f, 0.99f, 1e-6f, 0.0f, 0.5f, 0.2f, 128.0f, false, true},
};

static void optim_lamb_case(const accel_lamb_op_t *device_op, accel_t *host_acc,
                            const accel_lamb_op_t *host_op, const accel_lamb_config_t *config,
                            size_t count, const accel_dtype_t pair[2], optim_error_t *error)
{
    optim_tensors_t t;
    optim_tensors_make(&t, count, pair, 4, count * 13 + (size_t)pair[0] * 3 + (size_t)pair[1]);
    for (uint64_t step = 1; step <= OPTIM_STEPS; step++) {
        char label[160];
        assert_ok(host_op->step(host_acc, NULL, config, step, &t.host[0], &t.host[1], &t.host[2],
                                &t.host[3]));
        assert_ok(device_op->step(conformance_acc, NULL, config, step, &t.device[0], &t.device[1],
                                  &t.device[2], &t.device[3]));
        snprintf(label, sizeof label, "lamb %s/%s, %zu elements, eps inside %d, step %llu",
                 accel_dtype_name(pair[0]), accel_dtype_name(pair[1]), count,
                 (int)config->eps_inside_sqrt, (unsigned long long)step);
        optim_compare(&t, label, error);
    }
    optim_tensors_free(&t);
}

void test_op_builders_fused_lamb_matches_host(void **state)
{
    static const size_t big = (size_t)1 << 20 | 3;
    const void *device_op = optim_load("FusedLambBuilder"), *host_op = NULL;
    accel_t *host_acc = NULL;
    accel_op_builder_t *builder = NULL;
    optim_error_t error = {0};
    (void)state;
    if (device_op == NULL)
        conf_skip("FusedLambBuilder cannot run on this backend");
    assert_ok(accel_open("cpu", &host_acc));
    assert_ok(accel_get_op_builder(host_acc, "FusedLambBuilder", &builder));
    assert_ok(accel_op_builder_load(builder, &host_op));
    for (size_t c = 0; c < sizeof optim_lamb_configs / sizeof optim_lamb_configs[0]; c++) {
        for (size_t p = 0; p < OPTIM_PAIR_COUNT; p++)
            for (size_t s = 0; s < OPTIM_SIZE_COUNT; s++)
                optim_lamb_case(device_op, host_acc, host_op, &optim_lamb_configs[c],
                                optim_sizes[s], optim_pairs[p], &error);
        optim_lamb_case(device_op, host_acc, host_op, &optim_lamb_configs[c], big,
                        optim_pairs[c == 0 ? 0 : OPTIM_PAIR_COUNT - 1], &error);
    }
    optim_print_error("fused_lamb", &error);
    accel_close(host_acc);
}

/* Bad calls of a LAMB op: each is INVALID_ARGUMENT and writes nothing. */
void test_op_builders_fused_lamb_bad_input(void **state)
{
    const accel_dtype_t pair[2] = {ACCEL_DTYPE_F16, ACCEL_DTYPE_F32};
    const accel_lamb_config_t config = ACCEL_LAMB_CONFIG_DEFAULT;
    accel_lamb_config_t bad[4] = {ACCEL_LAMB_CONFIG_DEFAULT, ACCEL_LAMB_CONFIG_DEFAULT,
                                  ACCEL_LAMB_CONFIG_DEFAULT, ACCEL_LAMB_CONFIG_DEFAULT};
    const void *table = optim_load("FusedLambBuilder");
    const accel_lamb_op_t *op = table;
    optim_tensors_t t, short_t;
    DLTensor *d;
    (void)state;
    if (table == NULL)
        conf_skip("FusedLambBuilder cannot run on this backend");
    optim_tensors_make(&t, 80, pair, 4, 21);
    optim_tensors_make(&short_t, 79, pair, 4, 22);
    d = t.device;
    bad[0].min_coeff = 20.0f; /* above max_coeff */
    bad[1].max_coeff = 0.0f;
    bad[2].grad_scale = 0.0f;
    bad[3].beta2 = 1.0f;
    for (size_t k = 0; k < 4; k++)
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      op->step(conformance_acc, NULL, &bad[k], 1, &d[0], &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 0, &d[0], &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, NULL, 1, &d[0], &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &d[0], &d[1], &d[2], NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, op->step(conformance_acc, NULL, &config, 1, &d[0],
                                                         &d[1], &short_t.device[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &d[0], &d[1], &d[3], &d[3]));
    if (optim_device_type() != kDLCPU)
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      op->step(conformance_acc, NULL, &config, 1, &d[0], &t.host[1], &d[2], &d[3]));
    optim_expect_unchanged(&t);
    optim_expect_unchanged(&short_t);
    optim_tensors_free(&short_t);
    optim_tensors_free(&t);
}

/* A step queued on a created stream runs after the copies queued before it
 * and before the ones queued after it. */
void test_op_builders_fused_adam_on_created_stream(void **state)
{
    const accel_dtype_t pair[2] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32};
    const accel_adam_config_t config = ACCEL_ADAM_CONFIG_DEFAULT;
    const void *device_table, *host_table;
    const accel_adam_op_t *device_op, *host_op;
    accel_stream_t *stream = NULL;
    optim_tensors_t t;
    optim_error_t error = {0};
    float *fresh, *back;
    size_t count = 4099;
    (void)state;
    conf_require_streams();
    optim_load_pair("FusedAdamBuilder", "CPUAdamBuilder", &device_table, &host_table);
    device_op = device_table;
    host_op = host_table;
    optim_tensors_make(&t, count, pair, 4, 99);
    fresh = malloc(count * sizeof *fresh);
    back = malloc(count * sizeof *back);
    assert_non_null(fresh);
    assert_non_null(back);
    /* the device param is overwritten on the stream right before the step */
    for (size_t i = 0; i < count; i++)
        fresh[i] = 0.25f + (float)i / (float)count;
    memcpy(t.host[0].data, fresh, count * sizeof *fresh);
    assert_ok(accel_stream_create(conformance_acc, ACCEL_CURRENT_DEVICE, 0, &stream));
    assert_ok(accel_memcpy_async(conformance_acc, t.device[0].data, fresh, count * sizeof *fresh,
                                 ACCEL_COPY_HOST_TO_DEVICE, stream));
    assert_ok(device_op->step(conformance_acc, stream, &config, 1, &t.device[0], &t.device[1],
                              &t.device[2], &t.device[3]));
    assert_ok(accel_memcpy_async(conformance_acc, back, t.device[0].data, count * sizeof *back,
                                 ACCEL_COPY_DEVICE_TO_HOST, stream));
    assert_ok(accel_stream_synchronize(stream));
    assert_ok(host_op->step(conformance_acc, NULL, &config, 1, &t.host[0], &t.host[1], &t.host[2],
                            &t.host[3]));
    for (size_t i = 0; i < count; i++)
        optim_check_element(ACCEL_DTYPE_F32, (const unsigned char *)t.host[0].data + 4 * i,
                            (const unsigned char *)back + 4 * i, "adam on a created stream", i,
                            &error);
    optim_compare(&t, "adam on a created stream", &error);
    assert_ok(accel_stream_destroy(stream));
    free(fresh);
    free(back);
    optim_tensors_free(&t);
}

/* Bad calls of a device Adam op: each is INVALID_ARGUMENT and writes nothing. */
void test_op_builders_fused_adam_bad_input(void **state)
{
    const accel_dtype_t pair[2] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32};
    const accel_adam_config_t config = ACCEL_ADAM_CONFIG_DEFAULT;
    accel_adam_config_t bad_beta = ACCEL_ADAM_CONFIG_DEFAULT;
    const void *table = optim_load("FusedAdamBuilder");
    const accel_adam_op_t *op = table;
    optim_tensors_t t, short_t;
    DLTensor *d;
    (void)state;
    if (table == NULL)
        conf_skip("FusedAdamBuilder cannot run on this backend");
    optim_tensors_make(&t, 64, pair, 4, 5);
    optim_tensors_make(&short_t, 63, pair, 4, 6);
    d = t.device;
    bad_beta.beta1 = 1.0f;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(NULL, NULL, &config, 1, &d[0], &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, NULL, &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &d[0], NULL, &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &d[0], &d[1], NULL, &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &d[0], &d[1], &d[2], NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, NULL, 1, &d[0], &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, op->step(conformance_acc, NULL, &config, 1, &d[0],
                                                         &short_t.device[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, op->step(conformance_acc, NULL, &config, 1, &d[0],
                                                         &d[1], &d[2], &short_t.device[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 0, &d[0], &d[1], &d[2], &d[3]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &bad_beta, 1, &d[0], &d[1], &d[2], &d[3]));
    /* the same tensor as param and exp_avg */
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &d[0], &d[1], &d[0], &d[3]));
    if (optim_device_type() != kDLCPU) {
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      op->step(conformance_acc, NULL, &config, 1, &t.host[0], &d[1], &d[2], &d[3]));
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      op->step(conformance_acc, NULL, &config, 1, &d[0], &d[1], &d[2], &t.host[3]));
    }
    optim_expect_unchanged(&t);
    optim_expect_unchanged(&short_t);
    optim_tensors_free(&short_t);
    optim_tensors_free(&t);
}

/* Bad calls of a device Lion op: each is INVALID_ARGUMENT and writes nothing. */
void test_op_builders_fused_lion_bad_input(void **state)
{
    const accel_dtype_t pair[2] = {ACCEL_DTYPE_BF16, ACCEL_DTYPE_F32};
    const accel_lion_config_t config = ACCEL_LION_CONFIG_DEFAULT;
    accel_lion_config_t bad_beta = ACCEL_LION_CONFIG_DEFAULT, bad_lr = ACCEL_LION_CONFIG_DEFAULT;
    const void *table = optim_load("FusedLionBuilder");
    const accel_lion_op_t *op = table;
    const accel_dtype_t f32_pair[2] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32};
    optim_tensors_t t, short_t, f32_t;
    DLTensor *d;
    (void)state;
    if (table == NULL)
        conf_skip("FusedLionBuilder cannot run on this backend");
    optim_tensors_make(&t, 100, pair, 3, 7);
    optim_tensors_make(&short_t, 99, pair, 3, 8);
    optim_tensors_make(&f32_t, 100, f32_pair, 3, 9);
    d = t.device;
    bad_beta.beta1 = 1.5f;
    bad_lr.lr = -1e-3f;
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT, op->step(NULL, NULL, &config, &d[0], &d[1], &d[2]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, NULL, &d[1], &d[2]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, &d[0], NULL, &d[2]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, &d[0], &d[1], NULL));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, NULL, &d[0], &d[1], &d[2]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, &d[0], &d[1], &short_t.device[2]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &bad_beta, &d[0], &d[1], &d[2]));
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &bad_lr, &d[0], &d[1], &d[2]));
    /* grad must have the param's dtype */
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, &d[0], &f32_t.device[1], &d[2]));
    if (optim_device_type() != kDLCPU)
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      op->step(conformance_acc, NULL, &config, &d[0], &t.host[1], &d[2]));
    optim_expect_unchanged(&t);
    optim_expect_unchanged(&short_t);
    optim_expect_unchanged(&f32_t);
    optim_tensors_free(&f32_t);
    optim_tensors_free(&short_t);
    optim_tensors_free(&t);
}

/* A host op given device memory (where device memory is not host memory)
 * refuses it instead of reading device addresses on the CPU. */
void test_op_builders_host_op_refuses_device_tensors(void **state)
{
    const accel_dtype_t pair[2] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32};
    const accel_adam_config_t config = ACCEL_ADAM_CONFIG_DEFAULT;
    const void *table;
    const accel_adam_op_t *op;
    optim_tensors_t t;
    (void)state;
    if (optim_device_type() == kDLCPU)
        conf_skip("device memory of this backend is host memory");
    table = optim_load("CPUAdamBuilder");
    if (table == NULL)
        conf_skip("CPUAdamBuilder cannot run on this backend");
    op = table;
    optim_tensors_make(&t, 32, pair, 4, 11);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  op->step(conformance_acc, NULL, &config, 1, &t.device[0], &t.device[1],
                           &t.device[2], &t.device[3]));
    optim_expect_unchanged(&t);
    optim_tensors_free(&t);
}

/* Device memory relabelled kDLCPU is still not host memory: a host op given
 * it is refused, not run (the host cannot address it). */
void test_op_builders_host_op_refuses_relabelled_device_memory(void **state)
{
    const accel_dtype_t pair[2] = {ACCEL_DTYPE_F32, ACCEL_DTYPE_F32};
    const accel_adam_config_t config = ACCEL_ADAM_CONFIG_DEFAULT;
    const accel_adam_op_t *op;
    DLTensor relabelled[4];
    optim_tensors_t t;
    (void)state;
    if (optim_device_type() == kDLCPU)
        conf_skip("device memory of this backend is host memory");
    op = optim_load("CPUAdamBuilder");
    if (op == NULL)
        conf_skip("CPUAdamBuilder cannot run on this backend");
    optim_tensors_make(&t, 32, pair, 4, 12);
    for (int which = 0; which < 4; which++) {
        DLTensor *args[4];
        for (int i = 0; i < 4; i++) {
            relabelled[i] = i == which ? t.device[i] : t.host[i];
            relabelled[i].device = (DLDevice){kDLCPU, 0};
            args[i] = &relabelled[i];
        }
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT, op->step(conformance_acc, NULL, &config, 1,
                                                             args[0], args[1], args[2], args[3]));
        assert_non_null(strstr(accel_last_error(), "host cannot address"));
    }
    optim_expect_unchanged(&t);
    optim_tensors_free(&t);
}

/* async_io with tensors in this backend's memory: device memory goes
 * through the handle's bounce buffers (copies overlapping file I/O), so the
 * file must hold the tensor's bytes and a read must bring them back. An
 * awkward size: whole blocks, a partial block and an unaligned tail. */
void test_op_builders_async_io_device_round_trip(void **state)
{
    const void *table = optim_load("AsyncIOBuilder");
    const accel_aio_op_t *aio = table;
    accel_aio_config_t config = ACCEL_AIO_CONFIG_DEFAULT;
    accel_aio_handle_t *handle = NULL;
    const size_t n = (1u << 20) + 3 * 4096 + 5;
    int64_t shape[1] = {(int64_t)n};
    DLTensor src, dst;
    unsigned char *want = malloc(n), *back = malloc(n);
    char path[64];
    int fd;
    (void)state;
    assert_non_null(table);
    assert_non_null(want);
    assert_non_null(back);
    snprintf(path, sizeof path, "conformance-aio-%d", (int)getpid());
    for (size_t i = 0; i < n; i++)
        want[i] = (unsigned char)(i * 131u + (i >> 11));
    config.block_size = 1 << 16;
    config.intra_op_parallelism = 2;
    config.queue_depth = 4;
    assert_ok(aio->handle_create(conformance_acc, &config, &handle));
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_U8, 1, shape, &src));
    assert_ok(
        accel_tensor_empty(conformance_acc, ACCEL_CURRENT_DEVICE, ACCEL_DTYPE_U8, 1, shape, &dst));
    conf_to_device(src.data, want, n);
    assert_ok(aio->pwrite(handle, &src, path, 4096, true));
    assert_ok(aio->wait(handle, NULL));
    fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, back, n, 4096), (ssize_t)n);
    close(fd);
    assert_memory_equal(back, want, n);
    assert_ok(aio->pread(handle, &dst, path, 4096, false));
    conf_to_host(back, dst.data, n);
    assert_memory_equal(back, want, n);
    aio->handle_destroy(handle);
    unlink(path);
    assert_ok(accel_tensor_free(conformance_acc, &src));
    assert_ok(accel_tensor_free(conformance_acc, &dst));
    free(want);
    free(back);
}

/* ---- tensor lists (DeepSpeed's multi_tensor_apply) */

#define OPTIM_LIST_ENTRIES 3

/* Entries of different sizes and dtype pairs; list[k][i] is tensor k of
 * entry i, as step_multi takes them. */
typedef struct optim_lists {
    optim_tensors_t entries[OPTIM_LIST_ENTRIES];
    DLTensor device[4][OPTIM_LIST_ENTRIES];
} optim_lists_t;

static void optim_lists_make(optim_lists_t *l, size_t n, uint64_t seed)
{
    static const size_t sizes[OPTIM_LIST_ENTRIES] = {1, 1000, 4099};
    for (size_t i = 0; i < OPTIM_LIST_ENTRIES; i++) {
        optim_tensors_make(&l->entries[i], sizes[i], optim_pairs[i % OPTIM_PAIR_COUNT], n,
                           seed + i);
        for (size_t k = 0; k < n; k++)
            l->device[k][i] = l->entries[i].device[k];
    }
}

static void optim_lists_free(optim_lists_t *l)
{
    for (size_t i = 0; i < OPTIM_LIST_ENTRIES; i++)
        optim_tensors_free(&l->entries[i]);
}

/* FusedAdam over lists gives what the host op gives entry by entry; an entry
 * that is wrong anywhere in the list is refused before any entry runs. */
void test_op_builders_fused_adam_tensor_lists(void **state)
{
    const void *device_table, *host_table;
    const accel_adam_op_t *device_op, *host_op;
    const accel_adam_config_t *config = &optim_adam_configs[0];
    optim_error_t error = {0};
    optim_lists_t l;
    DLDataType wrong;
    (void)state;
    optim_load_pair("FusedAdamBuilder", "CPUAdamBuilder", &device_table, &host_table);
    device_op = device_table;
    host_op = host_table;
    assert_true(device_op->struct_size >= sizeof(accel_adam_op_t));
    assert_non_null(device_op->step_multi);
    optim_lists_make(&l, 4, 77);
    for (uint64_t step = 1; step <= OPTIM_STEPS; step++) {
        assert_ok(device_op->step_multi(conformance_acc, NULL, config, step, OPTIM_LIST_ENTRIES,
                                        l.device[0], l.device[1], l.device[2], l.device[3]));
        for (size_t i = 0; i < OPTIM_LIST_ENTRIES; i++) {
            optim_tensors_t *t = &l.entries[i];
            char label[96];
            assert_ok(host_op->step(conformance_acc, NULL, config, step, &t->host[0], &t->host[1],
                                    &t->host[2], &t->host[3]));
            snprintf(label, sizeof label, "adam list entry %zu, step %llu", i,
                     (unsigned long long)step);
            optim_compare(t, label, &error);
        }
    }
    optim_lists_free(&l);

    optim_lists_make(&l, 4, 91);
    wrong = l.device[1][2].dtype;
    l.device[1][2].dtype.bits = wrong.bits == 32 ? 16 : 32; /* entry 2's grad: not the param's */
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  device_op->step_multi(conformance_acc, NULL, config, 1, OPTIM_LIST_ENTRIES,
                                        l.device[0], l.device[1], l.device[2], l.device[3]));
    assert_non_null(strstr(accel_last_error(), "entry 2"));
    for (size_t i = 0; i < OPTIM_LIST_ENTRIES; i++)
        optim_expect_unchanged(&l.entries[i]);
    assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                  device_op->step_multi(conformance_acc, NULL, config, 1, 2, NULL, l.device[1],
                                        l.device[2], l.device[3]));
    assert_ok(device_op->step_multi(conformance_acc, NULL, config, 1, 0, NULL, NULL, NULL, NULL));
    optim_lists_free(&l);
}

void test_op_builders_fused_lion_tensor_lists(void **state)
{
    const void *device_table, *host_table;
    const accel_lion_op_t *device_op, *host_op;
    const accel_lion_config_t *config = &optim_lion_configs[0];
    optim_error_t error = {0};
    optim_lists_t l;
    (void)state;
    optim_load_pair("FusedLionBuilder", "CPULionBuilder", &device_table, &host_table);
    device_op = device_table;
    host_op = host_table;
    assert_true(device_op->struct_size >= sizeof(accel_lion_op_t));
    assert_non_null(device_op->step_multi);
    optim_lists_make(&l, 3, 55);
    for (int step = 1; step <= OPTIM_STEPS; step++) {
        assert_ok(device_op->step_multi(conformance_acc, NULL, config, OPTIM_LIST_ENTRIES,
                                        l.device[0], l.device[1], l.device[2]));
        for (size_t i = 0; i < OPTIM_LIST_ENTRIES; i++) {
            optim_tensors_t *t = &l.entries[i];
            char label[96];
            assert_ok(host_op->step(conformance_acc, NULL, config, &t->host[0], &t->host[1],
                                    &t->host[2]));
            snprintf(label, sizeof label, "lion list entry %zu, step %d", i, step);
            optim_compare(t, label, &error);
        }
    }
    /* A bad hyper-parameter refuses the whole list. */
    {
        accel_lion_config_t bad = *config;
        bad.beta1 = 1.5f;
        assert_status(ACCEL_ERROR_INVALID_ARGUMENT,
                      device_op->step_multi(conformance_acc, NULL, &bad, OPTIM_LIST_ENTRIES,
                                            l.device[0], l.device[1], l.device[2]));
    }
    optim_lists_free(&l);
}
