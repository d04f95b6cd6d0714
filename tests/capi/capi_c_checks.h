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

#ifdef __cplusplus
}
#endif

#endif /* SMARTARRAYS_TESTS_CAPI_C_CHECKS_H */
