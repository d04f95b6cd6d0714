// Benchmarks the compact form (issue 13) side by side in one run: opening a large array mapped and
// reading its first value vs loading it vs reading the file into memory; an R-MAT graph from file
// to the end of its first PageRank iteration from the compact file (mapped and loaded), from GAP
// .sg and from an edge list; PageRank per iteration on the mapped graph vs in memory (page cache
// warm); and sending a 10-bit and a 64-bit array over a loopback TCP socket as a store stream vs a
// plain send() of the uint64 values (throughput and bytes on the wire). Prints tables and writes
// JSON. The numpy and pyarrow comparisons are python/bench/bench_store.py.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iomanip>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "bench_support.hpp"
#include "measure/report.hpp"
#include "measure/timing.hpp"
#include "smartarrays/algo/pagerank.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/graph/formats.hpp"
#include "smartarrays/graph/generators.hpp"
#include "smartarrays/graph/source.hpp"
#include "smartarrays/store/store.hpp"

namespace sa = smartarrays;
namespace sb = smartarrays::bench;
namespace sm = smartarrays::measure;
namespace sg = smartarrays::graph;
namespace ss = smartarrays::store;

namespace {

struct Config {
  std::uint64_t array_mib = 1024;  // the large array, 64-bit values
  unsigned scale = 22;             // R-MAT graph of 2^scale vertices
  std::uint64_t edge_factor = 16;
  unsigned send_log2 = 27;         // values sent
  unsigned iterations = 5;         // PageRank iterations per timed run
  int repetitions = 5;
  int graph_repetitions = 3;
  std::size_t threads = 2;
  std::string dir = "build/bench-store";
  std::string out_dir = sb::default_out_dir;
  bool skip_edge_list = false;
  std::vector<std::string> parts{"open", "graph", "send"};
  bool has(const std::string& part) const { return std::find(parts.begin(), parts.end(), part) != parts.end(); }
};

int parse(int argc, char** argv, Config& c) {
  CLI::App app("Benchmarks the compact form: open mapped vs load vs read, graph to first PageRank iteration from "
               ".sa/.sg/.el, PageRank mapped vs in memory, sending over a loopback socket.",
               "bench_store");
  app.add_option("--array-mib", c.array_mib, "size of the large 64-bit array in MiB (default 1024)")->check(CLI::Range(1, 1 << 16));
  app.add_option("--scale", c.scale, "R-MAT graph of 2^S vertices (default 22)")->check(CLI::Range(4, 28));
  app.add_option("--edge-factor", c.edge_factor, "R-MAT edges per vertex (default 16)")->check(CLI::Range(1, 256));
  app.add_option("--send-log2", c.send_log2, "2^N values sent per array (default 27)")->check(CLI::Range(10, 32));
  app.add_option("--iterations", c.iterations, "PageRank iterations per timed run (default 5)")->check(CLI::Range(1, 1000));
  app.add_option("--reps", c.repetitions, "timed runs per measurement, median reported (default 5)")->check(CLI::Range(1, 1000));
  app.add_option("--graph-reps", c.graph_repetitions, "timed runs of each file-to-first-iteration path (default 3)")
      ->check(CLI::Range(1, 100));
  app.add_option("--threads", c.threads, "workers of the pool (default 2)")->check(CLI::Range(1, 4096));
  app.add_option("--dir", c.dir, "where the benchmark's files go (default build/bench-store; removed at the end)");
  app.add_flag("--skip-edge-list", c.skip_edge_list, "leave out the (slow) edge-list path");
  app.add_option("--parts", c.parts, "the parts to run: open, graph, send (default all)")
      ->delimiter(',')
      ->check(CLI::IsMember({"open", "graph", "send"}));
  app.add_option("--out", c.out_dir, "where the JSON result goes (default build/bench-results)");
  return sb::parse_command_line(app, argc, argv);
}

std::string mib(double bytes) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(1) << bytes / (1 << 20) << " MiB";
  return o.str();
}

// ---- 1. open + first value ----

struct OpenResult {
  std::uint64_t bytes = 0;
  sm::Timing mapped, loaded, read;
};

OpenResult bench_open(const Config& cfg, sa::runtime::ThreadPool& pool) {
  OpenResult r;
  const std::uint64_t n = cfg.array_mib << 17;  // 8-byte values
  sa::ArrayOptions options;
  options.bits = 64;
  const sa::SmartArray big = sa::build::build_array(n, options, [](std::uint64_t lo, std::uint64_t hi, std::uint64_t* out) {
    for (std::uint64_t i = lo; i < hi; ++i) out[i - lo] = i * 0x9E3779B97F4A7C15ULL;
  }, pool);
  const std::string path = cfg.dir + "/big.sa";
  ss::Store::write(path, {{"big", big}});
  r.bytes = std::filesystem::file_size(path);
  const std::uint64_t first = big.get(0);
  const std::uint64_t first_word = ss::describe(path).objects[0].blocks[0].offset / 8;
  const sm::Trials trials{.warmup = 1, .repetitions = cfg.repetitions};
  auto check = [first](std::uint64_t v) { return v == first ? std::string() : "wrong first value"; };
  r.mapped = sm::run_trials(trials, [&] { return ss::Store::open(path).array("big").get(0); }, check);
  r.loaded = sm::run_trials(trials, [&] {
    return ss::Store::open(path, ss::Mode::load, {}, pool).array("big").get(0);
  }, check);
  r.read = sm::run_trials(trials, [&] {
    std::vector<std::uint64_t> bytes(r.bytes / 8);
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    std::uint64_t done = 0;
    for (ssize_t k; done < r.bytes && (k = ::read(fd, reinterpret_cast<char*>(bytes.data()) + done, r.bytes - done)) > 0;) {
      done += static_cast<std::uint64_t>(k);
    }
    ::close(fd);
    return bytes[first_word];
  }, check);
  std::filesystem::remove(path);
  return r;
}

// ---- 2. file to first PageRank iteration; 3. PageRank per iteration ----

struct GraphResult {
  std::uint64_t vertices = 0, edges = 0;
  std::uint64_t sa_bytes = 0, sg_bytes = 0, el_bytes = 0;
  sm::Timing compact_mapped, compact_loaded, sg, el;         // file to the end of the first iteration
  sm::Timing load_mapped, load_loaded, load_sg;               // file to a graph ready to use
  sm::Timing pagerank_mapped, pagerank_memory;  // per iteration
};

double first_iteration(const sg::CsrGraph& g, sa::runtime::ThreadPool& pool) {
  sa::algo::PageRankOptions options;
  options.max_iterations = 1;
  options.tolerance = 0;
  return sa::algo::pagerank(g.rbegin(), g.redge(), g.begin(), options, pool).difference;
}

GraphResult bench_graph(const Config& cfg, sa::runtime::ThreadPool& pool) {
  GraphResult r;
  const sg::BuildOptions build{.dedup = true, .drop_self_loops = true, .layout = sg::GraphLayout::for_variant(sg::Variant::VE)};
  std::cerr << "generating R-MAT 2^" << cfg.scale << "\n";
  const sg::CsrGraph g = sg::GraphSource::rmat({.scale = cfg.scale, .edge_factor = cfg.edge_factor}, false, pool).build(build, pool);
  r.vertices = g.vertices();
  r.edges = g.edges();
  const std::string sa_path = cfg.dir + "/g.sa", sg_path = cfg.dir + "/g.sg", el_path = cfg.dir + "/g.el";
  std::cerr << "writing " << sa_path << ", " << sg_path << (cfg.skip_edge_list ? "" : ", " + el_path) << "\n";
  sg::save_graph(g, sa_path, sg::GraphFormat::compact);
  sg::save_graph(g, sg_path, sg::GraphFormat::gap_sg);
  if (!cfg.skip_edge_list) sg::save_graph(g, el_path, sg::GraphFormat::edge_list);
  r.sa_bytes = std::filesystem::file_size(sa_path);
  r.sg_bytes = std::filesystem::file_size(sg_path);
  r.el_bytes = cfg.skip_edge_list ? 0 : std::filesystem::file_size(el_path);
  const double expected = first_iteration(g, pool);
  // The difference is a parallel sum, so its last bits depend on how batches fell.
  auto check = [expected](double d) {
    return std::abs(d - expected) <= 1e-9 * expected ? std::string() : "the first iteration differs";
  };
  const sm::Trials trials{.warmup = 1, .repetitions = cfg.graph_repetitions};
  auto open_as = [&](const std::string& path, sg::OpenMode mode) {
    sg::SourceOptions options;
    options.mode = mode;
    return first_iteration(sg::GraphSource::open(path, options, pool).stored_graph(), pool);
  };
  // Loading alone: the graph ready to use, checked by its edge count.
  auto edges_check = [&r](double edges) {
    return edges == static_cast<double>(r.edges) ? std::string() : "the loaded graph has other edges";
  };
  auto load_as = [&](const std::string& path, sg::OpenMode mode) {
    sg::SourceOptions options;
    options.mode = mode;
    return static_cast<double>(sg::GraphSource::open(path, options, pool).stored_graph().edges());
  };
  std::cerr << "loading\n";
  r.load_mapped = sm::run_trials(trials, [&] { return load_as(sa_path, sg::OpenMode::map); }, edges_check);
  r.load_loaded = sm::run_trials(trials, [&] { return load_as(sa_path, sg::OpenMode::load); }, edges_check);
  r.load_sg = sm::run_trials(
      trials, [&] { return static_cast<double>(sg::GraphSource::open(sg_path, {}, pool).build(build, pool).edges()); },
      edges_check);
  std::cerr << "file to first PageRank iteration\n";
  r.compact_mapped = sm::run_trials(trials, [&] { return open_as(sa_path, sg::OpenMode::map); }, check);
  r.compact_loaded = sm::run_trials(trials, [&] { return open_as(sa_path, sg::OpenMode::load); }, check);
  r.sg = sm::run_trials(trials, [&] { return first_iteration(sg::GraphSource::open(sg_path, {}, pool).build(build, pool), pool); }, check);
  if (!cfg.skip_edge_list) {
    const sm::Trials once{.warmup = 0, .repetitions = 1};
    r.el = sm::run_trials(once, [&] { return first_iteration(sg::GraphSource::open(el_path, {}, pool).build(build, pool), pool); }, check);
  }
  std::cerr << "PageRank per iteration, mapped vs in memory\n";
  const ss::Store mapped = ss::Store::open(sa_path);
  const sg::CsrGraph& m = mapped.graph("graph");
  sa::algo::PageRankOptions fixed;
  fixed.max_iterations = cfg.iterations;
  fixed.tolerance = 0;
  auto [tm, tg] = sm::run_alternating({.warmup = 1, .repetitions = cfg.repetitions},
                                      [&] { sb::keep(sa::algo::pagerank(m.rbegin(), m.redge(), m.begin(), fixed, pool)); },
                                      [&] { sb::keep(sa::algo::pagerank(g.rbegin(), g.redge(), g.begin(), fixed, pool)); });
  auto per_iteration = [&](sm::Timing t) {
    for (double& s : t.seconds) s /= cfg.iterations;
    return sm::summarize(t.seconds);
  };
  r.pagerank_mapped = per_iteration(tm);
  r.pagerank_memory = per_iteration(tg);
  for (const std::string& p : {sa_path, sg_path, el_path}) std::filesystem::remove(p);
  return r;
}

// ---- 4. sending over a loopback socket ----

struct SendResult {
  std::string what;
  std::uint64_t wire_bytes = 0;
  sm::Timing timing;
};

// A connected loopback TCP pair: {client, server-side accepted}.
std::pair<int, int> loopback_pair() {
  const int listener = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  if (::bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 || ::listen(listener, 1) != 0 ||
      ::getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
    sa::throw_error(sa::ErrorCode::os_error, "cannot listen on the loopback interface");
  }
  const int client = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (::connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    sa::throw_error(sa::ErrorCode::os_error, "cannot connect over the loopback interface");
  }
  const int server = ::accept(listener, nullptr, nullptr);
  ::close(listener);
  return {client, server};
}

// Sends array over client and receives it on server with receive (a kept Receiver or a new
// region per stream); throws when the last value received is not expected.
void stream_once(int client, int server, const sa::SmartArray& array, const std::function<ss::Store(int)>& receive,
                 std::uint64_t expected) {
  std::optional<ss::Store> got;
  std::thread receiver([&] { got.emplace(receive(server)); });
  ss::Store::send(client, {{"a", array}});
  receiver.join();
  if (got->array("a").get(array.length() - 1) != expected) sa::throw_error(sa::ErrorCode::internal, "the last value received differs");
}

// send() of n uint64 values over client, received on server into buffer (nullptr: a new buffer
// for this message, as a receiver that does not know the next size must allocate); throws when
// the last value received is not expected.
void plain_once(int client, int server, const std::vector<std::uint64_t>& values, std::uint64_t* buffer) {
  const std::uint64_t bytes = values.size() * 8;
  std::uint64_t last = 0;
  std::thread receiver([&] {
    std::unique_ptr<std::uint64_t[]> fresh(buffer ? nullptr : new std::uint64_t[values.size()]);
    auto* p = reinterpret_cast<char*>(buffer ? buffer : fresh.get());
    for (std::uint64_t done = 0; done < bytes;) {
      const ssize_t k = ::recv(server, p + done, bytes - done, 0);
      if (k <= 0) break;
      done += static_cast<std::uint64_t>(k);
    }
    last = reinterpret_cast<const std::uint64_t*>(p)[values.size() - 1];
  });
  const auto* p = reinterpret_cast<const char*>(values.data());
  for (std::uint64_t done = 0; done < bytes;) {
    const ssize_t k = ::send(client, p + done, bytes - done, MSG_NOSIGNAL);
    if (k <= 0) sa::throw_error(sa::ErrorCode::os_error, "send failed");
    done += static_cast<std::uint64_t>(k);
  }
  receiver.join();
  if (last != values.back()) sa::throw_error(sa::ErrorCode::internal, "the last value received differs");
}

// Each store stream is timed alternately with the plain send() it is compared with, so both see
// the same load: a kept Receiver (every stream after the first read into the same region) with a
// buffer allocated once, and a new region per stream with a new buffer per message.
std::vector<SendResult> bench_send(const Config& cfg, sa::runtime::ThreadPool& pool) {
  const std::uint64_t n = std::uint64_t{1} << cfg.send_log2;
  std::vector<std::uint64_t> plain(n);
  for (std::uint64_t i = 0; i < n; ++i) plain[i] = (i * 0x9E3779B97F4A7C15ULL) >> 54;  // 10-bit values
  sa::ArrayOptions ten, sixty_four;
  ten.bits = 10;
  sixty_four.bits = 64;
  const sa::SmartArray a10 = sa::build::build_array_from_values(plain, ten, pool);
  const sa::SmartArray a64 = sa::build::build_array_from_values(plain, sixty_four, pool);
  const auto [client, server] = loopback_pair();
  const sm::Trials trials{.warmup = 1, .repetitions = cfg.repetitions};
  // Huge pages for a received region: a stream of 2^27 values is 1 GiB, whose 4 KiB page faults
  // would cost more than its transfer.
  ss::ReceiveOptions huge, small_pages;
  huge.placement.huge_pages = sa::HugePages::on;
  small_pages.placement.huge_pages = sa::HugePages::off;
  ss::Receiver kept(huge);
  auto reused = [&](int fd) { return kept.receive(fd); };
  auto new_region = [&](const ss::ReceiveOptions& options) {
    return [&options](int fd) { return ss::Store::receive(fd, options); };
  };
  // Preamble, header, the block, directory and trailer: what send() writes.
  auto wire = [](const sa::SmartArray& a) { return 16 + 4096 + a.words_per_replica() * 8 + 8 + 4096; };
  std::vector<std::uint64_t> warm(n);
  const auto [stream_reused, plain_warm] = sm::run_alternating(
      trials, [&] { stream_once(client, server, a64, reused, plain.back()); },
      [&] { plain_once(client, server, plain, warm.data()); });
  const auto [stream_new, plain_fresh] = sm::run_alternating(
      trials, [&] { stream_once(client, server, a64, new_region(huge), plain.back()); },
      [&] { plain_once(client, server, plain, nullptr); });
  const sm::Timing ten_bit = sm::run_trials(trials, [&] { stream_once(client, server, a10, reused, plain.back()); });
  const sm::Timing small = sm::run_trials(trials, [&] { stream_once(client, server, a64, new_region(small_pages), plain.back()); });
  ::close(client);
  ::close(server);
  return {{"store stream, 10-bit", wire(a10), ten_bit},
          {"store stream, 64-bit", wire(a64), stream_reused},
          {"store stream, 64-bit, new region", wire(a64), stream_new},
          {"  new region, 4K pages", wire(a64), small},
          {"plain send(), warm buffer", n * 8, plain_warm},
          {"plain send(), fresh buffer", n * 8, plain_fresh}};
}

// ---- output ----

void print_open(const Config& cfg, const OpenResult& o) {
  std::cout << "\nopen + first value of a " << mib(static_cast<double>(o.bytes)) << " store (64-bit array), median of "
            << cfg.repetitions << ", page cache warm:\n";
  std::cout << std::left << std::setw(30) << "path" << std::right << std::setw(14) << "median s" << std::setw(10) << "spread\n";
  auto line = [](const std::string& name, const sm::Timing& t) {
    std::cout << std::left << std::setw(30) << name << std::right << std::setw(14) << std::setprecision(6) << t.median
              << std::setw(9) << std::setprecision(2) << t.spread() << "\n";
  };
  line("compact, mapped", o.mapped);
  line("compact, loaded", o.loaded);
  line("read() into memory", o.read);
  std::cout << "target: mapped <= 1 ms: " << std::setprecision(3) << o.mapped.median * 1e3 << " ms\n";
}

void print_graph(const Config& cfg, const GraphResult& g) {
  std::cout << "\nR-MAT 2^" << cfg.scale << " (" << g.vertices << " vertices, " << g.edges
            << " edges, V+E): loading (file to a graph ready to use) and file to the end of the first PageRank "
               "iteration, medians\n";
  std::cout << std::left << std::setw(24) << "from" << std::right << std::setw(12) << "file size" << std::setw(11)
            << "load s" << std::setw(8) << "spread" << std::setw(9) << "vs .sg" << std::setw(15) << "1st iter s"
            << std::setw(8) << "spread" << std::setw(9) << "vs .sg\n";
  auto gline = [&](const std::string& name, std::uint64_t bytes, const sm::Timing* load, const sm::Timing& t) {
    std::cout << std::defaultfloat << std::left << std::setw(24) << name << std::right << std::setw(12)
              << mib(static_cast<double>(bytes));
    if (load != nullptr) {
      std::cout << std::setw(11) << std::setprecision(4) << load->median << std::setw(8) << std::setprecision(2)
                << load->spread() << std::fixed << std::setw(8) << std::setprecision(1) << g.load_sg.median / load->median
                << "x" << std::defaultfloat;
    } else {
      std::cout << std::setw(27) << "-";
    }
    std::cout << std::setw(15) << std::setprecision(4) << t.median << std::setw(8) << std::setprecision(2) << t.spread()
              << std::fixed << std::setw(8) << std::setprecision(1) << g.sg.median / t.median << "x\n";
  };
  gline("compact (.sa), mapped", g.sa_bytes, &g.load_mapped, g.compact_mapped);
  gline("compact (.sa), loaded", g.sa_bytes, &g.load_loaded, g.compact_loaded);
  gline("GAP .sg", g.sg_bytes, &g.load_sg, g.sg);
  if (!cfg.skip_edge_list) gline("edge list (.el)", g.el_bytes, nullptr, g.el);
  std::cout << "targets: loading from .sa >= 20x faster than .sg: mapped " << std::setprecision(1)
            << g.load_sg.median / g.load_mapped.median << "x, loaded " << g.load_sg.median / g.load_loaded.median
            << "x (to the end of the first iteration: " << g.sg.median / g.compact_mapped.median << "x and "
            << g.sg.median / g.compact_loaded.median << "x)\n";
  std::cout << "\nPageRank per iteration (" << cfg.iterations << " per run, alternating, warm): mapped "
            << std::setprecision(5) << g.pagerank_mapped.median << " s, in memory " << g.pagerank_memory.median
            << " s; mapped / memory = " << std::setprecision(3) << g.pagerank_mapped.median / g.pagerank_memory.median
            << " (target <= 1.10)\n";
}

void print_send(const Config& cfg, const std::vector<SendResult>& s) {
  std::cout << "\nsending 2^" << cfg.send_log2 << " values over loopback TCP (receiver in another thread):\n";
  std::cout << std::left << std::setw(30) << "what" << std::right << std::setw(14) << "wire bytes" << std::setw(12)
            << "median s" << std::setw(12) << "MiB/s" << std::setw(14) << "values/s (M)\n";
  const double n = std::ldexp(1.0, static_cast<int>(cfg.send_log2));
  for (const SendResult& r : s) {
    std::cout << std::left << std::setw(30) << r.what << std::right << std::setw(14) << mib(static_cast<double>(r.wire_bytes))
              << std::setw(12) << std::setprecision(4) << r.timing.median << std::setw(12) << std::setprecision(0)
              << static_cast<double>(r.wire_bytes) / r.timing.median / (1 << 20) << std::setw(13) << std::setprecision(0)
              << n / r.timing.median / 1e6 << "\n";
  }
  auto rate = [](const SendResult& r) { return static_cast<double>(r.wire_bytes) / r.timing.median; };
  const SendResult& warm = s[4];
  const SendResult& fresh = s[5];
  std::cout << "targets: 64-bit stream throughput / raw (>= 0.8): " << std::setprecision(2) << rate(s[1]) / rate(warm)
            << " (reused region vs a warm buffer), " << rate(s[2]) / rate(fresh)
            << " (new region vs a fresh buffer); 10-bit moves " << std::setprecision(1)
            << static_cast<double>(warm.wire_bytes) / static_cast<double>(s[0].wire_bytes) << "x fewer bytes (>= 5)\n";
}

sm::Json open_json(const OpenResult& o) {
  return {{"file_bytes", o.bytes},
                                       {"compact_mapped", sm::timing_json(o.mapped)},
                                       {"compact_loaded", sm::timing_json(o.loaded)},
                                       {"read_into_memory", sm::timing_json(o.read)}};
}

sm::Json graph_json(const Config& cfg, const GraphResult& g) {
  sm::Json graph{{"vertices", g.vertices},
                 {"edges", g.edges},
                 {"file_bytes", {{"compact", g.sa_bytes}, {"sg", g.sg_bytes}, {"edge_list", g.el_bytes}}},
                 {"load",
                  {{"compact_mapped", sm::timing_json(g.load_mapped)},
                   {"compact_loaded", sm::timing_json(g.load_loaded)},
                   {"sg", sm::timing_json(g.load_sg)}}},
                 {"to_first_iteration",
                  {{"compact_mapped", sm::timing_json(g.compact_mapped)},
                   {"compact_loaded", sm::timing_json(g.compact_loaded)},
                   {"sg", sm::timing_json(g.sg)}}},
                 {"pagerank_per_iteration",
                  {{"mapped", sm::timing_json(g.pagerank_mapped)}, {"in_memory", sm::timing_json(g.pagerank_memory)}}}};
  if (!cfg.skip_edge_list) graph["to_first_iteration"]["edge_list"] = sm::timing_json(g.el);
  return graph;
}

sm::Json send_json(const std::vector<SendResult>& s) {
  sm::Json sends = sm::Json::array();
  for (const SendResult& r : s) sends.push_back({{"what", r.what}, {"wire_bytes", r.wire_bytes}, {"timing", sm::timing_json(r.timing)}});
  return sends;
}

}  // namespace

int main(int argc, char** argv) {
  Config cfg;
  if (const int rc = parse(argc, argv, cfg); rc >= 0) return rc;
  try {
    std::filesystem::create_directories(cfg.dir);
    sa::runtime::ThreadPool pool(sa::runtime::PoolOptions{.threads = cfg.threads});
    sm::Report report("smartarrays.bench.store/1");
    report.fields["config"] = {{"array_mib", cfg.array_mib}, {"scale", cfg.scale}, {"edge_factor", cfg.edge_factor},
                               {"send_log2", cfg.send_log2}, {"iterations", cfg.iterations},
                               {"repetitions", cfg.repetitions}, {"threads", cfg.threads}, {"parts", cfg.parts}};
    std::cout << std::fixed;
    if (cfg.has("open")) {
      std::cerr << "open + first value\n";
      const OpenResult open = bench_open(cfg, pool);
      print_open(cfg, open);
      report.fields["open_first_value"] = open_json(open);
    }
    if (cfg.has("graph")) {
      const GraphResult graph = bench_graph(cfg, pool);
      print_graph(cfg, graph);
      report.fields["graph"] = graph_json(cfg, graph);
    }
    if (cfg.has("send")) {
      std::cerr << "sending\n";
      const std::vector<SendResult> sends = bench_send(cfg, pool);
      print_send(cfg, sends);
      report.fields["send"] = send_json(sends);
    }
    const std::string path = sm::result_path(cfg.out_dir, "bench_store");
    sm::write_report(report, path);
    std::cout << "\nresults: " << path << "\n";
    std::filesystem::remove_all(cfg.dir);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "bench_store: " << e.what() << "\n";
    return 1;
  }
}
