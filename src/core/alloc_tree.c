/* alloc_tree.c: the treap (randomised balanced binary search tree) under the
 * caching allocator (allocator.c): intrusive nodes ordered by (key, tie),
 * with insert, remove and ordered searches. See alloc_tree.h for ownership
 * and threads. */
#include "alloc_tree.h"

#include <stdbool.h>
#include <stddef.h>

static bool tree_node_before(const accel_alloc_node_t *node, uint64_t key, uint64_t tie)
{
    return node->key < key || (node->key == key && node->tie < tie);
}

static bool tree_key_before(uint64_t key, uint64_t tie, const accel_alloc_node_t *node)
{
    return key < node->key || (key == node->key && tie < node->tie);
}

/* Join two treaps where every key of `lo` precedes every key of `hi`. */
static accel_alloc_node_t *tree_join(accel_alloc_node_t *lo, accel_alloc_node_t *hi)
{
    if (!lo)
        return hi;
    if (!hi)
        return lo;
    if (lo->priority > hi->priority) {
        lo->right = tree_join(lo->right, hi);
        return lo;
    }
    hi->left = tree_join(lo, hi->left);
    return hi;
}

/* Split `root` into the nodes before (key, tie) and the others. */
static void tree_split(accel_alloc_node_t *root, uint64_t key, uint64_t tie,
                       accel_alloc_node_t **lo, accel_alloc_node_t **hi)
{
    if (!root) {
        *lo = NULL;
        *hi = NULL;
        return;
    }
    if (tree_node_before(root, key, tie)) {
        tree_split(root->right, key, tie, &root->right, hi);
        *lo = root;
        return;
    }
    tree_split(root->left, key, tie, lo, &root->left);
    *hi = root;
}

accel_alloc_node_t *accel_alloc_tree_insert(accel_alloc_node_t *root, accel_alloc_node_t *node)
{
    if (!root)
        return node;
    if (node->priority > root->priority) {
        tree_split(root, node->key, node->tie, &node->left, &node->right);
        return node;
    }
    if (tree_key_before(node->key, node->tie, root))
        root->left = accel_alloc_tree_insert(root->left, node);
    else
        root->right = accel_alloc_tree_insert(root->right, node);
    return root;
}

accel_alloc_node_t *accel_alloc_tree_remove(accel_alloc_node_t *root,
                                            const accel_alloc_node_t *node)
{
    if (!root)
        return NULL;
    if (root == node)
        return tree_join(root->left, root->right);
    if (tree_key_before(node->key, node->tie, root))
        root->left = accel_alloc_tree_remove(root->left, node);
    else
        root->right = accel_alloc_tree_remove(root->right, node);
    return root;
}

/* The first node at or after (key, tie), or NULL. */
accel_alloc_node_t *accel_alloc_tree_ceiling(accel_alloc_node_t *root, uint64_t key, uint64_t tie)
{
    accel_alloc_node_t *best = NULL;
    while (root) {
        if (tree_node_before(root, key, tie)) {
            root = root->right;
        } else {
            best = root;
            root = root->left;
        }
    }
    return best;
}

/* The first node strictly after `node`, or NULL. */
accel_alloc_node_t *accel_alloc_tree_after(accel_alloc_node_t *root, const accel_alloc_node_t *node)
{
    accel_alloc_node_t *best = NULL;
    while (root) {
        if (tree_key_before(node->key, node->tie, root)) {
            best = root;
            root = root->left;
        } else {
            root = root->right;
        }
    }
    return best;
}

/* The last node whose key is <= key (ties ignored), or NULL. */
accel_alloc_node_t *accel_alloc_tree_floor(accel_alloc_node_t *root, uint64_t key)
{
    accel_alloc_node_t *best = NULL;
    while (root) {
        if (root->key <= key) {
            best = root;
            root = root->right;
        } else {
            root = root->left;
        }
    }
    return best;
}
