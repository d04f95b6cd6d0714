// Owns resolving launch options into a Launch and applying it (launch.hpp): the CPU set of a
// pinning, the kernel masks, the environment the program gets, the system calls made before exec.
#include <sched.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <map>
#include <string>

#include "os/cpu_list.hpp"
#include "os/syscalls.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/util/text.hpp"
#include "tune/exec_args.hpp"

extern char** environ;

namespace smartarrays::tune {
namespace {

constexpr std::size_t word_bits = sizeof(unsigned long) * CHAR_BIT;

// ids as a kernel bit mask (cpu_set_t and node masks share this layout).
std::vector<unsigned long> bit_words(const std::vector<int>& ids) {
  std::vector<unsigned long> words;
  for (const int id : ids) {
    const std::size_t word = static_cast<std::size_t>(id) / word_bits;
    if (words.size() <= word) words.resize(word + 1, 0);
    words[word] |= 1UL << (static_cast<std::size_t>(id) % word_bits);
  }
  return words;
}

int kernel_mode(PolicyKind kind) {
  switch (kind) {
    case PolicyKind::interleave: return MPOL_INTERLEAVE;
    case PolicyKind::localalloc: return MPOL_LOCAL;
    case PolicyKind::preferred: return MPOL_PREFERRED;
    case PolicyKind::bind: return MPOL_BIND;
    case PolicyKind::first_touch: break;
  }
  return MPOL_DEFAULT;
}

// The kernel nodes behind the policy's logical nodes (several fake nodes may share one).
std::vector<int> policy_os_nodes(const MemoryPolicy& policy, const os::Topology& topology) {
  std::vector<int> nodes = policy.nodes;
  if (policy.kind == PolicyKind::interleave && nodes.empty()) nodes = topology.memory_nodes();
  std::vector<int> os_nodes;
  for (const int node : nodes) {
    topology.check_memory_node(node);
    os_nodes.push_back(topology.node(static_cast<std::size_t>(node)).os_node);
  }
  std::sort(os_nodes.begin(), os_nodes.end());
  os_nodes.erase(std::unique(os_nodes.begin(), os_nodes.end()), os_nodes.end());
  return os_nodes;
}

std::vector<int> launch_cpus(const LaunchOptions& options, const os::Topology& topology) {
  if (options.cpus.empty()) return plan_cpus(topology, options.pinning, options.threads);
  if (options.pinning != runtime::PinPolicy::none) {
    throw_error(ErrorCode::invalid_argument, "an explicit CPU list and a pinning policy exclude each other");
  }
  const std::vector<int> usable = topology.all_cpus();
  for (const int cpu : options.cpus) {
    if (!std::binary_search(usable.begin(), usable.end(), cpu)) {
      throw_error(ErrorCode::invalid_argument, "cpu " + std::to_string(cpu) + " is not usable (usable cpus: " +
                                                   os::format_cpu_list(usable) + ")");
    }
  }
  return options.cpus;
}

std::vector<std::string> launch_variables(const LaunchOptions& options) {
  std::vector<std::string> environment;
  const std::string library = find_allocator_library(options.allocator);
  if (!library.empty()) environment.push_back("LD_PRELOAD=" + library);
  if (options.threads != 0) {
    const std::string n = std::to_string(options.threads);
    for (const char* name : {"SMARTARRAYS_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) {
      environment.push_back(std::string(name) + "=" + n);
    }
  }
  // OpenMP programs place their threads inside the CPU set the way the pinning means (§3.2).
  if (options.pinning != runtime::PinPolicy::none) {
    environment.push_back(std::string("OMP_PROC_BIND=") + (options.pinning == runtime::PinPolicy::sparse ? "spread" : "close"));
    environment.emplace_back("OMP_PLACES=threads");
  }
  return environment;
}

}  // namespace

std::vector<int> plan_cpus(const os::Topology& topology, runtime::PinPolicy pinning, std::size_t threads) {
  if (pinning == runtime::PinPolicy::none) return {};
  const std::size_t usable = topology.all_cpus().size();
  const std::size_t count = threads == 0 || threads > usable ? usable : threads;
  // The runtime's own plan names each thread's node; thread k on a node takes that node's k-th CPU.
  std::vector<std::size_t> taken(topology.node_count(), 0);
  std::vector<int> cpus;
  for (const int node : runtime::plan_worker_nodes(topology, count, pinning)) {
    const std::vector<int>& node_cpus = topology.node(static_cast<std::size_t>(node)).cpus;
    cpus.push_back(node_cpus[taken[static_cast<std::size_t>(node)]++ % node_cpus.size()]);
  }
  std::sort(cpus.begin(), cpus.end());
  cpus.erase(std::unique(cpus.begin(), cpus.end()), cpus.end());
  return cpus;
}

namespace {

// The launch of options; topology() is called only for the knobs that read it (needs_topology).
template <typename GetTopology>
Launch resolve(const LaunchOptions& options, GetTopology&& topology) {
  Launch launch;
  if (!options.cpus.empty() || options.pinning != runtime::PinPolicy::none) launch.cpus = launch_cpus(options, topology());
  launch.cpu_words = bit_words(launch.cpus);
  if (options.policy) {
    launch.mempolicy_mode = kernel_mode(options.policy->kind);
    if (options.policy->kind != PolicyKind::first_touch && options.policy->kind != PolicyKind::localalloc) {
      launch.os_nodes = policy_os_nodes(*options.policy, topology());
    }
    launch.node_words = bit_words(launch.os_nodes);
  }
  launch.thp = options.thp;
  launch.environment = launch_variables(options);
  return launch;
}

}  // namespace

bool needs_topology(const LaunchOptions& options) noexcept {
  const bool policy_nodes = options.policy && options.policy->kind != PolicyKind::first_touch &&
                            options.policy->kind != PolicyKind::localalloc;
  return !options.cpus.empty() || options.pinning != runtime::PinPolicy::none || policy_nodes;
}

Launch prepare_launch(const LaunchOptions& options, const os::Topology& topology) {
  return resolve(options, [&topology]() -> const os::Topology& { return topology; });
}

Launch prepare_launch(const LaunchOptions& options) {
  return resolve(options, []() -> const os::Topology& { return os::topology(); });
}

std::vector<std::string> launch_environment(const Launch& launch) {
  std::map<std::string, std::string> added;
  for (const std::string& entry : launch.environment) {
    added[entry.substr(0, entry.find('='))] = entry.substr(entry.find('=') + 1);
  }
  std::vector<std::string> environment;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const std::string name = text.substr(0, text.find('='));
    const auto replaced = added.find(name);
    if (replaced == added.end()) {
      environment.push_back(text);
    } else if (name == "LD_PRELOAD" && text.size() > name.size() + 1) {
      replaced->second.append(1, ':').append(text, name.size() + 1);
    }
  }
  for (const auto& [name, value] : added) environment.push_back(name + "=" + value);
  return environment;
}

int apply_launch(const Launch& launch, const char** failed) noexcept {
  if (launch.mempolicy_mode) {
    const unsigned long* mask = launch.node_words.empty() ? nullptr : launch.node_words.data();
    const unsigned long max_node = launch.node_words.size() * word_bits + 1;
    if (::syscall(SYS_set_mempolicy, *launch.mempolicy_mode, mask, mask == nullptr ? 0UL : max_node) != 0) {
      *failed = "set_mempolicy";
      return errno;
    }
  }
  if (!launch.cpu_words.empty()) {
    const std::size_t bytes = launch.cpu_words.size() * sizeof(unsigned long);
    if (::sched_setaffinity(0, bytes, reinterpret_cast<const cpu_set_t*>(launch.cpu_words.data())) != 0) {
      *failed = "sched_setaffinity";
      return errno;
    }
  }
  if (launch.thp && ::prctl(PR_SET_THP_DISABLE, *launch.thp ? 0UL : 1UL, 0UL, 0UL, 0UL) != 0) {
    *failed = "prctl(PR_SET_THP_DISABLE)";
    return errno;
  }
  return 0;
}

int exec_launch(const Launch& launch, const std::vector<std::string>& argv, std::string& why) {
  if (argv.empty()) {
    why = "no command to run";
    return EINVAL;
  }
  const ExecArgs exec(launch, argv);
  const char* failed = nullptr;
  if (const int error = apply_launch(launch, &failed)) {
    why = std::string(failed) + " failed: " + std::strerror(error);
    return error;
  }
  ::execvpe(exec.program(), exec.args(), exec.envp());
  const int error = errno;
  why = "cannot run " + util::quoted(argv[0]) + ": " + std::strerror(error);
  return error;
}

std::string run_flags(const LaunchOptions& options) {
  std::string flags;
  const auto add = [&flags](const std::string& flag) { flags += (flags.empty() ? "" : " ") + flag; };
  if (options.allocator != Allocator::glibc) add("--allocator " + std::string(allocator_name(options.allocator)));
  if (options.policy) add("--policy " + format_memory_policy(*options.policy));
  if (!options.cpus.empty()) add("--cpus " + os::format_cpu_list(options.cpus));
  if (options.pinning != runtime::PinPolicy::none) add(std::string("--pinning ") + runtime::to_string(options.pinning));
  if (options.threads != 0) add("--threads " + std::to_string(options.threads));
  if (options.thp) add(std::string("--thp ") + (*options.thp ? "on" : "off"));
  return flags;
}

}  // namespace smartarrays::tune
