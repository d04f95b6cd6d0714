// Tests of the tune layer's launch preparation: allocator names and library search, memory policy
// spellings, the CPU sets of sparse and dense pinning, the resolved launch and its environment.
#include <gtest/gtest.h>
#include <linux/mempolicy.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/tune/launch.hpp"
#include "tune/library_search.hpp"

namespace {

using namespace smartarrays;
using tune::Allocator;
using tune::PolicyKind;

os::Topology two_by_two() {
  return os::Topology::from_nodes({{0, 0, {0, 1}, 1 << 30, 1 << 29}, {1, 1, {2, 3}, 1 << 30, 1 << 29}});
}

bool has_entry(const std::vector<std::string>& environment, const std::string& entry) {
  for (const std::string& e : environment) {
    if (e == entry) return true;
  }
  return false;
}

// Sets an environment variable for one test and restores it after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    ::setenv(name, value, 1);
  }
  ~ScopedVariable() { had_ ? ::setenv(name_, old_.c_str(), 1) : ::unsetenv(name_); }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  const char* name_;
  bool had_ = false;
  std::string old_;
};

TEST(Allocators, NamesParseInAnyCaseWithThePtmallocAlias) {
  EXPECT_EQ(tune::parse_allocator("TBBmalloc"), Allocator::tbbmalloc);
  EXPECT_EQ(tune::parse_allocator("ptmalloc"), Allocator::glibc);
  EXPECT_EQ(tune::allocator_name(Allocator::mimalloc), "mimalloc");
  try {
    tune::parse_allocator("hoard");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    EXPECT_STREQ(e.what(), "unknown allocator 'hoard' (expected one of: glibc, jemalloc, tcmalloc, mimalloc, tbbmalloc)");
  }
}

TEST(Allocators, GlibcPreloadsNothingAndEveryOtherNamesItsDebianPackage) {
  EXPECT_EQ(tune::find_allocator_library(Allocator::glibc), "");
  EXPECT_EQ(tune::allocator_library(Allocator::jemalloc).package, "libjemalloc2");
  EXPECT_EQ(tune::allocator_library(Allocator::tcmalloc).package, "libtcmalloc-minimal4");
  EXPECT_EQ(tune::allocator_library(Allocator::mimalloc).package, "libmimalloc2.0");
  EXPECT_EQ(tune::allocator_library(Allocator::tbbmalloc).package, "libtbbmalloc2");
}

TEST(Allocators, AMissingLibraryNamesItsDebianPackage) {
  try {
    tune::allocator_path(Allocator::tbbmalloc, {"/nonexistent"});
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::unsupported);
    EXPECT_STREQ(e.what(), "tbbmalloc needs the Debian package libtbbmalloc2 (apt-get install libtbbmalloc2): "
                           "libtbbmalloc_proxy.so.2 is not where the dynamic loader looks");
  }
  EXPECT_EQ(tune::allocator_path(Allocator::glibc, {}), "");
}

TEST(LibrarySearch, LdLibraryPathComesFirstThenTheLoaderConfiguration) {
  const ScopedVariable path("LD_LIBRARY_PATH", "/first:/second");
  const std::vector<std::string> dirs = tune::loader_directories();
  ASSERT_GE(dirs.size(), 3u);
  EXPECT_EQ(dirs[0], "/first");
  EXPECT_EQ(dirs[1], "/second");
  EXPECT_EQ(dirs.back(), "/usr/lib");
}

TEST(LibrarySearch, OnlyALoadableSharedObjectIsFound) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / ("sa-libsearch-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "fake");
  std::filesystem::create_directories(dir / "real");
  std::ofstream(dir / "fake" / "libdemo.so.1") << "not an ELF file";
  // Any shared object this process loads will do: the C library's.
  const std::string libc = tune::find_in_directories("libc.so.6", tune::loader_directories());
  ASSERT_FALSE(libc.empty());
  std::filesystem::copy_file(libc, dir / "real" / "libdemo.so.1");
  EXPECT_EQ(tune::find_in_directories("libdemo.so.1", {(dir / "fake").string()}), "");
  EXPECT_EQ(tune::find_in_directories("libdemo.so.1", {(dir / "missing").string(), (dir / "fake").string(),
                                                        (dir / "real").string()}),
            (dir / "real" / "libdemo.so.1").string());
  std::filesystem::remove_all(dir);
}

TEST(MemoryPolicies, EverySpellingParsesAndFormatsBack) {
  for (const char* text : {"first-touch", "interleave", "interleave=0-1", "localalloc", "preferred=1", "bind=0", "bind=0-1"}) {
    EXPECT_EQ(tune::format_memory_policy(tune::parse_memory_policy(text)), text);
  }
  EXPECT_EQ(tune::parse_memory_policy("default").kind, PolicyKind::first_touch);
  EXPECT_EQ(tune::parse_memory_policy("interleave=1,0").nodes, (std::vector<int>{0, 1}));
}

TEST(MemoryPolicies, BadSpellingsNameTheText) {
  for (const char* text : {"preferred", "bind", "preferred=0,1", "localalloc=0", "first-touch=1", "interleave=",
                           "interleave=x", "spread", ""}) {
    try {
      tune::parse_memory_policy(text);
      ADD_FAILURE() << text;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument) << text;
    }
  }
  try {
    tune::parse_memory_policy("preferred");
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "memory policy 'preferred': needs a node, e.g. preferred=0");
  }
}

TEST(PlanCpus, SparseSpreadsOverNodesAndDenseFillsOne) {
  const os::Topology topo = two_by_two();
  EXPECT_EQ(tune::plan_cpus(topo, runtime::PinPolicy::sparse, 2), (std::vector<int>{0, 2}));
  EXPECT_EQ(tune::plan_cpus(topo, runtime::PinPolicy::dense, 2), (std::vector<int>{0, 1}));
  EXPECT_EQ(tune::plan_cpus(topo, runtime::PinPolicy::sparse, 3), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(tune::plan_cpus(topo, runtime::PinPolicy::dense, 0), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_EQ(tune::plan_cpus(topo, runtime::PinPolicy::sparse, 4096), (std::vector<int>{0, 1, 2, 3}));
  EXPECT_TRUE(tune::plan_cpus(topo, runtime::PinPolicy::none, 2).empty());
}

TEST(PrepareLaunch, ResolvesPolicyNodesMasksAndTheEnvironment) {
  tune::LaunchOptions options;
  options.policy = tune::parse_memory_policy("interleave");
  options.pinning = runtime::PinPolicy::sparse;
  options.threads = 2;
  options.thp = false;
  const tune::Launch launch = tune::prepare_launch(options, two_by_two());
  EXPECT_EQ(launch.mempolicy_mode, MPOL_INTERLEAVE);
  EXPECT_EQ(launch.os_nodes, (std::vector<int>{0, 1}));
  EXPECT_EQ(launch.node_words, (std::vector<unsigned long>{3}));
  EXPECT_EQ(launch.cpus, (std::vector<int>{0, 2}));
  EXPECT_EQ(launch.cpu_words, (std::vector<unsigned long>{5}));
  EXPECT_EQ(launch.thp, std::optional<bool>(false));
  EXPECT_TRUE(has_entry(launch.environment, "SMARTARRAYS_THREADS=2"));
  EXPECT_TRUE(has_entry(launch.environment, "OMP_NUM_THREADS=2"));
  EXPECT_TRUE(has_entry(launch.environment, "OMP_PROC_BIND=spread"));
}

TEST(PrepareLaunch, FakeNodesMapToTheKernelNodeBehindThem) {
  const os::Topology fake = os::Topology::from_spec("nodes=2", two_by_two());
  tune::LaunchOptions options;
  options.policy = tune::parse_memory_policy("bind=1");
  EXPECT_EQ(tune::prepare_launch(options, fake).os_nodes.size(), 1u);
}

TEST(PrepareLaunch, DefaultsLeaveEveryKnobAsInherited) {
  const tune::Launch launch = tune::prepare_launch({}, two_by_two());
  EXPECT_FALSE(launch.mempolicy_mode.has_value());
  EXPECT_TRUE(launch.cpus.empty());
  EXPECT_FALSE(launch.thp.has_value());
  EXPECT_TRUE(launch.environment.empty());
  EXPECT_EQ(tune::run_flags({}), "");
}

TEST(PrepareLaunch, OnlyCpuSetsAndPoliciesNamingNodesNeedTheTopology) {
  tune::LaunchOptions options;
  options.allocator = tune::Allocator::glibc;
  options.threads = 3;
  options.thp = false;
  EXPECT_FALSE(tune::needs_topology(options));
  for (const char* policy : {"first-touch", "localalloc"}) {
    options.policy = tune::parse_memory_policy(policy);
    EXPECT_FALSE(tune::needs_topology(options)) << policy;
    // Without the topology the launch is the one resolved against any topology.
    const tune::Launch lazy = tune::prepare_launch(options), full = tune::prepare_launch(options, two_by_two());
    EXPECT_EQ(lazy.mempolicy_mode, full.mempolicy_mode) << policy;
    EXPECT_EQ(lazy.environment, full.environment) << policy;
    EXPECT_EQ(lazy.thp, full.thp) << policy;
    EXPECT_TRUE(lazy.cpus.empty() && lazy.os_nodes.empty()) << policy;
  }
  for (const char* policy : {"interleave", "preferred=0", "bind=0"}) {
    options.policy = tune::parse_memory_policy(policy);
    EXPECT_TRUE(tune::needs_topology(options)) << policy;
    EXPECT_FALSE(tune::prepare_launch(options).os_nodes.empty()) << policy;
  }
  tune::LaunchOptions pinned;
  pinned.pinning = runtime::PinPolicy::sparse;
  EXPECT_TRUE(tune::needs_topology(pinned));
  EXPECT_FALSE(tune::prepare_launch(pinned).cpus.empty());
  tune::LaunchOptions listed;
  listed.cpus = {0};
  EXPECT_TRUE(tune::needs_topology(listed));
  EXPECT_EQ(tune::prepare_launch(listed).cpus, std::vector<int>{0});
}

TEST(PrepareLaunch, RefusesMissingNodesUnusableCpusAndBothCpuFlags) {
  const os::Topology topo = two_by_two();
  const auto refused = [&](const tune::LaunchOptions& options, const std::string& message) {
    try {
      tune::prepare_launch(options, topo);
      ADD_FAILURE() << message;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  };
  tune::LaunchOptions bad_node;
  bad_node.policy = tune::parse_memory_policy("preferred=2");
  refused(bad_node, "node 2 does not exist");
  tune::LaunchOptions bad_cpu;
  bad_cpu.cpus = {7};
  refused(bad_cpu, "cpu 7 is not usable (usable cpus: 0-3)");
  tune::LaunchOptions both;
  both.cpus = {0};
  both.pinning = runtime::PinPolicy::dense;
  refused(both, "exclude each other");
}

TEST(LaunchEnvironment, ThePreloadGoesFirstAndKeepsTheInheritedOnes) {
  const ScopedVariable preload("LD_PRELOAD", "/opt/mine.so");
  const ScopedVariable threads("OMP_NUM_THREADS", "9");
  tune::Launch launch;
  launch.environment = {"LD_PRELOAD=/lib/alloc.so", "OMP_NUM_THREADS=2"};
  const std::vector<std::string> environment = tune::launch_environment(launch);
  EXPECT_TRUE(has_entry(environment, "LD_PRELOAD=/lib/alloc.so:/opt/mine.so"));
  EXPECT_TRUE(has_entry(environment, "OMP_NUM_THREADS=2"));
  EXPECT_FALSE(has_entry(environment, "OMP_NUM_THREADS=9"));
}

TEST(RunFlags, ReproduceTheOptions) {
  tune::LaunchOptions options;
  options.allocator = Allocator::tbbmalloc;
  options.policy = tune::parse_memory_policy("interleave");
  options.pinning = runtime::PinPolicy::dense;
  options.threads = 2;
  options.thp = false;
  EXPECT_EQ(tune::run_flags(options), "--allocator tbbmalloc --policy interleave --pinning dense --threads 2 --thp off");
  options.pinning = runtime::PinPolicy::none;
  options.cpus = {0, 1, 3};
  EXPECT_EQ(tune::run_flags(options), "--allocator tbbmalloc --policy interleave --cpus 0-1,3 --threads 2 --thp off");
}

}  // namespace
