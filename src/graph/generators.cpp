// Owns the generators. Randomness is counter-based (splitmix64 of seed, edge index and draw
// number), so any worker can make any edge and the output never depends on scheduling.
#include "smartarrays/graph/generators.hpp"

#include <cmath>
#include <new>
#include <string>

#include "smartarrays/error.hpp"
#include "smartarrays/graph/limits.hpp"
#include "smartarrays/util/mix64.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::graph {

namespace {

using util::mix64;

// Draw `draw` of edge `edge` for a seed.
std::uint64_t random_word(std::uint64_t seed_key, std::uint64_t edge, std::uint64_t draw) noexcept {
  return mix64(seed_key ^ mix64(edge * 64 + draw));
}

// Uniform in [0, n) without division (Lemire's multiply-shift; the bias is below 2^-64 * n).
std::uint64_t below(std::uint64_t word, std::uint64_t n) noexcept {
  return static_cast<std::uint64_t>((static_cast<unsigned __int128>(word) * n) >> 64);
}

std::vector<Edge> allocate_edges(std::uint64_t count) {
  if (count > std::uint64_t{1} << 40) {
    throw_error(ErrorCode::out_of_memory, std::to_string(count) + " edges need more than 16 TiB");
  }
  try {
    return std::vector<Edge>(count);
  } catch (const std::bad_alloc&) {
    throw_error(ErrorCode::out_of_memory, "cannot allocate " + std::to_string(count) + " edges (" +
                                              std::to_string(count * sizeof(Edge) >> 20) + " MiB)");
  }
}

// A seeded bijection of [0, 2^bits): odd multiplications, additions and xor-shifts, each invertible mod 2^bits.
struct Scrambler {
  std::uint64_t mask;
  unsigned shift;
  std::uint64_t mul[2];
  std::uint64_t add[2];

  Scrambler(unsigned bits, std::uint64_t seed) : mask(bits >= 64 ? ~0ull : (1ull << bits) - 1), shift(bits / 2 + 1) {
    for (int r = 0; r < 2; ++r) {
      mul[r] = mix64(seed + 101 + static_cast<std::uint64_t>(r)) | 1;
      add[r] = mix64(seed + 202 + static_cast<std::uint64_t>(r));
    }
  }
  std::uint64_t operator()(std::uint64_t x) const noexcept {
    for (int r = 0; r < 2; ++r) {
      x = (x * mul[r] + add[r]) & mask;
      x ^= x >> shift;
    }
    return x;
  }
};

}  // namespace

EdgeList generate_uniform(const UniformOptions& options, runtime::ThreadPool& pool) {
  if (options.vertices == 0) throw_error(ErrorCode::invalid_argument, "a uniform graph needs at least one vertex");
  if (!(options.average_degree >= 0) || !std::isfinite(options.average_degree)) {
    throw_error(ErrorCode::invalid_argument, "average degree " + util::number_text(options.average_degree) + " is not >= 0");
  }
  const long double wanted = static_cast<long double>(options.vertices) * options.average_degree;
  if (wanted > static_cast<long double>(std::uint64_t{1} << 40)) {
    throw_error(ErrorCode::out_of_memory, "a uniform graph of " + std::to_string(options.vertices) + " vertices and degree " +
                                              util::number_text(options.average_degree) + " has more than 2^40 edges");
  }
  const auto count = static_cast<std::uint64_t>(std::llround(wanted));
  // The graph it is generated for must fit before its edge list is made (16 bytes an edge).
  check_build_memory(options.vertices, count, "uniform graph: ");
  EdgeList list;
  list.vertices = options.vertices;
  list.edges = allocate_edges(count);
  const std::uint64_t key = mix64(options.seed ^ 0x756e69666f726dull);  // "uniform"
  const std::uint64_t n = options.vertices;
  Edge* edges = list.edges.data();
  pool.parallel_for(0, list.edges.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t k = lo; k < hi; ++k) {
      edges[k] = {below(random_word(key, k, 0), n), below(random_word(key, k, 1), n)};
    }
  });
  return list;
}

EdgeList generate_rmat(const RmatOptions& options, runtime::ThreadPool& pool) {
  if (options.scale < 1 || options.scale > 40) {
    throw_error(ErrorCode::invalid_argument, "R-MAT scale " + std::to_string(options.scale) + " is outside 1..40");
  }
  const double d = 1.0 - options.a - options.b - options.c;
  if (!(options.a >= 0 && options.b >= 0 && options.c >= 0 && d >= -1e-12)) {
    throw_error(ErrorCode::invalid_argument, "R-MAT probabilities a, b, c must be >= 0 with a + b + c <= 1");
  }
  if (options.edge_factor == 0) throw_error(ErrorCode::invalid_argument, "R-MAT edge factor must be >= 1, got 0");
  const std::uint64_t n = std::uint64_t{1} << options.scale;
  if (options.edge_factor > (std::uint64_t{1} << 40) >> options.scale) {
    throw_error(ErrorCode::out_of_memory, "R-MAT scale " + std::to_string(options.scale) + " with edge factor " +
                                              std::to_string(options.edge_factor) + " has more than 2^40 edges");
  }
  const std::uint64_t count = options.edge_factor * n;
  // The graph it is generated for must fit before its edge list is made (16 bytes an edge).
  check_build_memory(n, count, "R-MAT graph: ");
  EdgeList list;
  list.vertices = n;
  list.edges = allocate_edges(count);
  // Quadrant choice on 32-bit uniforms: two levels per 64-bit draw.
  const double unit = 4294967296.0;
  const auto t_a = static_cast<std::uint64_t>(options.a * unit);
  const auto t_ab = static_cast<std::uint64_t>((options.a + options.b) * unit);
  const auto t_abc = static_cast<std::uint64_t>((options.a + options.b + options.c) * unit);
  const std::uint64_t key = mix64(options.seed ^ 0x726d6174ull);  // "rmat"
  const Scrambler scramble(options.scale, options.seed);
  const unsigned scale = options.scale;
  const bool scrambled = options.scramble;
  Edge* edges = list.edges.data();
  pool.parallel_for(0, list.edges.size(), [&](std::uint64_t lo, std::uint64_t hi) {
    for (std::uint64_t k = lo; k < hi; ++k) {
      std::uint64_t src = 0;
      std::uint64_t dst = 0;
      std::uint64_t word = 0;
      for (unsigned level = 0; level < scale; ++level) {
        if (level % 2 == 0) word = random_word(key, k, level / 2);
        const std::uint64_t u = level % 2 == 0 ? word & 0xffffffffu : word >> 32;
        // a: (0,0), b: (0,1), c: (1,0), d: (1,1)
        const std::uint64_t row = u >= t_ab ? 1 : 0;
        const std::uint64_t col = (u >= t_a && u < t_ab) || u >= t_abc ? 1 : 0;
        src = src << 1 | row;
        dst = dst << 1 | col;
      }
      edges[k] = scrambled ? Edge{scramble(src), scramble(dst)} : Edge{src, dst};
    }
  });
  return list;
}

}  // namespace smartarrays::graph
