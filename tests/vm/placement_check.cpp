// Owns the multi-node placement check that runs as the only process of an emulated NUMA guest
// (tests/vm/run-numa-vm.sh): every placement promise of docs/topology-and-placement.md, for memory regions and
// SmartArrays, verified with move_pages on a real multi-node kernel (including that partition-aware
// loops run each stripe's batches on its node's workers, reading pages of that node), and the knobs of
// `smartarrays run` (docs/tune.md) checked from inside a child launched under them (this program
// again, as a probe). Prints one line per check.
//
// usage: placement_check --nodes N [--distance-step S]
//   N: NUMA nodes the guest was given; S: the guest's SLIT distance is 10 + S*|i-j|.
//        placement_check --probe-launch   (the child: prints what it was launched with)
#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "smartarrays/algo/aggregate.hpp"
#include "smartarrays/array/smart_array.hpp"
#include "smartarrays/build/parallel_build.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/memory_region.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/tune/spawn.hpp"

namespace {

using smartarrays::ArrayOptions;
using smartarrays::Error;
using smartarrays::ErrorCode;
using smartarrays::Placement;
using smartarrays::SmartArray;
using smartarrays::os::HugePages;
using smartarrays::os::MemoryPolicy;
using smartarrays::os::MemoryRegion;
using smartarrays::os::RegionOptions;
using smartarrays::os::topology;

constexpr std::size_t kRegionBytes = std::size_t{16} << 20;
constexpr std::size_t kHugePage = std::size_t{2} << 20;

int failures = 0;

void report(bool ok, const std::string& line) {
  std::printf("%s %s\n", ok ? "PASS" : "FAIL", line.c_str());
  std::fflush(stdout);
  if (!ok) ++failures;
}

std::size_t os_node(int node) { return static_cast<std::size_t>(topology().node(static_cast<std::size_t>(node)).os_node); }

std::uint64_t at(const std::vector<std::uint64_t>& counts, std::size_t os) { return os < counts.size() ? counts[os] : 0; }

std::uint64_t total(const std::vector<std::uint64_t>& counts) {
  std::uint64_t sum = 0;
  for (std::uint64_t c : counts) sum += c;
  return sum;
}

std::string show(const std::vector<std::uint64_t>& counts) {
  std::string text = "[";
  for (std::size_t os = 0; os < counts.size(); ++os) {
    if (os > 0) text += ' ';
    text.append("node").append(std::to_string(os)).append("=").append(std::to_string(counts[os]));
  }
  return text + "]";
}

std::string show(const std::vector<int>& nodes) {
  std::string text;
  for (int node : nodes) {
    if (!text.empty()) text += ',';
    text += std::to_string(node);
  }
  return text;
}

std::vector<int> all_nodes() {
  std::vector<int> nodes(topology().node_count());
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i] = static_cast<int>(i);
  return nodes;
}

RegionOptions region_options(MemoryPolicy policy, std::vector<int> nodes, bool huge = false) {
  RegionOptions options;
  options.policy = policy;
  options.nodes = std::move(nodes);
  options.huge_pages = huge ? HugePages::on : HugePages::off;
  return options;
}

// Runs body on a thread pinned to node, so first touch and local reads happen there.
template <typename Body>
void on_node(int node, Body body) {
  std::thread thread([node, &body] {
    smartarrays::os::pin_current_thread_to_node(node);
    body();
  });
  thread.join();
}

void check_topology(std::size_t expected_nodes, unsigned distance_step) {
  const auto& t = topology();
  report(!t.is_fake() && t.node_count() == expected_nodes,
         "topology: " + std::to_string(t.node_count()) + " nodes from sysfs, expected " +
             std::to_string(expected_nodes));
  for (std::size_t i = 0; i < t.node_count(); ++i) {
    const auto& node = t.node(i);
    report(!node.cpus.empty() && node.memory_total > 0,
           "node " + std::to_string(i) + ": kernel node " + std::to_string(node.os_node) + ", " +
               std::to_string(node.cpus.size()) + " cpus, " + std::to_string(node.memory_total >> 20) + " MiB");
    if (distance_step == 0) continue;
    std::string row;
    bool ok = true;
    for (std::size_t j = 0; j < t.node_count(); ++j) {
      const std::uint32_t expected = 10 + distance_step * static_cast<std::uint32_t>(i > j ? i - j : j - i);
      ok = ok && t.distance(i, j) == expected;
      row.append(" ").append(std::to_string(t.distance(i, j)));
    }
    report(ok, "distances from node " + std::to_string(i) + ":" + row);
  }
}

void check_pinning() {
  for (int node : all_nodes()) {
    on_node(node, [node] {
      const int cpu = sched_getcpu();
      const auto& cpus = topology().node(static_cast<std::size_t>(node)).cpus;
      const bool on_node_cpu = std::find(cpus.begin(), cpus.end(), cpu) != cpus.end();
      report(on_node_cpu && smartarrays::os::current_node() == node,
             "pin to node " + std::to_string(node) + ": runs on cpu " + std::to_string(cpu) + ", current_node " +
                 std::to_string(smartarrays::os::current_node()));
    });
  }
}

void check_single_node(int node, bool huge) {
  const MemoryRegion region = MemoryRegion::allocate(kRegionBytes, region_options(MemoryPolicy::bind, {node}, huge));
  const auto counts = region.pages_per_node();
  const std::uint64_t pages = region.mapped_bytes() / MemoryRegion::page_size();
  report(at(counts, os_node(node)) == pages && total(counts) == pages,
         std::string("region bind(") + std::to_string(node) + (huge ? ", huge pages" : "") + "): " +
             std::to_string(at(counts, os_node(node))) + "/" + std::to_string(pages) + " pages on node " +
             std::to_string(node) + " " + show(counts));
}

void check_first_touch(int node) {
  on_node(node, [node] {
    const MemoryRegion region = MemoryRegion::allocate(kRegionBytes, region_options(MemoryPolicy::os_default, {}));
    const auto counts = region.pages_per_node();
    const std::uint64_t pages = region.mapped_bytes() / MemoryRegion::page_size();
    report(at(counts, os_node(node)) == pages,
           "region os_default pre-faulted by a thread on node " + std::to_string(node) + ": " +
               std::to_string(at(counts, os_node(node))) + "/" + std::to_string(pages) + " pages there " +
               show(counts));
  });
}

// Interleaving is checked page by page: page i must sit on nodes[(i + phase) % n] for one phase,
// since the kernel's round robin need not start at the first node.
void check_interleave(const std::vector<int>& nodes) {
  const MemoryRegion region = MemoryRegion::allocate(kRegionBytes, region_options(MemoryPolicy::interleave, nodes));
  const std::size_t page = MemoryRegion::page_size();
  const std::uint64_t pages = region.mapped_bytes() / page;
  const auto counts = region.pages_per_node();
  const std::vector<int> listed = nodes.empty() ? all_nodes() : nodes;
  const std::uint64_t share = pages / listed.size();
  bool fair = total(counts) == pages;
  for (int node : listed) {
    const std::uint64_t held = at(counts, os_node(node));
    fair = fair && held + 1 >= share && held <= share + 1;
  }

  std::vector<std::size_t> page_node(pages);
  for (std::uint64_t i = 0; i < pages; ++i) {
    const auto one = region.pages_per_node(i * page, (i + 1) * page);
    page_node[i] = static_cast<std::size_t>(std::find(one.begin(), one.end(), 1u) - one.begin());
  }
  std::size_t phase = listed.size();
  for (std::size_t p = 0; p < listed.size(); ++p) {
    if (os_node(listed[p]) == page_node[0]) phase = p;
  }
  std::uint64_t out_of_order = phase == listed.size() ? pages : 0;
  for (std::uint64_t i = 0; i < pages && phase < listed.size(); ++i) {
    if (page_node[i] != os_node(listed[(i + phase) % listed.size()])) ++out_of_order;
  }
  report(fair && out_of_order == 0, "region interleave(" + (nodes.empty() ? std::string("all") : show(nodes)) +
                                        "): " + std::to_string(pages) + " pages, share " + std::to_string(share) +
                                        " each, " + std::to_string(out_of_order) +
                                        " out of round-robin order " + show(counts));
}

void check_partition(const std::vector<int>& nodes, bool huge) {
  const MemoryRegion region =
      MemoryRegion::allocate(kRegionBytes + 12345, region_options(MemoryPolicy::partition, nodes, huge));
  const std::size_t page = MemoryRegion::page_size();
  const std::string name = std::string("region partition(") + (nodes.empty() ? "all" : show(nodes)) +
                           (huge ? ", huge pages" : "") + ")";
  const std::vector<int> listed = nodes.empty() ? all_nodes() : nodes;
  report(region.stripes().size() == listed.size(),
         name + ": " + std::to_string(region.stripes().size()) + " stripes for " + std::to_string(listed.size()) +
             " nodes");
  for (std::size_t k = 0; k < region.stripes().size(); ++k) {
    const auto& stripe = region.stripes()[k];
    const auto counts = region.pages_per_node(stripe.begin, stripe.end);
    const std::uint64_t pages = (stripe.end - stripe.begin) / page;
    report(stripe.node == listed[k] && pages > 0 && at(counts, os_node(stripe.node)) == pages,
           name + " stripe " + std::to_string(k) + " [" + std::to_string(stripe.begin) + ", " +
               std::to_string(stripe.end) + "): " + std::to_string(at(counts, os_node(stripe.node))) + "/" +
               std::to_string(pages) + " pages on node " + std::to_string(stripe.node) + " " + show(counts));
  }
}

void check_bad_node() {
  const int missing = static_cast<int>(topology().node_count());
  try {
    MemoryRegion::allocate(kRegionBytes, region_options(MemoryPolicy::bind, {missing}));
    report(false, "region bind(" + std::to_string(missing) + "): accepted a node that does not exist");
  } catch (const Error& e) {
    report(e.code() == ErrorCode::invalid_argument, "region bind(" + std::to_string(missing) + "): " + e.what());
  }
}

ArrayOptions array_options(Placement placement, int node = 0) {
  ArrayOptions options;
  options.placement = placement;
  options.node = node;
  options.bits = 17;
  // Base pages: the fairness checks count pages, and THP would interleave and stripe in 2 MiB units.
  options.huge_pages = HugePages::off;
  return options;
}

constexpr std::uint64_t kArrayLength = std::uint64_t{1} << 21;

std::uint64_t value_at(std::uint64_t i) { return (i * 2654435761u) & ((1u << 17) - 1); }

void fill(SmartArray& array) {
  for (std::uint64_t i = 0; i < array.length(); ++i) array.init(i, value_at(i));
}

// Replicated: replica r is bound to node r and serves the threads of node r.
void check_replicated_array() {
  SmartArray array = SmartArray::allocate(kArrayLength, array_options(Placement::replicated));
  fill(array);
  const auto pages = array.pages_per_node();
  const std::size_t nodes = topology().node_count();
  report(array.replicas() == nodes, "array replicated: " + std::to_string(array.replicas()) + " replicas for " +
                                        std::to_string(nodes) + " nodes");
  for (std::size_t r = 0; r < array.replicas() && r < pages.size(); ++r) {
    const int node = array.replica_node(r);
    const std::uint64_t held = node < 0 ? 0 : at(pages[r], os_node(node));
    report(node == static_cast<int>(r) && held == total(pages[r]) && held > 0,
           "array replicated replica " + std::to_string(r) + ": bound to node " + std::to_string(node) + ", " +
               std::to_string(held) + "/" + std::to_string(total(pages[r])) + " pages there " + show(pages[r]));
  }
  for (int node : all_nodes()) {
    on_node(node, [&array, node] {
      const std::size_t local = array.local_replica_index();
      bool values_ok = true;
      for (std::uint64_t i = 0; i < array.length(); i += 4099) values_ok = values_ok && array.get(i) == value_at(i);
      report(local == static_cast<std::size_t>(node) && values_ok,
             "array replicated read from node " + std::to_string(node) + ": local replica " + std::to_string(local) +
                 (values_ok ? ", values match" : ", VALUES DIFFER"));
    });
  }
}

void check_single_node_array(int node) {
  SmartArray array = SmartArray::allocate(kArrayLength, array_options(Placement::single_node, node));
  const auto pages = array.pages_per_node();
  const std::uint64_t held = pages.size() == 1 ? at(pages[0], os_node(node)) : 0;
  report(pages.size() == 1 && held == total(pages[0]) && held > 0,
         "array single_node(" + std::to_string(node) + "): " + std::to_string(held) + " pages on node " +
             std::to_string(node) + " " + (pages.empty() ? std::string("[]") : show(pages[0])));
}

// Arrays spread over all nodes: each node holds its fair share (a page or a stripe unit of slack).
void check_spread_array(Placement placement) {
  SmartArray array = SmartArray::allocate(kArrayLength, array_options(placement));
  const auto pages = array.pages_per_node();
  if (pages.size() != 1) {
    report(false, std::string("array ") + smartarrays::to_string(placement) + ": " + std::to_string(pages.size()) +
                      " replicas, expected 1");
    return;
  }
  const std::vector<int> nodes = all_nodes();
  const std::uint64_t share = total(pages[0]) / nodes.size();
  bool fair = true;
  for (int node : nodes) {
    const std::uint64_t held = at(pages[0], os_node(node));
    fair = fair && held + 1 >= share && held <= share + 1;
  }
  report(fair, std::string("array ") + smartarrays::to_string(placement) + ": " + std::to_string(total(pages[0])) +
                   " pages, share " + std::to_string(share) + " each " + show(pages[0]));
}

void check_partitioned_array() {
  SmartArray array = SmartArray::allocate(kArrayLength, array_options(Placement::partitioned));
  const auto pages = array.pages_per_node();
  const auto parts = array.partitions();
  bool ok = pages.size() == 1 && parts.size() == topology().node_count();
  for (std::size_t k = 0; ok && k < parts.size(); ++k) ok = parts[k].node == static_cast<int>(k);
  check_spread_array(Placement::partitioned);
  report(ok, "array partitioned: " + std::to_string(parts.size()) + " partitions, partition k on node k");
}

// The kernel node of the page holding p (move_pages query mode), -1 when the query fails.
int kernel_node_of(const void* p) {
  const std::uintptr_t page = reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t{4095};
  void* pages[1] = {reinterpret_cast<void*>(page)};
  int status[1] = {-1};
  if (::syscall(SYS_move_pages, 0, 1UL, pages, nullptr, status, 0) != 0) return -1;
  return status[0];
}

// The pages where the chunks of batch start (a chunk belongs to the stripe of its first word), in
// array: how many were checked, and how many are not on kernel node os.
std::pair<std::uint64_t, std::uint64_t> pages_off_node(const SmartArray& array, const smartarrays::runtime::Batch& batch,
                                                       int os) {
  const std::uint64_t* words = array.replica(0);
  const std::uint64_t bits = array.bits();
  std::uint64_t checked = 0, elsewhere = 0, last_page = ~std::uint64_t{0};
  for (std::uint64_t chunk = batch.lo / 64; chunk * 64 < batch.hi; ++chunk) {
    const std::uint64_t page = chunk * bits / 512;
    if (page == last_page) continue;
    last_page = page;
    ++checked;
    elsewhere += kernel_node_of(words + chunk * bits) != os ? 1 : 0;
  }
  return {checked, elsewhere};
}

// Partition-aware loops over partitioned arrays, traced: the aggregation (which steals once a node's
// stripes run dry) reads only pages of the worker's node in its own-stripe batches and takes them
// before any stolen one; a loop over the stripes without stealing has every node's workers read
// their own stripe, all of whose pages are on their node.
void check_partition_aware_loop() {
  SmartArray a1 = SmartArray::allocate(kArrayLength, array_options(Placement::partitioned));
  SmartArray a2 = SmartArray::allocate(kArrayLength, array_options(Placement::partitioned));
  fill(a1);
  fill(a2);
  smartarrays::runtime::ThreadPool pool;
  smartarrays::runtime::LoopTrace trace;
  pool.trace(&trace);
  const std::uint64_t sum = smartarrays::algo::aggregate(a1, a2, pool);
  smartarrays::runtime::LoopOptions own_stripes_only;
  own_stripes_only.layout = smartarrays::build::stripe_parts(a1);
  own_stripes_only.steal = false;
  std::atomic<std::uint64_t> own_sum{0};
  pool.parallel_for(0, kArrayLength, [&](std::uint64_t lo, std::uint64_t hi) { own_sum += a1.sum(lo, hi - lo); },
                    own_stripes_only);
  pool.trace(nullptr);
  std::uint64_t expected = 0;
  for (std::uint64_t i = 0; i < kArrayLength; ++i) expected += value_at(i);
  report(sum == 2 * expected && own_sum == expected && trace.loops.size() == 2,
         std::string("partition-aware loops: sums ") + (sum == 2 * expected && own_sum == expected ? "match" : "DIFFER"));
  if (trace.loops.size() != 2) return;
  for (std::size_t k = 0; k < 2; ++k) {
    const auto& loop = trace.loops[k];
    const std::string what = k == 0 ? "aggregation (stealing)" : "stripe loop (no stealing)";
    std::vector<std::uint64_t> local(topology().node_count(), 0), stolen(topology().node_count(), 0);
    std::uint64_t checked = 0, elsewhere = 0, late = 0;
    for (std::size_t w = 0; w < loop.by_worker.size(); ++w) {
      const int node = loop.worker_nodes[w];
      bool stole = false;
      for (const smartarrays::runtime::Batch& batch : loop.by_worker[w]) {
        if (batch.node != node) {
          stole = true;
          ++stolen[static_cast<std::size_t>(node)];
          continue;
        }
        late += stole ? 1 : 0;
        ++local[static_cast<std::size_t>(node)];
        for (const SmartArray* array : {&a1, &a2}) {
          const auto [pages, off] = pages_off_node(*array, batch, static_cast<int>(os_node(node)));
          checked += pages;
          elsewhere += off;
        }
      }
    }
    report(checked > 0 && elsewhere == 0 && late == 0,
           "partition-aware " + what + ": " + std::to_string(checked) + " pages read by own-stripe batches, " +
               std::to_string(elsewhere) + " on another node than their worker's, " + std::to_string(late) +
               " own batches after stealing");
    for (int node : all_nodes()) {
      const auto n = static_cast<std::size_t>(node);
      // Without stealing every node's workers must run their own stripe; with it, a node's workers
      // may start after the others took everything (the loop ends when its batches are done).
      report(k == 0 || local[n] > 0, "partition-aware " + what + ": node " + std::to_string(node) + " workers ran " +
                                         std::to_string(local[n]) + " batches of their own stripe, stole " +
                                         std::to_string(stolen[n]));
    }
  }
}

// The SmartArray layer's placements, through its public API (docs/topology-and-placement.md#array-placements).
void check_smart_array_placement() {
  check_replicated_array();
  for (int node : all_nodes()) check_single_node_array(node);
  check_spread_array(Placement::interleaved);
  check_partitioned_array();
  check_partition_aware_loop();
}

// The child of check_launch: its memory policy, node mask, CPUs, the node of a page it touched
// and whether THP is off, as "mode=M mask=W cpus=A,B page_node=N thp_disabled=T".
int probe_launch() {
  int mode = -1;
  unsigned long mask = 0;
  ::syscall(SYS_get_mempolicy, &mode, &mask, 64UL, nullptr, 0UL);
  const std::size_t bytes = std::size_t{1} << 20;
  void* page = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) return 1;
  std::memset(page, 1, bytes);
  int page_node = -1;
  ::syscall(SYS_get_mempolicy, &page_node, nullptr, 0UL, page, MPOL_F_NODE | MPOL_F_ADDR);
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  ::sched_getaffinity(0, sizeof cpus, &cpus);
  std::string cpu_list;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &cpus)) cpu_list.append(cpu_list.empty() ? "" : ",").append(std::to_string(c));
  }
  std::printf("mode=%d mask=%lu cpus=%s page_node=%d thp_disabled=%d\n", mode, mask, cpu_list.c_str(), page_node,
              ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
  return 0;
}

// Launches the probe under options as `smartarrays run` would and compares its report with expected.
void check_launch(const std::string& what, const smartarrays::tune::LaunchOptions& options, const std::string& expected) {
  const smartarrays::tune::Launch launch = smartarrays::tune::prepare_launch(options, topology());
  const smartarrays::tune::ChildRun run = smartarrays::tune::run_child(launch, {"/proc/self/exe", "--probe-launch"}, 60, true);
  std::string output = run.output.substr(0, run.output.find('\n'));
  // Interleaving picks a page's node from its offset in the mapping, so any node is right there.
  const std::size_t node_at = output.find("page_node="), node_end = output.find(' ', node_at);
  if (expected.find("page_node=any") != std::string::npos && node_at != std::string::npos) {
    output.replace(node_at + 10, node_end - node_at - 10, "any");
  }
  report(run.succeeded() && output == expected, "run " + what + ": child reports '" + output + "', expected '" + expected + "'");
}

std::string cpus_of(const std::vector<int>& cpus) { return show(cpus); }

// The knobs of `smartarrays run`, checked from inside a launched child (docs/tune.md).
void check_launch_knobs() {
  namespace tune = smartarrays::tune;
  const int last = static_cast<int>(topology().node_count()) - 1;
  const std::string last_os = std::to_string(os_node(last));
  const std::string all_cpus = cpus_of(topology().all_cpus());
  tune::LaunchOptions bind;
  bind.policy = tune::parse_memory_policy("bind=" + std::to_string(last));
  check_launch("--policy bind=" + std::to_string(last), bind,
               "mode=" + std::to_string(MPOL_BIND) + " mask=" + std::to_string(1UL << os_node(last)) + " cpus=" + all_cpus +
                   " page_node=" + last_os + " thp_disabled=0");
  tune::LaunchOptions preferred;
  preferred.policy = tune::parse_memory_policy("preferred=1");
  check_launch("--policy preferred=1", preferred,
               "mode=" + std::to_string(MPOL_PREFERRED) + " mask=" + std::to_string(1UL << os_node(1)) + " cpus=" + all_cpus +
                   " page_node=" + std::to_string(os_node(1)) + " thp_disabled=0");
  unsigned long all_mask = 0;
  for (int node : all_nodes()) all_mask |= 1UL << os_node(node);
  tune::LaunchOptions dense;
  dense.policy = tune::parse_memory_policy("interleave");
  dense.pinning = smartarrays::runtime::PinPolicy::dense;
  dense.threads = 1;
  dense.thp = false;
  const int first_cpu = topology().node(0).cpus.front();
  check_launch("--policy interleave --pinning dense --threads 1 --thp off", dense,
               "mode=" + std::to_string(MPOL_INTERLEAVE) + " mask=" + std::to_string(all_mask) + " cpus=" +
                   std::to_string(first_cpu) + " page_node=any thp_disabled=1");
  tune::LaunchOptions sparse;
  sparse.pinning = smartarrays::runtime::PinPolicy::sparse;
  sparse.threads = 2;
  sparse.policy = tune::parse_memory_policy("bind=0");
  check_launch("--policy bind=0 --pinning sparse --threads 2", sparse,
               "mode=" + std::to_string(MPOL_BIND) + " mask=" + std::to_string(1UL << os_node(0)) + " cpus=" +
                   cpus_of({first_cpu, topology().node(1).cpus.front()}) + " page_node=" + std::to_string(os_node(0)) +
                   " thp_disabled=0");
  tune::LaunchOptions local;
  local.cpus = {topology().node(static_cast<std::size_t>(last)).cpus.front()};
  local.policy = tune::parse_memory_policy("localalloc");
  check_launch("--policy localalloc --cpus " + std::to_string(local.cpus[0]), local,
               "mode=" + std::to_string(MPOL_LOCAL) + " mask=0 cpus=" + std::to_string(local.cpus[0]) +
                   " page_node=" + last_os + " thp_disabled=0");
}

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr, "placement_check: %s\nusage: placement_check --nodes N [--distance-step S]\n", why);
  std::exit(2);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && std::strcmp(argv[1], "--probe-launch") == 0) return probe_launch();
  long nodes = 0;
  long distance_step = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (i + 1 >= argc) usage(("missing value after " + arg).c_str());
    char* end = nullptr;
    const long value = std::strtol(argv[++i], &end, 10);
    if (*end != '\0' || value <= 0) usage(("bad value for " + arg).c_str());
    if (arg == "--nodes") {
      nodes = value;
    } else if (arg == "--distance-step") {
      distance_step = value;
    } else {
      usage(("unknown option " + arg).c_str());
    }
  }
  if (nodes <= 0) usage("--nodes is required");

  try {
    check_topology(static_cast<std::size_t>(nodes), static_cast<unsigned>(distance_step));
    check_pinning();
    for (int node : all_nodes()) {
      check_single_node(node, false);
      check_single_node(node, true);
      check_first_touch(node);
    }
    check_interleave({});
    std::vector<int> odd;
    for (int node : all_nodes()) {
      if (node % 2 == 1) odd.push_back(node);
    }
    check_interleave(odd);
    check_partition({}, false);
    std::vector<int> reversed = all_nodes();
    std::reverse(reversed.begin(), reversed.end());
    check_partition(reversed, false);
    check_partition({}, true);
    check_bad_node();
    check_smart_array_placement();
    check_launch_knobs();
  } catch (const std::exception& e) {
    report(false, std::string("unexpected exception: ") + e.what());
  }
  std::printf("placement_check: %d failure%s\n", failures, failures == 1 ? "" : "s");
  return failures == 0 ? 0 : 1;
}
