/* Owns the proof that smartarrays.h is valid C11 and usable from C: this file is compiled as C. */
#include "capi/capi_c_checks.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "smartarrays.h"

size_t capi_c_options_size(void) { return sizeof(sa_options); }

size_t capi_c_options_nodes_offset(void) { return offsetof(sa_options, nodes); }

size_t capi_c_options_node_count_offset(void) { return offsetof(sa_options, node_count); }

static int fail(char *error, size_t error_size, int step, const char *what) {
  snprintf(error, error_size, "step %d: %s (sa_last_error: %s)", step, what, sa_last_error());
  return step;
}

int capi_c_round_trip(char *error, size_t error_size) {
  enum { n = 130 };
  uint64_t values[n];
  uint64_t out[n];
  uint64_t chunk[64];
  uint64_t expected_sum = 0;
  uint64_t v = 0;
  const uint64_t *words = NULL;
  uint64_t nwords = 0;
  sa_options options;
  sa_array *a = NULL;
  size_t i;

  for (i = 0; i < n; ++i) {
    values[i] = (uint64_t)i * 3u;
    expected_sum += values[i];
  }
  sa_options_init(&options);
  if (options.placement != SA_OS_DEFAULT || options.bits != 0 || options.nodes != NULL || options.node_count != 0) {
    return fail(error, error_size, 1, "sa_options_init defaults");
  }
  if (sa_array_from_u64(values, n, &options, &a) != SA_OK) return fail(error, error_size, 2, "sa_array_from_u64");
  if (sa_array_length(a) != n || sa_array_bits(a) != sa_min_bits(3u * (n - 1)) || sa_array_bits(a) != 9) {
    sa_array_free(a);
    return fail(error, error_size, 3, "length or derived bits");
  }
  for (i = 0; i < n; ++i) {
    if (sa_array_get(a, i, &v) != SA_OK || v != values[i]) {
      sa_array_free(a);
      return fail(error, error_size, 4, "sa_array_get");
    }
  }
  if (sa_array_set(a, 5, 511) != SA_OK || sa_array_get(a, 5, &v) != SA_OK || v != 511) {
    sa_array_free(a);
    return fail(error, error_size, 5, "sa_array_set");
  }
  values[5] = 511;
  expected_sum += 511 - 15;
  if (sa_array_decode(a, 0, n, out) != SA_OK || memcmp(out, values, sizeof values) != 0) {
    sa_array_free(a);
    return fail(error, error_size, 6, "sa_array_decode");
  }
  if (sa_array_unpack_chunk(a, 2, chunk) != SA_OK || chunk[0] != values[128] || chunk[1] != values[129] ||
      chunk[2] != 0) {
    sa_array_free(a);
    return fail(error, error_size, 7, "sa_array_unpack_chunk");
  }
  if (sa_array_sum(a, &v) != SA_OK || v != expected_sum) {
    sa_array_free(a);
    return fail(error, error_size, 8, "sa_array_sum");
  }
  if (sa_array_words(a, 0, &words, &nwords) != SA_OK || nwords != 3 * 9 || words == NULL ||
      (words[0] & 0x1ffu) != values[0] || ((words[0] >> 9) & 0x1ffu) != values[1]) {
    sa_array_free(a);
    return fail(error, error_size, 9, "sa_array_words");
  }
  if (sa_array_get(a, n, &v) != SA_ERANGE || strstr(sa_last_error(), "index 130 out of range for length 130") == NULL) {
    sa_array_free(a);
    return fail(error, error_size, 10, "out-of-range get");
  }
  sa_array_free(a);
  sa_array_free(NULL);
  return 0;
}

void capi_c_graph_layout(size_t layout[8]) {
  layout[0] = sizeof(sa_graph_options);
  layout[1] = offsetof(sa_graph_options, bits);
  layout[2] = sizeof(sa_graph_array_memory);
  layout[3] = offsetof(sa_graph_array_memory, replicas);
  layout[4] = sizeof(sa_pagerank_options);
  layout[5] = offsetof(sa_pagerank_options, dangling);
  layout[6] = sizeof(sa_pagerank_result);
  layout[7] = offsetof(sa_pagerank_result, difference);
}

static int graph_fail(sa_graph *g, char *error, size_t error_size, int step, const char *what) {
  sa_graph_free(g);
  return fail(error, error_size, step, what);
}

int capi_c_graph_round_trip(const char *path, char *error, size_t error_size) {
  static const uint64_t expected_degrees[6] = {4, 3, 4, 1, 2, 0};
  static const uint64_t expected_out_degrees[6] = {3, 1, 1, 1, 1, 0};
  sa_graph_options options;
  sa_pagerank_options pagerank;
  sa_pagerank_result result;
  sa_graph_array_memory memory[5];
  uint64_t degrees[6];
  double ranks[6];
  double sum = 0;
  uint64_t total = 0;
  uint32_t count = 0;
  sa_graph *g = NULL;
  int i;

  sa_graph_options_init(&options);
  if (options.variant != SA_GRAPH_VE || options.dedup != 0 || options.undirected != 0 ||
      options.arrays.placement != SA_OS_DEFAULT || options.placement != NULL || options.bits != NULL) {
    return fail(error, error_size, 1, "sa_graph_options_init defaults");
  }
  options.variant = SA_GRAPH_U;
  options.placement = "interleaved,redge=os_default";
  options.bits = "edge=9";
  if (sa_graph_load(path, NULL, &options, &g) != SA_OK) return fail(error, error_size, 2, "sa_graph_load");
  if (sa_graph_vertices(g) != 6 || sa_graph_edges(g) != 7 || sa_graph_directed(g) != 1) {
    return graph_fail(g, error, error_size, 3, "counts");
  }
  if (sa_graph_memory(g, memory, 5, &count, &total) != SA_OK || count != 4 || strcmp(memory[1].name, "edge") != 0 ||
      memory[1].bits != 9 || memory[0].bits != 64 || memory[0].placement != SA_INTERLEAVED ||
      memory[3].placement != SA_OS_DEFAULT || total == 0) {
    return graph_fail(g, error, error_size, 4, "sa_graph_memory");
  }
  if (sa_graph_degree_centrality(g, degrees, 6) != SA_OK || memcmp(degrees, expected_degrees, sizeof degrees) != 0) {
    return graph_fail(g, error, error_size, 5, "sa_graph_degree_centrality");
  }
  if (sa_graph_out_degrees(g, degrees, 6) != SA_OK || memcmp(degrees, expected_out_degrees, sizeof degrees) != 0) {
    return graph_fail(g, error, error_size, 5, "sa_graph_out_degrees");
  }
  sa_pagerank_options_init(&pagerank);
  if (pagerank.damping != 0.85 || pagerank.tolerance != 1e-3 || pagerank.max_iterations != 100 ||
      pagerank.dangling != SA_DANGLING_NONE) {
    return graph_fail(g, error, error_size, 6, "sa_pagerank_options_init defaults");
  }
  pagerank.dangling = SA_DANGLING_UNIFORM;
  pagerank.tolerance = 1e-12;
  if (sa_graph_pagerank(g, &pagerank, ranks, 6, &result) != SA_OK || result.iterations == 0 || result.converged != 1) {
    return graph_fail(g, error, error_size, 7, "sa_graph_pagerank");
  }
  for (i = 0; i < 6; ++i) sum += ranks[i];
  if (sum < 1 - 1e-9 || sum > 1 + 1e-9) return graph_fail(g, error, error_size, 8, "uniform ranks sum to 1");
  if (sa_graph_degree_centrality(g, degrees, 5) != SA_EINVAL || strstr(sa_last_error(), "6 vertices") == NULL) {
    return graph_fail(g, error, error_size, 9, "a short buffer");
  }
  if (sa_graph_out_degrees(g, degrees, 7) != SA_EINVAL || strstr(sa_last_error(), "6 vertices") == NULL) {
    return graph_fail(g, error, error_size, 9, "a long buffer for sa_graph_out_degrees");
  }
  sa_graph_free(g);
  sa_graph_free(NULL);
  return 0;
}

void capi_c_store_layout(size_t layout[2]) {
  layout[0] = sizeof(sa_store_object);
  layout[1] = offsetof(sa_store_object, graph);
}

/* Checks the arrays and graph of an open store s against the originals; 0 when they match. */
static int check_store(const sa_store *s, uint64_t expected_third, uint64_t vertices, char *error, size_t error_size,
                       int step) {
  sa_store_object_kind kind = SA_STORE_GRAPH;
  sa_array *a = NULL;
  sa_graph *g = NULL;
  uint64_t v = 0;
  if (sa_store_count(s) != 2 || strcmp(sa_store_name(s, 0), "values") != 0 || strcmp(sa_store_name(s, 1), "tiny") != 0 ||
      sa_store_name(s, 2) != NULL) {
    return fail(error, error_size, step, "names");
  }
  if (sa_store_kind(s, "values", &kind) != SA_OK || kind != SA_STORE_ARRAY) return fail(error, error_size, step + 1, "kind");
  if (sa_store_array(s, "values", &a) != SA_OK) return fail(error, error_size, step + 2, "sa_store_array");
  if (sa_store_graph(s, "tiny", &g) != SA_OK) return fail(error, error_size, step + 3, "sa_store_graph");
  if (sa_array_get(a, 2, &v) != SA_OK || v != expected_third || sa_array_bits(a) != 7) {
    return fail(error, error_size, step + 4, "array value");
  }
  if (sa_array_set(a, 0, 1) != SA_EINVAL) return fail(error, error_size, step + 5, "a store's array is read-only");
  if (sa_graph_vertices(g) != vertices) return fail(error, error_size, step + 6, "graph vertices");
  sa_array_free(a);
  sa_graph_free(g);
  return 0;
}

int capi_c_store_round_trip(const char *path, const char *store_path, char *error, size_t error_size) {
  enum { n = 100 };
  uint64_t values[n];
  uint64_t problems = 1;
  double ranks[6];
  sa_options options;
  sa_array *a = NULL;
  sa_graph *g = NULL;
  sa_graph *mapped_graph = NULL;
  sa_store *s = NULL;
  sa_store_object objects[2];
  int fds[2];
  size_t i;
  int rc;

  for (i = 0; i < n; ++i) values[i] = (uint64_t)(i * 5u % 128u);
  sa_options_init(&options);
  options.bits = 7;
  if (sa_array_from_u64(values, n, &options, &a) != SA_OK) return fail(error, error_size, 1, "sa_array_from_u64");
  if (sa_graph_load(path, NULL, NULL, &g) != SA_OK) return fail(error, error_size, 2, "sa_graph_load");
  objects[0].name = "values";
  objects[0].array = a;
  objects[0].graph = NULL;
  objects[1].name = "tiny";
  objects[1].array = NULL;
  objects[1].graph = g;
  if (sa_store_write(store_path, objects, 2) != SA_OK) return fail(error, error_size, 3, "sa_store_write");
  if (sa_store_open(store_path, SA_STORE_MAP, NULL, &s) != SA_OK) return fail(error, error_size, 4, "sa_store_open map");
  rc = check_store(s, values[2], sa_graph_vertices(g), error, error_size, 10);
  if (rc != 0) return rc;
  if (sa_store_graph(s, "tiny", &mapped_graph) != SA_OK) return fail(error, error_size, 20, "sa_store_graph");
  sa_store_close(s); /* the graph handle keeps the mapping */
  if (sa_graph_pagerank(mapped_graph, NULL, ranks, 6, NULL) != SA_OK || !(ranks[0] > 0)) {
    return fail(error, error_size, 21, "PageRank on a mapped graph after close");
  }
  sa_graph_free(mapped_graph);
  sa_options_init(&options);
  options.placement = SA_INTERLEAVED;
  if (sa_store_open(store_path, SA_STORE_LOAD, &options, &s) != SA_OK) return fail(error, error_size, 30, "sa_store_open load");
  rc = check_store(s, values[2], sa_graph_vertices(g), error, error_size, 31);
  if (rc != 0) return rc;
  sa_store_close(s);
  if (sa_store_verify(store_path, 1, &problems) != SA_OK || problems != 0) return fail(error, error_size, 40, "sa_store_verify");
  if (socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0) return fail(error, error_size, 50, "socketpair");
  /* A stream this small fits in the socket's buffer, so one thread can send, then receive. */
  if (sa_store_send(fds[1], objects, 2) != SA_OK) return fail(error, error_size, 51, "sa_store_send");
  if (sa_store_recv(fds[0], NULL, 0, &s) != SA_OK) return fail(error, error_size, 52, "sa_store_recv");
  rc = check_store(s, values[2], sa_graph_vertices(g), error, error_size, 53);
  if (rc != 0) return rc;
  sa_store_close(s);
  if (sa_store_send_file(fds[1], store_path) != SA_OK) return fail(error, error_size, 60, "sa_store_send_file");
  if (sa_store_recv(fds[0], NULL, 0, &s) != SA_OK) return fail(error, error_size, 61, "sa_store_recv of a file");
  rc = check_store(s, values[2], sa_graph_vertices(g), error, error_size, 62);
  if (rc != 0) return rc;
  sa_store_close(s);
  close(fds[0]);
  close(fds[1]);
  sa_array_free(a);
  sa_graph_free(g);
  return 0;
}
