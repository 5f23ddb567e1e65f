/* alloc_tree.h: the treap (a randomised balanced binary search tree) the
 * caching allocator keeps its blocks in: intrusive nodes ordered by
 * (key, tie); the allocator's live tree uses (address, 0) and its free trees
 * (size, address).
 *
 * Ownership: the tree owns nothing. Nodes live inside the caller's records
 * (a block embeds its node); an empty tree is a NULL root, and each update
 * returns the new root. The caller sets `priority` (random) and `key`/`tie`
 * before inserting, and changes neither while the node is in a tree.
 * Threads: none of its own; the caller serialises access (the allocator's
 * mutex). */
#ifndef ACCEL_CORE_ALLOC_TREE_H
#define ACCEL_CORE_ALLOC_TREE_H

#include <stdint.h>

typedef struct accel_alloc_node {
    struct accel_alloc_node *left, *right; /* set by the tree */
    uint64_t key, tie;                     /* the order: key first, then tie */
    uint32_t priority;                     /* heap order; random for balance */
} accel_alloc_node_t;

/* Insert `node` (children NULL; no node with its (key, tie) in the tree). */
accel_alloc_node_t *accel_alloc_tree_insert(accel_alloc_node_t *root, accel_alloc_node_t *node);
/* Remove `node`, which is in the tree. */
accel_alloc_node_t *accel_alloc_tree_remove(accel_alloc_node_t *root,
                                            const accel_alloc_node_t *node);
/* The first node at or after (key, tie), or NULL. */
accel_alloc_node_t *accel_alloc_tree_ceiling(accel_alloc_node_t *root, uint64_t key, uint64_t tie);
/* The first node strictly after `node`, or NULL. */
accel_alloc_node_t *accel_alloc_tree_after(accel_alloc_node_t *root,
                                           const accel_alloc_node_t *node);
/* The last node whose key is <= key (ties ignored), or NULL. */
accel_alloc_node_t *accel_alloc_tree_floor(accel_alloc_node_t *root, uint64_t key);

#endif /* ACCEL_CORE_ALLOC_TREE_H */
