// Owns PageRank. One iteration is two parallel fills: the pull loop writes every vertex's new rank
// from its in-neighbours' contributions (and sums |new - old| and the dangling vertices' rank per
// batch), then the contributions array is rewritten as rank / out-degree, each replica by its own
// node's workers. Dividing once per vertex rather than once per edge keeps the edge loop to one
// random read and one add, as in GAP's pr_spmv. Out-degrees are differences of the forward offsets
// (begin), read block by block in that same pass, as GAP derives them: no degree array is kept.
#include "smartarrays/algo/pagerank.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstring>
#include <type_traits>
#include <string>

#include "algo/value_blocks.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/codec/bitpack.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::algo {

namespace {

// Vertices per out-degree block (4 KiB of decoded offsets on the stack).
constexpr std::uint64_t degree_block = 512;

// The out-degrees of a block of vertices: differences of its count + 1 forward offsets, taken
// where they are read.
struct BlockDegrees {
  const std::uint64_t* offsets;
  std::uint64_t operator[](std::uint64_t k) const noexcept { return offsets[k + 1] - offsets[k]; }
};

// Calls f(first, count, degrees) over vertices [lo, hi) in blocks of out-degrees, each block's
// count + 1 forward offsets read once from the local replica (in place when 64-bit, else decoded
// by one sequential kernel call).
template <typename F>
void for_degree_blocks(const SmartArray& begin, std::uint64_t lo, std::uint64_t hi, F&& f) {
  std::uint64_t scratch[degree_block + 1];
  for (std::uint64_t first = lo; first < hi; first += degree_block) {
    const std::uint64_t count = std::min(degree_block, hi - first);
    f(first, count, BlockDegrees{detail::read_values(begin, first, count + 1, scratch)});
  }
}

// Score i of an array of score_bits() values: its packed words hold the scores' bit patterns in
// order (32-bit values sit two to a word, lowest first, as docs/bit-layout.md lays them out on this
// little-endian machine), so the edge loop reads the words as a plain array of scores; memcpy is
// that one load without reading integers through a floating-point pointer.
template <typename Score>
Score score_at(const std::uint64_t* words, std::uint64_t i) {
  Score score;
  std::memcpy(&score, reinterpret_cast<const unsigned char*>(words) + i * sizeof(Score), sizeof score);
  return score;
}

// The edge loop over one B-bit in-neighbour array: sum(first, last) adds the contributions of the
// sources of in-edges [first, last). 32- and 64-bit ids are read in place (a plain load each);
// other widths are unpacked a window of whole chunks at a time (one call of the dispatched kernel,
// AVX2 where the CPU has it) and consumed from L1, so the loop itself stays a load and an add per edge. Either way
// the contribution `ahead` edges on is prefetched, since its id is already at hand.
// Asks for score i's cache line ahead of its gather.
template <typename Score>
void prefetch(const std::uint64_t* words, std::uint64_t i) {
  __builtin_prefetch(reinterpret_cast<const unsigned char*>(words) + i * sizeof(Score));
}

// Thrown when a checked pull finds an in-neighbour id at or past the vertex count.
[[noreturn]] __attribute__((noinline, cold)) void refuse_id(std::uint64_t e, std::uint64_t id, std::uint64_t n) {
  throw_error(ErrorCode::invalid_argument, "pagerank: in-neighbour id redge[" + std::to_string(e) + "] = " + std::to_string(id) +
                                               " is not below the vertex count " + std::to_string(n) +
                                               " (a mapped file changed after its bounds were checked at open)");
}

// Checked (arrays over memory others can change, such as a mapped file: SmartArray::read_only) adds a
// test of every id against the vertex count where it is used, so a file rewritten underneath ends
// the pull with an Error instead of a read outside the scores.
template <unsigned B, bool Checked>
class InEdges {
 public:
  InEdges(BitsView<B> sources, std::uint64_t vertices)
      : sources_(sources), unpack_(codec::kernels(B).unpack), vertices_(vertices) {}

  template <typename Score>
  Score sum(std::uint64_t first, std::uint64_t last, const std::uint64_t* shares) {
    Score total = 0;
    if constexpr (B == 32 || B == 64) {
      // Prefetching needs the id `ahead` edges on, which exists below the array's length.
      const std::uint64_t length = sources_.length();
      const std::uint64_t prefetched = std::min(last, length > ahead ? length - ahead : 0);
      std::uint64_t e = first;
      for (; e < prefetched; ++e) {
        prefetch<Score>(shares, sources_[e + ahead]);
        total += score_at<Score>(shares, id(e, sources_[e]));
      }
      for (; e < last; ++e) total += score_at<Score>(shares, id(e, sources_[e]));
    } else {
      for (std::uint64_t e = first; e < last;) {
        if (e < base_ || e >= end_) load(e);
        const std::uint64_t stop = std::min(last, end_);
        // The window holds ids [base_, end_): edge e's id is ids_[e - base_] (a pointer moved back
        // by base_ would point outside the window, which is undefined even unread).
        // The window's decoded ids are known ahead of the gathers: prefetch while they last.
        const std::uint64_t prefetched = std::min(stop, end_ > ahead ? end_ - ahead : 0);
        for (; e < prefetched; ++e) {
          prefetch<Score>(shares, ids_[e - base_ + ahead]);
          total += score_at<Score>(shares, ids_[e - base_]);
        }
        for (; e < stop; ++e) total += score_at<Score>(shares, ids_[e - base_]);
      }
    }
    return total;
  }

 private:
  static constexpr std::uint64_t window_chunks = 16;
  // Edges between a prefetch and its gather: enough to cover a miss at one gather per few cycles.
  static constexpr std::uint64_t ahead = 32;

  // Decodes the window of chunks that starts with the chunk holding edge e.
  void load(std::uint64_t e) {
    const std::uint64_t chunk = e / codec::chunk_values;
    const std::uint64_t count = std::min(window_chunks, sources_.chunks() - chunk);
    unpack_(sources_.words(), chunk, count, ids_);
    base_ = chunk * codec::chunk_values;
    end_ = base_ + count * codec::chunk_values;
    if constexpr (Checked) {
      // One pass over the window (an OR, which vectorises on any x86-64), not a test per gather: every
      // id is at most the OR of all, so an OR below the vertex count clears them all; padding ids are 0.
      std::uint64_t any_bits = 0;
      for (std::uint64_t k = 0; k < count * codec::chunk_values; ++k) any_bits |= ids_[k];
      if (any_bits >= vertices_) {
        for (std::uint64_t k = 0; k < count * codec::chunk_values; ++k) {
          if (ids_[k] >= vertices_) refuse_id(base_ + k, ids_[k], vertices_);
        }
      }
    }
  }

  // Id of edge e, tested against the vertex count when Checked.
  std::uint64_t id(std::uint64_t e, std::uint64_t value) const {
    if constexpr (Checked) {
      if (value >= vertices_) [[unlikely]] refuse_id(e, value, vertices_);
    }
    return value;
  }

  BitsView<B> sources_;
  // The dispatched (AVX2 where the CPU has it) unpack of a whole window of chunks in one call.
  void (*unpack_)(const std::uint64_t*, std::uint64_t, std::uint64_t, std::uint64_t*);
  std::uint64_t vertices_;  // ids must be below it (tested when Checked)
  std::uint64_t base_ = 0;  // first edge of the decoded window
  std::uint64_t end_ = 0;   // one past its last edge
  alignas(64) std::uint64_t ids_[window_chunks * codec::chunk_values];
};

// The vertex count of begin's n + 1 offsets; what names the call in the error for an empty begin.
std::uint64_t vertices_of(const SmartArray& begin, const char* what) {
  if (begin.length() == 0) {
    throw_error(ErrorCode::invalid_argument, std::string(what) + ": begin holds no offsets (n + 1 >= 1 expected)");
  }
  return begin.length() - 1;
}

void check_inputs(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin,
                  const PageRankOptions& options) {
  const std::uint64_t n = vertices_of(begin, "pagerank");
  if (rbegin.length() != n + 1) {
    throw_error(ErrorCode::invalid_argument, "pagerank: rbegin holds " + std::to_string(rbegin.length()) + " offsets for " +
                                                 std::to_string(n) + " vertices (begin's " + std::to_string(n + 1) + ")");
  }
  if (redge.length() != rbegin.get(n)) {
    throw_error(ErrorCode::invalid_argument, "pagerank: redge holds " + std::to_string(redge.length()) +
                                                 " ids but rbegin ends at " + std::to_string(rbegin.get(n)));
  }
  // Every edge is one vertex's out-edge and another's in-edge: the out-degrees sum to m.
  if (begin.get(n) - begin.get(0) != redge.length()) {
    throw_error(ErrorCode::invalid_argument, "pagerank: begin spans " + std::to_string(begin.get(n) - begin.get(0)) +
                                                 " out-edges but redge holds " + std::to_string(redge.length()) + " in-edges");
  }
  validate(options);
}

constexpr util::NameTable<DanglingRule, 2> dangling_rule_names{
    "dangling rule", {{{DanglingRule::none, "none"}, {DanglingRule::uniform, "uniform"}}}};

constexpr util::NameTable<ScorePrecision, 4> score_precision_names{
    "score precision",
    {{{ScorePrecision::f64, "f64"}, {ScorePrecision::f32, "f32"}, {ScorePrecision::f64, "float64"},
      {ScorePrecision::f32, "float32"}}}};

ArrayOptions with_bits(const ArrayOptions& options, unsigned bits) {
  ArrayOptions resolved = options;
  resolved.bits = bits;
  return resolved;
}

// A score's bit pattern as the array value holding it, and back (floats in the low 32 bits).
template <typename Score>
using ScoreWord = std::conditional_t<sizeof(Score) == 8, std::uint64_t, std::uint32_t>;

template <typename Score>
std::uint64_t value_of(Score score) {
  return std::bit_cast<ScoreWord<Score>>(score);
}

// The pull loop over vertices [lo, hi): store(v, teleport + damping * (the contributions in shares of
// v's in-neighbours, summed in redge's order)), offsets[v - lo] being rbegin[v]; returns the sum of
// |new rank - previous rank| (previous ranks: the scores in rank_words, indexed by v).
// The visitor takes its scalars by value and sums in a local: reached through the captures, they
// could alias the stores of ranks (doubles, or words), and the compiler would reload them and keep
// the sum in memory, a store and a load per vertex.
template <bool Checked, typename Score, typename Store>
double pull_batch_as(const SmartArray& redge, const std::uint64_t* offsets, std::uint64_t lo, std::uint64_t hi,
                     std::uint64_t vertices, const std::uint64_t* shares, Score teleport, Score damping,
                     const std::uint64_t* rank_words, Store& store) {
  double difference = 0;
  redge.visit([&store, &difference, offsets, lo, hi, vertices, shares, teleport, damping, rank_words](auto sources) {
    InEdges<decltype(sources)::bits, Checked> in_edges(sources, vertices);
    double sum_of_changes = 0;
    for (std::uint64_t v = lo; v < hi; ++v) {
      const Score sum = in_edges.template sum<Score>(offsets[v - lo], offsets[v - lo + 1], shares);
      const Score rank = teleport + damping * sum;
      sum_of_changes += std::fabs(static_cast<double>(rank) - static_cast<double>(score_at<Score>(rank_words, v)));
      store(v, rank);
    }
    difference = sum_of_changes;
  });
  return difference;
}

// Offsets [start, start + count) of rbegin as read_values reads them, but copied into scratch when
// checked: offsets tested in memory others can change must not be read again after the test.
const std::uint64_t* read_offsets(const SmartArray& rbegin, bool checked, std::uint64_t start, std::uint64_t count,
                                  std::uint64_t* scratch) {
  if (!checked || rbegin.bits() != 64) return detail::read_values(rbegin, start, count, scratch);
  std::memcpy(scratch, rbegin.local_replica() + start, count * sizeof(std::uint64_t));
  return scratch;
}

// The pull over vertices [lo, hi) (see pull_batch_as) over vertices scores. When redge or the offsets
// are over memory others can change (read_only: a mapped file), the offsets are tested to rise and to
// stay within redge, and every id against the vertex count, where they are used.
template <typename Score, typename Store>
double pull_batch(const SmartArray& redge, bool checked, const std::uint64_t* offsets, std::uint64_t lo, std::uint64_t hi,
                  std::uint64_t vertices, const std::uint64_t* shares, Score teleport, Score damping,
                  const std::uint64_t* rank_words, Store&& store) {
  if (!checked) return pull_batch_as<false>(redge, offsets, lo, hi, vertices, shares, teleport, damping, rank_words, store);
  for (std::uint64_t v = lo; v < hi; ++v) {
    if (offsets[v - lo] > offsets[v - lo + 1] || offsets[v - lo + 1] > redge.length()) {
      throw_error(ErrorCode::invalid_argument, "pagerank: in-edge offsets rbegin[" + std::to_string(v) + "] = " +
                                                   std::to_string(offsets[v - lo]) + ", rbegin[" + std::to_string(v + 1) +
                                                   "] = " + std::to_string(offsets[v - lo + 1]) + " fall or pass redge's " +
                                                   std::to_string(redge.length()) +
                                                   " ids (a mapped file changed after its bounds were checked at open)");
    }
  }
  return pull_batch_as<true>(redge, offsets, lo, hi, vertices, shares, teleport, damping, rank_words, store);
}

// The iterations over one score precision, after the arrays of result are allocated.
template <typename Score>
void iterate(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin,
             const PageRankOptions& options, PageRankResult& result, runtime::ThreadPool& pool);

}  // namespace

void validate(const PageRankOptions& options) {
  if (!(options.damping > 0 && options.damping <= 1)) {
    throw_error(ErrorCode::invalid_argument,
                "pagerank: damping must be a number in (0, 1], got " + util::number_text(options.damping));
  }
  if (!(std::isfinite(options.tolerance) && options.tolerance >= 0)) {
    throw_error(ErrorCode::invalid_argument,
                "pagerank: tolerance must be a finite number >= 0, got " + util::number_text(options.tolerance));
  }
  if (options.max_iterations == 0) {
    throw_error(ErrorCode::invalid_argument, "pagerank: max_iterations must be at least 1, got 0");
  }
  if (options.dangling != DanglingRule::none && options.dangling != DanglingRule::uniform) {
    throw_error(ErrorCode::invalid_argument, "pagerank: dangling rule must be none or uniform, got " +
                                                 std::to_string(static_cast<int>(options.dangling)));
  }
  if (options.scores != ScorePrecision::f64 && options.scores != ScorePrecision::f32) {
    throw_error(ErrorCode::invalid_argument, "pagerank: score precision must be f64 or f32, got " +
                                                 std::to_string(static_cast<int>(options.scores)));
  }
  if (options.ranks.placement == Placement::replicated) {
    throw_error(ErrorCode::invalid_argument,
                "pagerank: the rank array is written every iteration and cannot be replicated (use interleaved)");
  }
}

const char* to_string(DanglingRule rule) noexcept { return dangling_rule_names.c_name(rule); }

DanglingRule parse_dangling_rule(std::string_view name) { return dangling_rule_names.parse(name); }

const char* to_string(ScorePrecision precision) noexcept { return score_precision_names.c_name(precision); }

ScorePrecision parse_score_precision(std::string_view name) { return score_precision_names.parse(name); }

PageRankResult pagerank(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin,
                        const PageRankOptions& options, runtime::ThreadPool& pool) {
  check_inputs(rbegin, redge, begin, options);
  const std::uint64_t n = begin.length() - 1;
  const unsigned bits = score_bits(options.scores);
  // Named in any error: a graph's arrays fit, and then these could not be mapped.
  const auto allocate = [&](const char* name, const ArrayOptions& array) {
    return with_context(std::string("pagerank array ") + name + " of " + std::to_string(n) + " values",
                        [&] { return SmartArray::allocate(n, with_bits(array, bits)); });
  };
  PageRankResult result{allocate("ranks", options.ranks), 0, 0, false, {}, allocate("contributions", options.contributions)};
  if (n == 0) {
    result.converged = true;
    return result;
  }
  if (options.scores == ScorePrecision::f32) {
    iterate<float>(rbegin, redge, begin, options, result, pool);
  } else {
    iterate<double>(rbegin, redge, begin, options, result, pool);
  }
  return result;
}

namespace {

// contributions[v] = ranks[v] / out-degree of v (0 for a vertex without out-edges), in parallel.
template <typename Score>
void share_ranks(const std::uint64_t* rank_words, const SmartArray& begin, SmartArray& contributions,
                 runtime::ThreadPool& pool, const std::vector<runtime::LoopPart>& layout) {
  build::fill_array(
      contributions,
      [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
        for_degree_blocks(begin, lo, hi, [&](std::uint64_t first, std::uint64_t count, BlockDegrees degrees) {
          for (std::uint64_t k = 0; k < count; ++k) {
            const Score rank = score_at<Score>(rank_words, first + k);
            const Score share = degrees[k] == 0 ? Score(0) : rank / static_cast<Score>(degrees[k]);
            out[first + k - lo] = value_of(share);
          }
        });
      },
      pool, layout);
}

// The layout of the loops over vertices: where their in-edges start when redge is partitioned (the
// bulk of what a pull reads), else the stripes of partitioned rbegin or begin; else none (a
// fill then follows the array it writes).
std::vector<runtime::LoopPart> vertex_layout(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin) {
  if (redge.placement() == Placement::partitioned) {
    return runtime::layout_through(redge.partitions(), begin.length() - 1, [&](std::uint64_t v) { return rbegin.get(v); });
  }
  std::vector<runtime::LoopPart> layout = build::stripe_parts(rbegin);
  return layout.empty() ? build::stripe_parts(begin) : layout;
}

// Loop options following layout.
runtime::LoopOptions layout_options(std::vector<runtime::LoopPart> layout) {
  runtime::LoopOptions options;
  options.layout = std::move(layout);
  return options;
}

// The number of vertices without out-edges.
std::uint64_t dangling_vertices(const SmartArray& begin, runtime::ThreadPool& pool) {
  return pool.parallel_reduce(
      0, begin.length() - 1, std::uint64_t{0},
      [&](std::uint64_t lo, std::uint64_t hi) {
        std::uint64_t count = 0;
        for_degree_blocks(begin, lo, hi, [&](std::uint64_t, std::uint64_t c, BlockDegrees degrees) {
          for (std::uint64_t k = 0; k < c; ++k) count += degrees[k] == 0 ? 1 : 0;
        });
        return count;
      },
      [](std::uint64_t a, std::uint64_t b) { return a + b; }, layout_options(build::stripe_parts(begin)));
}

template <typename Score>
void iterate(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin,
             const PageRankOptions& options, PageRankResult& result, runtime::ThreadPool& pool) {
  const std::uint64_t n = begin.length() - 1;
  const bool redistribute = options.dangling == DanglingRule::uniform;
  SmartArray& contributions = result.contributions;
  SmartArray& ranks = result.ranks;
  const std::vector<runtime::LoopPart> layout = vertex_layout(rbegin, redge, begin);
  const double initial = 1.0 / static_cast<double>(n);
  const std::uint64_t initial_value = value_of(static_cast<Score>(initial));
  build::fill_array(
      ranks, [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) { std::fill(out, out + (hi - lo), initial_value); },
      pool);

  // Ranks are one copy (never replicated), so every worker reads replica 0.
  const std::uint64_t* rank_words = ranks.replica(0);
  share_ranks<Score>(rank_words, begin, contributions, pool, layout);

  // Rank held by dangling vertices, spread over all vertices in the next iteration (uniform rule).
  const double dangling_start = static_cast<double>(static_cast<Score>(initial));
  double dangling = redistribute ? static_cast<double>(dangling_vertices(begin, pool)) * dangling_start : 0;

  const bool checked = rbegin.read_only() || redge.read_only();
  const bool offsets_in_place = rbegin.bits() == 64 && !checked;
  for (unsigned iteration = 1; iteration <= options.max_iterations; ++iteration) {
    const auto start = std::chrono::steady_clock::now();
    const auto teleport = static_cast<Score>(pagerank_teleport(options, n, dangling));
    const auto damping = static_cast<Score>(options.damping);
    std::atomic<double> difference{0};
    std::atomic<double> next_dangling{0};
    build::fill_array(
        ranks,
        [&](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
          // offsets[v - lo] = rbegin[v] for v in [lo, hi], in place or decoded once for the batch.
          thread_local std::vector<std::uint64_t> scratch;
          if (!offsets_in_place && scratch.size() < hi - lo + 1) scratch.resize(hi - lo + 1);
          const std::uint64_t* offsets = read_offsets(rbegin, checked, lo, hi - lo + 1, scratch.data());
          const double batch_difference = pull_batch<Score>(
              redge, checked, offsets, lo, hi, n, contributions.local_replica(), teleport, damping, rank_words,
              [&](std::uint64_t v, Score rank) { out[v - lo] = value_of(rank); });
          double batch_dangling = 0;
          difference.fetch_add(batch_difference, std::memory_order_relaxed);
          if (redistribute) {
            for_degree_blocks(begin, lo, hi, [&](std::uint64_t first, std::uint64_t count, BlockDegrees degrees) {
              for (std::uint64_t k = 0; k < count; ++k) {
                if (degrees[k] == 0) {
                  batch_dangling += static_cast<double>(std::bit_cast<Score>(static_cast<ScoreWord<Score>>(out[first + k - lo])));
                }
              }
            });
            next_dangling.fetch_add(batch_dangling, std::memory_order_relaxed);
          }
        },
        pool, layout);
    share_ranks<Score>(rank_words, begin, contributions, pool, layout);
    dangling = next_dangling.load();
    result.iteration_seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    result.iterations = iteration;
    result.difference = difference.load();
    if (result.difference < options.tolerance) {
      result.converged = true;
      break;
    }
  }
}

}  // namespace

double pagerank_teleport(const PageRankOptions& options, std::uint64_t n, double dangling) {
  const double d = options.damping;
  const double vertices = static_cast<double>(n);
  return (1.0 - d) / vertices + (options.dangling == DanglingRule::uniform ? d * dangling / vertices : 0.0);
}

namespace {

void check_part_length(std::string_view what, std::uint64_t length, std::uint64_t expected) {
  if (length != expected) {
    throw_error(ErrorCode::invalid_argument, "pagerank part: " + std::string(what) + " holds " + std::to_string(length) +
                                                 " values, expected " + std::to_string(expected));
  }
}

// The words of a span of doubles, as the edge loop reads contributions (score_at copies each out).
const std::uint64_t* words_of(std::span<const double> scores) {
  return reinterpret_cast<const std::uint64_t*>(scores.data());
}

// contributions[k] = ranks[k] / out-degree of k (0 for dangling vertices) over [lo, hi); returns the
// ranks of the dangling vertices summed and how many there are. Each block sums in locals: the totals,
// reached through the capture, could alias the stored contributions, which would keep the sums in
// memory (a load and a store per dangling vertex, in one chain).
PageRankPartTotals share_part(const SmartArray& begin, std::uint64_t lo, std::uint64_t hi,
                              std::span<const double> ranks, std::span<double> contributions) {
  PageRankPartTotals totals;
  for_degree_blocks(begin, lo, hi, [&](std::uint64_t first, std::uint64_t count, BlockDegrees degrees) {
    const double* from = ranks.data() + first;
    double* to = contributions.data() + first;
    double dangling = 0;
    std::uint64_t dangling_vertices = 0;
    for (std::uint64_t k = 0; k < count; ++k) {
      const double rank = from[k];
      to[k] = degrees[k] == 0 ? 0.0 : rank / static_cast<double>(degrees[k]);
      if (degrees[k] == 0) {
        dangling += rank;
        ++dangling_vertices;
      }
    }
    totals.dangling += dangling;
    totals.dangling_vertices += dangling_vertices;
  });
  return totals;
}

PageRankPartTotals add_totals(PageRankPartTotals a, const PageRankPartTotals& b) {
  a.difference += b.difference;
  a.dangling += b.dangling;
  a.dangling_vertices += b.dangling_vertices;
  return a;
}

// Refuses two score buffers that share memory: a written buffer overlapping one the iteration reads
// elsewhere (or writes) would change what other threads read mid-iteration.
void require_apart(std::span<const double> a, const char* a_name, std::span<const double> b, const char* b_name) {
  if (a.empty() || b.empty()) return;
  if (a.data() < b.data() + b.size() && b.data() < a.data() + a.size()) {
    throw_error(ErrorCode::invalid_argument, std::string(a_name) + " and " + b_name + " overlap");
  }
}

}  // namespace

PageRankPartTotals pagerank_part_start(const SmartArray& begin, std::uint64_t vertices, std::span<double> ranks,
                                       std::span<double> contributions, runtime::ThreadPool& pool) {
  const std::uint64_t count = vertices_of(begin, "pagerank part");
  check_part_length("ranks", ranks.size(), count);
  check_part_length("contributions", contributions.size(), count);
  if (count > vertices) check_part_length("begin", begin.length(), vertices + 1);
  require_apart(ranks, "ranks", contributions, "contributions");
  const double initial = vertices == 0 ? 0.0 : 1.0 / static_cast<double>(vertices);
  std::fill(ranks.begin(), ranks.end(), initial);
  PageRankPartTotals totals = pool.parallel_reduce(
      0, count, PageRankPartTotals{},
      [&](std::uint64_t lo, std::uint64_t hi) { return share_part(begin, lo, hi, ranks, contributions); },
      add_totals, layout_options(build::stripe_parts(begin)));
  totals.dangling = 0;
  return totals;
}

PageRankPartTotals pagerank_part_step(const SmartArray& rbegin, const SmartArray& redge, const SmartArray& begin,
                                      std::span<const double> contributions, std::span<const double> ranks,
                                      double dangling, const PageRankOptions& options, std::span<double> new_ranks,
                                      std::span<double> new_contributions, runtime::ThreadPool& pool) {
  validate(options);
  if (options.scores != ScorePrecision::f64) {
    throw_error(ErrorCode::invalid_argument, "pagerank part: scores must be f64 (distributed ranks are doubles)");
  }
  if (!std::isfinite(dangling) || !(dangling >= 0)) {
    throw_error(ErrorCode::invalid_argument,
                "pagerank part: dangling must be the dangling vertices' rank, a finite number >= 0, got " + util::number_text(dangling));
  }
  const std::uint64_t count = vertices_of(begin, "pagerank part");
  check_part_length("rbegin", rbegin.length(), count + 1);
  check_part_length("redge", redge.length(), rbegin.get(count));
  check_part_length("ranks", ranks.size(), count);
  check_part_length("new ranks", new_ranks.size(), count);
  check_part_length("new contributions", new_contributions.size(), count);
  const std::uint64_t n = contributions.size();
  if (count > n) check_part_length("begin", begin.length(), n + 1);
  // new_ranks may be ranks itself (each vertex's rank is read, then overwritten, by one thread), and
  // on the whole graph new_contributions may be contributions itself: they are then rewritten in a
  // second pass once every pull is done, as pagerank() does; otherwise the pull writes them as it goes.
  const bool shares_in_place = new_contributions.data() == contributions.data() && count == n;
  if (!shares_in_place) {
    require_apart(new_contributions, "new_contributions", contributions,
                  "contributions (unless the same buffer over the whole graph)");
  }
  require_apart(new_contributions, "new_contributions", ranks, "ranks");
  require_apart(new_contributions, "new_contributions", new_ranks, "new_ranks");
  require_apart(new_ranks, "new_ranks", contributions, "contributions");
  if (new_ranks.data() != ranks.data()) require_apart(new_ranks, "new_ranks", ranks, "ranks (unless the same buffer)");
  const double teleport = pagerank_teleport(options, n, dangling);
  const bool redistribute = options.dangling == DanglingRule::uniform;
  const std::vector<runtime::LoopPart> layout = vertex_layout(rbegin, redge, begin);
  const bool checked = rbegin.read_only() || redge.read_only();
  PageRankPartTotals totals = pool.parallel_reduce(
      0, count, PageRankPartTotals{},
      [&](std::uint64_t lo, std::uint64_t hi) {
        thread_local std::vector<std::uint64_t> scratch;
        if (scratch.size() < hi - lo + 1) scratch.resize(hi - lo + 1);
        const std::uint64_t* offsets = read_offsets(rbegin, checked, lo, hi - lo + 1, scratch.data());
        PageRankPartTotals batch;
        batch.difference = pull_batch<double>(redge, checked, offsets, lo, hi, n, words_of(contributions), teleport,
                                              options.damping, words_of(ranks),
                                              [&](std::uint64_t v, double rank) { new_ranks[v] = rank; });
        if (!shares_in_place) batch.dangling = share_part(begin, lo, hi, new_ranks, new_contributions).dangling;
        return batch;
      },
      add_totals, layout_options(layout));
  if (shares_in_place) {
    totals.dangling = pool.parallel_reduce(
        0, count, 0.0,
        [&](std::uint64_t lo, std::uint64_t hi) { return share_part(begin, lo, hi, new_ranks, new_contributions).dangling; },
        [](double a, double b) { return a + b; }, layout_options(layout));
  }
  if (!redistribute) totals.dangling = 0;
  return totals;
}

}  // namespace smartarrays::algo
