// Owns calibration: every measurement the model needs, made with the library's own memory regions,
// pinning and arrays, so the profile describes what smart arrays see on this machine.
#include "smartarrays/adapt/calibrate.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <thread>
#include <vector>

#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/mix64.hpp"

namespace smartarrays::adapt {

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); }

struct Sizes {
  std::size_t stream_bytes;   // buffer streamed for bandwidth
  std::size_t chase_bytes;    // buffer chased for latency (beyond the last-level cache)
  std::uint64_t chase_steps;  // dependent loads timed
  double stream_seconds;      // minimum time per bandwidth measurement
  double decode_seconds;      // time per width for scans, and again for gets
};

Sizes sizes_for(bool quick, std::uint64_t llc) {
  const std::size_t beyond = static_cast<std::size_t>(std::max<std::uint64_t>(4 * llc, std::uint64_t{64} << 20));
  if (quick) return {beyond, beyond, 1u << 20, 0.15, 0.012};
  return {2 * beyond, 2 * beyond, 1u << 23, 1.0, 0.08};
}

os::MemoryRegion region_on(std::size_t bytes, int node, bool huge) {
  return os::MemoryRegion::allocate(bytes, {os::MemoryPolicy::bind, {node}, huge ? os::HugePages::on : os::HugePages::off});
}

// Runs body(t) on threads threads pinned to the CPUs of node (round robin) and waits for them.
template <typename Body>
void on_node(const os::Node& node, unsigned threads, Body body) {
  std::vector<std::thread> workers;
  for (unsigned t = 0; t < threads; ++t) {
    workers.emplace_back([&, t] {
      os::pin_current_thread_to_cpu(node.cpus[t % node.cpus.size()]);
      body(t);
    });
  }
  for (std::thread& w : workers) w.join();
}

std::uint64_t sum_words(const std::uint64_t* w, std::size_t n) {
  std::uint64_t a = 0, b = 0, c = 0, d = 0;
  const std::size_t quads = n / 4;
  for (std::size_t q = 0; q < quads; ++q) {
    a += w[4 * q];
    b += w[4 * q + 1];
    c += w[4 * q + 2];
    d += w[4 * q + 3];
  }
  for (std::size_t i = 4 * quads; i < n; ++i) a += w[i];
  return a + b + c + d;
}

volatile std::uint64_t sink;

// GB/s of threads workers of reader streaming a buffer on node memory.
double read_bandwidth(const os::Node& reader, const os::MemoryRegion& buffer, unsigned threads, double min_seconds) {
  const auto* words = static_cast<const std::uint64_t*>(buffer.data());
  const std::size_t n = buffer.size() / sizeof(std::uint64_t);
  double best = 0;
  const Clock::time_point begin = Clock::now();
  do {
    const Clock::time_point start = Clock::now();
    on_node(reader, threads, [&](unsigned t) {
      const std::size_t lo = n * t / threads, hi = n * (t + 1) / threads;
      sink = sum_words(words + lo, hi - lo);
    });
    const double s = seconds_since(start);
    best = std::max(best, static_cast<double>(buffer.size()) / s / 1e9);
  } while (seconds_since(begin) < min_seconds);
  return best;
}

// Writes a random cyclic permutation of the buffer's cache lines (Sattolo) into it.
void link_lines(const os::MemoryRegion& buffer, std::uint64_t seed) {
  auto* words = static_cast<std::uint64_t*>(buffer.data());
  const std::size_t lines = buffer.size() / 64;
  std::vector<std::uint32_t> order(lines);
  std::iota(order.begin(), order.end(), 0u);
  for (std::size_t i = lines - 1; i > 0; --i) {
    const std::size_t j = util::mix64(seed + i) % i;
    std::swap(order[i], order[j]);
  }
  for (std::size_t i = 0; i < lines; ++i) words[order[i] * 8] = order[(i + 1) % lines] * 8ull;
}

// ns per dependent load from reader over a linked buffer, after warm untimed loads (by default an
// eighth of steps: the TLB and caches a little).
double chase_ns(const os::Node& reader, const os::MemoryRegion& buffer, std::uint64_t steps, std::uint64_t warm = 0) {
  const auto* words = static_cast<const std::uint64_t*>(buffer.data());
  double ns = 0;
  on_node(reader, 1, [&](unsigned) {
    std::uint64_t at = 0;
    for (std::uint64_t i = 0; i < (warm != 0 ? warm : steps / 8); ++i) at = words[at];
    const Clock::time_point start = Clock::now();
    for (std::uint64_t i = 0; i < steps; ++i) at = words[at];
    ns = seconds_since(start) * 1e9 / static_cast<double>(steps);
    sink = at;
  });
  return ns;
}

// ns per independent random load (one thread): latency / this is how many misses overlap.
double independent_ns(const os::Node& reader, const os::MemoryRegion& buffer, std::uint64_t steps) {
  const auto* words = static_cast<const std::uint64_t*>(buffer.data());
  const std::uint64_t lines = buffer.size() / 64;
  double ns = 0;
  on_node(reader, 1, [&](unsigned) {
    std::uint64_t sum = 0, x = 0x9e3779b97f4a7c15ull;
    const Clock::time_point start = Clock::now();
    for (std::uint64_t i = 0; i < steps; ++i) {
      x ^= x << 13;
      x ^= x >> 7;
      x ^= x << 17;
      sum += words[(x % lines) * 8];
    }
    ns = seconds_since(start) * 1e9 / static_cast<double>(steps);
    sink = sum;
  });
  return ns;
}

// The cache random loads see on node: dependent loads over buffers from 256 KiB to twice the
// last-level cache, each latency normalised between the smallest buffer's and memory's, fitted by
// the model's miss share max(0, 1 - C / size) (least squares over C on a grid of 2^(1/8) steps).
std::uint64_t random_cache_bytes(const os::Node& node, std::uint64_t llc, std::uint64_t steps, double memory_latency_ns) {
  std::vector<std::pair<double, double>> curve;  // (buffer bytes, latency ns)
  for (std::size_t bytes = std::size_t{256} << 10; bytes <= 2 * llc; bytes *= 2) {
    os::MemoryRegion buffer = region_on(bytes, node.id, false);
    link_lines(buffer, bytes);
    // Warmed by one whole cycle through the lines, so that what stays cached is cached.
    curve.emplace_back(static_cast<double>(bytes), chase_ns(node, buffer, steps, bytes / 64));
  }
  if (curve.size() < 2) return llc;
  // Memory's latency from the same pass (the largest buffer) unless the separate measurement is higher.
  const double memory_ns = std::max(curve.back().second, memory_latency_ns);
  const double cached_ns = curve.front().second;
  if (memory_ns <= cached_ns) return llc;
  double best_c = static_cast<double>(llc), best_error = std::numeric_limits<double>::infinity();
  for (double c = 64.0 * 1024; c <= 4.0 * static_cast<double>(llc); c *= std::exp2(0.125)) {
    double error = 0;
    for (const auto& [bytes, ns] : curve) {
      const double measured = std::clamp((ns - cached_ns) / (memory_ns - cached_ns), 0.0, 1.0);
      const double modelled = std::max(0.0, 1.0 - c / bytes);
      error += (measured - modelled) * (measured - modelled);
    }
    if (error < best_error) {
      best_error = error;
      best_c = c;
    }
  }
  return static_cast<std::uint64_t>(best_c);
}

// GB/s of node's workers copying source into a buffer bound to node (a replica's initialisation).
double copy_rate(const os::Node& node, const os::MemoryRegion& source, double min_seconds) {
  os::MemoryRegion target = region_on(source.size(), node.id, false);
  const unsigned threads = static_cast<unsigned>(std::max<std::size_t>(node.cpus.size(), 1));
  const auto* from = static_cast<const char*>(source.data());
  auto* to = static_cast<char*>(target.data());
  double best = 0;
  const Clock::time_point begin = Clock::now();
  do {
    const Clock::time_point start = Clock::now();
    on_node(node, threads, [&](unsigned t) {
      const std::size_t lo = source.size() * t / threads, hi = source.size() * (t + 1) / threads;
      std::memcpy(to + lo, from + lo, hi - lo);
    });
    best = std::max(best, static_cast<double>(source.size()) / seconds_since(start) / 1e9);
  } while (seconds_since(begin) < min_seconds);
  return best;
}

// Runs f (one operation over count values) until min_seconds pass; returns values per second.
template <typename F>
double values_per_second(double min_seconds, std::uint64_t count, F f) {
  std::uint64_t runs = 0;
  const Clock::time_point start = Clock::now();
  double elapsed = 0;
  do {
    for (int r = 0; r < 8; ++r) f();
    runs += 8;
    elapsed = seconds_since(start);
  } while (elapsed < min_seconds);
  return static_cast<double>(runs * count) / elapsed;
}

void measure_decode(MachineProfile& p, const Sizes& sizes, const CalibrationOptions& options) {
  constexpr std::uint64_t values = 8192;  // b KiB at b bits: inside L2 for every width
  std::vector<std::uint64_t> data(values);
  std::vector<std::uint64_t> indices(1024);
  for (std::size_t i = 0; i < indices.size(); ++i) indices[i] = util::mix64(i + 7) % values;
  for (unsigned b = 1; b <= 64; ++b) {
    if (options.progress && (b == 1 || b % 8 == 0)) options.progress("decode " + std::to_string(b) + " bits", 0.55 + 0.4 * b / 64.0);
    const std::uint64_t mask = b == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << b) - 1;
    for (std::uint64_t i = 0; i < values; ++i) data[i] = util::mix64(i * 31 + b) & mask;
    ArrayOptions o;
    o.bits = b;
    const SmartArray a = SmartArray::from_values(data, o);
    p.decode.scan_values_per_s_per_cpu[b - 1] =
        values_per_second(sizes.decode_seconds, values, [&] { sink = a.sum(0, values); });
    const double gets = values_per_second(sizes.decode_seconds / 2, indices.size(), [&] {
      std::uint64_t s = 0;
      for (std::uint64_t i : indices) s += a.get_unchecked(i);
      sink = s;
    });
    p.decode.get_ns[b - 1] = 1e9 / gets;
  }
  for (std::uint64_t i = 0; i < values; ++i) data[i] = util::mix64(i);
  p.decode.plain_scan_values_per_s_per_cpu =
      values_per_second(sizes.decode_seconds, values, [&] { sink = sum_words(data.data(), values); });
}

std::uint64_t llc_bytes() {
  for (int index = 4; index >= 0; --index) {
    const std::string path = "/sys/devices/system/cpu/cpu0/cache/index" + std::to_string(index) + "/size";
    if (FILE* f = std::fopen(path.c_str(), "r")) {
      unsigned long long size = 0;
      char unit = 0;
      const int read = std::fscanf(f, "%llu%c", &size, &unit);
      std::fclose(f);
      if (read >= 1 && size > 0) return unit == 'M' ? size << 20 : unit == 'K' ? size << 10 : size;
    }
  }
  return std::uint64_t{32} << 20;
}

MachineProfile topology_profile() {
  MachineProfile p;
  const os::MachineFacts facts = os::read_machine_facts();
  p.cpu_model = facts.cpu_model;
  p.codec_isa = codec::isa_name(codec::active_isa());
  p.thp_enabled = facts.thp_enabled;
  for (const os::Node& node : os::topology().nodes()) {
    p.nodes.push_back({node.id, static_cast<unsigned>(node.cpus.size()), node.memory_total, node.memory_free});
  }
  const std::size_t n = p.nodes.size();
  p.read_gbs.assign(n, std::vector<double>(n, 0.0));
  p.read_gbs_1t = p.read_gbs;
  p.latency_ns = p.read_gbs;
  p.copy_gbs.assign(n, 0.0);
  p.llc_bytes = llc_bytes();
  p.machine_key = machine_key();
  return p;
}

// How much of decoding does not overlap streaming: an array of 33-bit values larger than the cache
// decoded and summed by every worker of node 0; t = max(c, m) + f * min(c, m) solved for f.
double measure_serial_fraction(const MachineProfile& p, const Sizes& sizes) {
  const os::Topology& topology = os::topology();
  std::size_t n0 = 0;
  while (n0 < topology.node_count() && (topology.node(n0).cpus.empty() || topology.node(n0).memory_total == 0)) ++n0;
  if (n0 == topology.node_count()) return 0;
  const os::Node& node = topology.node(n0);
  constexpr unsigned bits = 33;
  const std::uint64_t values = sizes.stream_bytes * 8 / bits;
  ArrayOptions o;
  o.placement = Placement::single_node;
  o.node = node.id;
  o.bits = bits;
  SmartArray a = SmartArray::allocate(values, o);
  for (std::uint64_t i = 0; i < values; i += 4096) a.init(i, i & ((1ull << bits) - 1));
  const unsigned threads = static_cast<unsigned>(node.cpus.size());
  double best = 1e30;
  const Clock::time_point begin = Clock::now();
  do {
    const Clock::time_point start = Clock::now();
    on_node(node, threads, [&](unsigned t) {
      const std::uint64_t chunks = a.chunks();
      const std::uint64_t lo = chunks * t / threads * 64, hi = std::min(values, chunks * (t + 1) / threads * 64);
      sink = a.sum(lo, hi - lo);
    });
    best = std::min(best, seconds_since(start));
  } while (seconds_since(begin) < sizes.stream_seconds);
  const double compute = static_cast<double>(values) / (threads * p.decode.scan_values_per_s_per_cpu[bits - 1]);
  const double memory = static_cast<double>(a.words_per_replica() * 8) / (p.read_gbs[n0][n0] * 1e9);
  const double shorter = std::min(compute, memory);
  if (shorter <= 0) return 0;
  return std::clamp((best - std::max(compute, memory)) / shorter, 0.0, 1.0);
}

}  // namespace

MachineProfile calibrate(const CalibrationOptions& options) {
  const Clock::time_point start = Clock::now();
  MachineProfile p = topology_profile();
  p.calibration = options.quick ? "quick" : "full";
  const Sizes sizes = sizes_for(options.quick, p.llc_bytes);
  const os::Topology& topology = os::topology();
  const std::size_t n = topology.node_count();
  auto progress = [&](const std::string& what, double fraction) {
    if (options.progress) options.progress(what, fraction);
  };
  std::vector<double> independent;
  std::vector<double> huge_ratio;
  for (std::size_t j = 0; j < n; ++j) {
    const os::Node& memory = topology.node(j);
    if (memory.memory_total == 0) continue;
    os::MemoryRegion stream = region_on(sizes.stream_bytes, memory.id, false);
    std::memset(stream.data(), 1, stream.size());
    os::MemoryRegion chase = region_on(sizes.chase_bytes, memory.id, false);
    link_lines(chase, j + 1);
    for (std::size_t i = 0; i < n; ++i) {
      const os::Node& reader = topology.node(i);
      if (reader.cpus.empty()) continue;
      const double fraction = 0.5 * static_cast<double>(j * n + i) / static_cast<double>(n * n);
      progress("read bandwidth, node " + std::to_string(i) + " reading node " + std::to_string(j), fraction);
      p.read_gbs[i][j] = read_bandwidth(reader, stream, static_cast<unsigned>(reader.cpus.size()), sizes.stream_seconds);
      p.read_gbs_1t[i][j] = read_bandwidth(reader, stream, 1, sizes.stream_seconds / 2);
      progress("latency, node " + std::to_string(i) + " reading node " + std::to_string(j), fraction + 0.25 / (n * n));
      p.latency_ns[i][j] = chase_ns(reader, chase, sizes.chase_steps);
      if (i == j) independent.push_back(p.latency_ns[i][j] / independent_ns(reader, chase, sizes.chase_steps));
    }
    if (!memory.cpus.empty()) {
      progress("huge-page latency, node " + std::to_string(j), 0.5 * static_cast<double>(j + 1) / static_cast<double>(n));
      os::MemoryRegion huge = region_on(sizes.chase_bytes, memory.id, true);
      link_lines(huge, j + 1);
      huge_ratio.push_back(chase_ns(memory, huge, sizes.chase_steps) / p.latency_ns[j][j]);
      progress("replica copy rate, node " + std::to_string(j), 0.5 * static_cast<double>(j + 1) / static_cast<double>(n));
      p.copy_gbs[j] = copy_rate(memory, stream, sizes.stream_seconds);
    }
  }
  // Memoryless or CPU-less nodes borrow the nearest measured values, so every entry is usable.
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const std::size_t from = topology.node(i).cpus.empty() ? 0 : i;
      for (NodeMatrix* m : {&p.read_gbs, &p.read_gbs_1t, &p.latency_ns}) {
        if ((*m)[i][j] == 0) (*m)[i][j] = (*m)[from][0] > 0 ? (*m)[from][0] : 1;
      }
    }
    if (p.copy_gbs[i] == 0) p.copy_gbs[i] = *std::max_element(p.copy_gbs.begin(), p.copy_gbs.end());
    if (p.copy_gbs[i] == 0) p.copy_gbs[i] = 1;
  }
  if (!independent.empty()) {
    p.memory_parallelism = std::max(1.0, std::accumulate(independent.begin(), independent.end(), 0.0) /
                                             static_cast<double>(independent.size()));
  }
  if (!huge_ratio.empty()) {
    p.huge_page_latency_ratio = std::accumulate(huge_ratio.begin(), huge_ratio.end(), 0.0) /
                                static_cast<double>(huge_ratio.size());
  }
  for (std::size_t j = 0; j < n; ++j) {
    const os::Node& node = topology.node(j);
    if (node.cpus.empty() || node.memory_total == 0) continue;
    progress("random-load cache, node " + std::to_string(j), 0.5);
    p.random_cache_bytes = random_cache_bytes(node, p.llc_bytes, sizes.chase_steps / 4, p.latency_ns[j][j]);
    break;
  }
  measure_decode(p, sizes, options);
  progress("compute and memory overlap", 0.97);
  p.serial_fraction = measure_serial_fraction(p, sizes);
  progress("done", 1.0);
  p.calibration_seconds = seconds_since(start);
  return p;
}

MachineProfile estimated_profile() {
  MachineProfile p = topology_profile();
  p.calibration = "estimated";
  const std::size_t n = p.nodes.size();
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      const bool local = i == j;
      p.read_gbs[i][j] = local ? 10.0 * std::max(1u, p.nodes[i].cpus) / 2 : 6.0;
      p.read_gbs_1t[i][j] = local ? 8.0 : 5.0;
      p.latency_ns[i][j] = local ? 90.0 : 140.0;
    }
    p.copy_gbs[i] = 5.0;
  }
  for (unsigned b = 1; b <= 64; ++b) {
    const bool aligned = b == 8 || b == 16 || b == 32 || b == 64;
    p.decode.scan_values_per_s_per_cpu[b - 1] = aligned ? 3e9 : 1.5e9;
    p.decode.get_ns[b - 1] = aligned ? 1.5 : 3.0;
  }
  p.decode.plain_scan_values_per_s_per_cpu = 4e9;
  return p;
}

}  // namespace smartarrays::adapt
