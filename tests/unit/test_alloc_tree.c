/* test_alloc_tree.c: unit tests of the allocator's treap (src/core/alloc_tree.c)
 * on its own: order by (key, tie), the heap order of priorities, ordered
 * searches at and between keys, and removal, checked against a plain sorted
 * array after every step of a seeded random sequence. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/alloc_tree.h"

#define NODES 512

static uint32_t test_random(uint32_t *state)
{
    uint32_t x = *state;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *state = x;
    return x;
}

static bool node_less(const accel_alloc_node_t *a, const accel_alloc_node_t *b)
{
    return a->key < b->key || (a->key == b->key && a->tie < b->tie);
}

/* In-order walk checking the search order and the heap order of priorities;
 * returns how many nodes the tree holds. */
static size_t check_tree(const accel_alloc_node_t *root, const accel_alloc_node_t **prev)
{
    size_t count;
    if (root == NULL)
        return 0;
    if (root->left != NULL)
        assert_true(root->left->priority <= root->priority);
    if (root->right != NULL)
        assert_true(root->right->priority <= root->priority);
    count = check_tree(root->left, prev);
    if (*prev != NULL)
        assert_true(node_less(*prev, root));
    *prev = root;
    return count + 1 + check_tree(root->right, prev);
}

/* The tree holds exactly the `in` nodes, in (key, tie) order. */
static void check_against(accel_alloc_node_t *root, accel_alloc_node_t *nodes, const bool *in)
{
    const accel_alloc_node_t *prev = NULL;
    accel_alloc_node_t *expected[NODES];
    size_t n = 0;
    for (size_t i = 0; i < NODES; i++)
        if (in[i])
            expected[n++] = &nodes[i];
    /* Insertion sort: small and obviously right. */
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && node_less(expected[j], expected[j - 1]); j--) {
            accel_alloc_node_t *t = expected[j];
            expected[j] = expected[j - 1];
            expected[j - 1] = t;
        }
    assert_int_equal(check_tree(root, &prev), n);
    accel_alloc_node_t *node = accel_alloc_tree_ceiling(root, 0, 0);
    for (size_t i = 0; i < n; i++) {
        assert_ptr_equal(node, expected[i]);
        node = accel_alloc_tree_after(root, node);
    }
    assert_null(node);
}

static void test_empty(void **state)
{
    (void)state;
    accel_alloc_node_t probe = {.key = 5, .tie = 1};
    assert_null(accel_alloc_tree_ceiling(NULL, 0, 0));
    assert_null(accel_alloc_tree_floor(NULL, UINT64_MAX));
    assert_null(accel_alloc_tree_after(NULL, &probe));
}

/* Equal keys are told apart by tie: the free trees hold many blocks of one size. */
static void test_ties(void **state)
{
    (void)state;
    accel_alloc_node_t nodes[4] = {
        {.key = 64, .tie = 3000, .priority = 7},
        {.key = 64, .tie = 1000, .priority = 9},
        {.key = 64, .tie = 2000, .priority = 1},
        {.key = 128, .tie = 0, .priority = 5},
    };
    accel_alloc_node_t *root = NULL;
    for (int i = 0; i < 4; i++)
        root = accel_alloc_tree_insert(root, &nodes[i]);
    assert_ptr_equal(root, &nodes[1]); /* highest priority */
    assert_ptr_equal(accel_alloc_tree_ceiling(root, 64, 0), &nodes[1]);
    assert_ptr_equal(accel_alloc_tree_ceiling(root, 64, 1500), &nodes[2]);
    assert_ptr_equal(accel_alloc_tree_ceiling(root, 64, 3001), &nodes[3]);
    assert_null(accel_alloc_tree_ceiling(root, 129, 0));
    assert_ptr_equal(accel_alloc_tree_after(root, &nodes[2]), &nodes[0]);
    assert_ptr_equal(accel_alloc_tree_after(root, &nodes[0]), &nodes[3]);
    assert_null(accel_alloc_tree_after(root, &nodes[3]));
    /* floor ignores ties and takes the last node of the key. */
    assert_ptr_equal(accel_alloc_tree_floor(root, 64), &nodes[0]);
    assert_ptr_equal(accel_alloc_tree_floor(root, 127), &nodes[0]);
    assert_ptr_equal(accel_alloc_tree_floor(root, 500), &nodes[3]);
    assert_null(accel_alloc_tree_floor(root, 63));
    root = accel_alloc_tree_remove(root, &nodes[1]);
    assert_ptr_equal(accel_alloc_tree_ceiling(root, 64, 0), &nodes[2]);
    root = accel_alloc_tree_remove(root, &nodes[0]);
    assert_ptr_equal(accel_alloc_tree_floor(root, 127), &nodes[2]);
}

/* Address lookups as the live tree does them: floor finds the block that
 * starts at or below an address. */
static void test_floor_between_keys(void **state)
{
    (void)state;
    accel_alloc_node_t nodes[3] = {{.key = 0x1000, .priority = 3},
                                   {.key = 0x3000, .priority = 2},
                                   {.key = 0x2000, .priority = 1}};
    accel_alloc_node_t *root = NULL;
    for (int i = 0; i < 3; i++)
        root = accel_alloc_tree_insert(root, &nodes[i]);
    assert_null(accel_alloc_tree_floor(root, 0xfff));
    assert_ptr_equal(accel_alloc_tree_floor(root, 0x1000), &nodes[0]);
    assert_ptr_equal(accel_alloc_tree_floor(root, 0x1fff), &nodes[0]);
    assert_ptr_equal(accel_alloc_tree_floor(root, 0x2000), &nodes[2]);
    assert_ptr_equal(accel_alloc_tree_floor(root, UINT64_MAX), &nodes[1]);
}

/* A seeded random sequence of inserts and removes, checked after each step. */
static void test_random_against_sorted(void **state)
{
    (void)state;
    static accel_alloc_node_t nodes[NODES];
    bool in[NODES] = {false};
    accel_alloc_node_t *root = NULL;
    uint32_t rng = 0x9e3779b9u;
    for (size_t i = 0; i < NODES; i++) {
        nodes[i].key = test_random(&rng) % 64; /* many equal keys */
        nodes[i].tie = i;
        nodes[i].priority = test_random(&rng);
    }
    for (int step = 0; step < 4 * NODES; step++) {
        size_t i = test_random(&rng) % NODES;
        if (in[i]) {
            root = accel_alloc_tree_remove(root, &nodes[i]);
        } else {
            nodes[i].left = nodes[i].right = NULL;
            root = accel_alloc_tree_insert(root, &nodes[i]);
        }
        in[i] = !in[i];
        if (step % 16 == 0)
            check_against(root, nodes, in);
    }
    check_against(root, nodes, in);
    for (size_t i = 0; i < NODES; i++)
        if (in[i])
            root = accel_alloc_tree_remove(root, &nodes[i]);
    assert_null(root);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_ties),
        cmocka_unit_test(test_floor_between_keys),
        cmocka_unit_test(test_random_against_sorted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
