/* Owns the interface of the C-compiled checks (capi_c_checks.c) that the C++ tests call. */
#ifndef SMARTARRAYS_TESTS_CAPI_C_CHECKS_H
#define SMARTARRAYS_TESTS_CAPI_C_CHECKS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/** sizeof(sa_options) as a C compiler lays it out. */
size_t capi_c_options_size(void);
/** offsetof(sa_options, nodes) as a C compiler lays it out. */
size_t capi_c_options_nodes_offset(void);
/** offsetof(sa_options, node_count) as a C compiler lays it out. */
size_t capi_c_options_node_count_offset(void);
/** A round trip through every array entry point, from C: 0 on success, else the failing step with error filled. */
int capi_c_round_trip(char *error, size_t error_size);

/** sizeof and the offset of the last field of the graph structs as a C compiler lays them out, in the order
    sa_graph_options (bits), sa_graph_array_memory (replicas), sa_pagerank_options (dangling),
    sa_pagerank_result (difference): layout[2k] = size, layout[2k + 1] = offset. */
void capi_c_graph_layout(size_t layout[8]);
/** The graph entry points from C on the edge list at path (tests/data/graph/tiny.el): 0 on success, else the
    failing step with error filled. */
int capi_c_graph_round_trip(const char *path, char *error, size_t error_size);

/** The store entry points from C: writes an array and the graph of the edge list at path into the store
    store_path, opens it mapped and loaded, reads both back, verifies it, and sends it over a socketpair:
    0 on success, else the failing step with error filled. */
int capi_c_store_round_trip(const char *path, const char *store_path, char *error, size_t error_size);
/** sizeof(sa_store_object) and offsetof(sa_store_object, graph) as a C compiler lays them out. */
void capi_c_store_layout(size_t layout[2]);

#ifdef __cplusplus
}
#endif

#endif /* SMARTARRAYS_TESTS_CAPI_C_CHECKS_H */
