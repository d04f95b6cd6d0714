/* Owns the proof that smartarrays.h is valid C11 and usable from C: this file is compiled as C. */
#include "capi/capi_c_checks.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

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
