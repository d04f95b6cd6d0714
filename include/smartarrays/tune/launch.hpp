// Owns how a program is launched under the NUMA tuning knobs of numa-analytics-strategies §3: the
// memory allocator (a Debian library preloaded), the memory placement policy (set_mempolicy before
// exec, inherited by the program), the CPU set (sparse / dense / an explicit list), the thread count
// exported to programs that read one, and transparent huge pages off for the process
// (PR_SET_THP_DISABLE). Options are validated and resolved once (prepare_launch) into a Launch that
// a process applies to itself right before exec: `smartarrays run` execs in place, `smartarrays
// tune` in a forked child.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "smartarrays/export.hpp"
#include "smartarrays/runtime/thread_pool.hpp"

namespace smartarrays::os {
class Topology;
}

namespace smartarrays::tune {

/// The malloc implementation the program runs with (§3.1).
enum class Allocator { glibc, jemalloc, tcmalloc, mimalloc, tbbmalloc };

/// "glibc", "jemalloc", "tcmalloc", "mimalloc" or "tbbmalloc".
SMARTARRAYS_API std::string_view allocator_name(Allocator allocator) noexcept;
/// The allocator spelled name (any case; "ptmalloc" is glibc); throws Error(invalid_argument) listing the names.
SMARTARRAYS_API Allocator parse_allocator(std::string_view name);

/// Where an allocator comes from: the library preloaded and the Debian package that ships it.
struct AllocatorLibrary {
  std::string_view soname;   ///< e.g. "libjemalloc.so.2" ("" for glibc: nothing to preload)
  std::string_view package;  ///< e.g. "libjemalloc2"
  std::string_view symbol;   ///< a function only this allocator exports, to prove it is loaded ("" for glibc)
};

/// The library, package and proof symbol of allocator.
SMARTARRAYS_API AllocatorLibrary allocator_library(Allocator allocator) noexcept;

/// The absolute path of allocator's library found where the dynamic loader looks (LD_LIBRARY_PATH,
/// /etc/ld.so.conf and its includes, the default directories), checked to be a shared object of this
/// process's ELF class and machine; "" for glibc. Throws Error(unsupported) naming the Debian package
/// to install when there is none.
SMARTARRAYS_API std::string find_allocator_library(Allocator allocator);

/// The memory placement policy kinds (§3.3).
enum class PolicyKind { first_touch, interleave, localalloc, preferred, bind };

/// A memory placement policy over logical nodes of the topology.
struct MemoryPolicy {
  PolicyKind kind = PolicyKind::first_touch;  ///< the policy
  std::vector<int> nodes;  ///< logical nodes: interleave (empty = every memory node), bind (one or more), preferred (one)
  bool operator==(const MemoryPolicy&) const = default;
};

/// Parses "first-touch", "interleave", "interleave=0,1", "localalloc", "preferred=1", "bind=0" (or
/// "bind=0-1"); node lists use the CPU-list syntax. Throws Error(invalid_argument) naming the text.
SMARTARRAYS_API MemoryPolicy parse_memory_policy(std::string_view text);
/// The spelling parse_memory_policy reads back ("interleave", "interleave=0-1", "preferred=1").
SMARTARRAYS_API std::string format_memory_policy(const MemoryPolicy& policy);

/// What to launch a program with; every field's default leaves that knob as the system has it.
struct LaunchOptions {
  Allocator allocator = Allocator::glibc;               ///< the malloc preloaded
  std::optional<MemoryPolicy> policy;                   ///< the memory policy set before exec; unset = inherited
  runtime::PinPolicy pinning = runtime::PinPolicy::none;  ///< CPU set: sparse / dense over `threads` CPUs, none = unchanged
  std::vector<int> cpus;                                ///< an explicit CPU set (instead of pinning)
  std::size_t threads = 0;                              ///< threads exported (SMARTARRAYS_THREADS, OMP_NUM_THREADS, ...); 0 = not set
  std::optional<bool> thp;                              ///< transparent huge pages on/off for the process; unset = unchanged
};

/// A validated launch, ready to apply: what the process sets on itself before exec.
struct Launch {
  std::vector<int> cpus;                 ///< the affinity mask; empty = unchanged
  std::vector<unsigned long> cpu_words;  ///< cpus as the kernel's bit mask
  std::optional<int> mempolicy_mode;     ///< MPOL_* for set_mempolicy; unset = inherited
  std::vector<int> os_nodes;             ///< kernel nodes of the policy's mask (empty for first-touch, localalloc)
  std::vector<unsigned long> node_words;  ///< os_nodes as the kernel's bit mask
  std::optional<bool> thp;               ///< PR_SET_THP_DISABLE = !*thp when set
  std::vector<std::string> environment;  ///< "NAME=VALUE" entries added or replaced (LD_PRELOAD, thread counts)
};

/// The CPUs a `threads`-thread program occupies under pinning (sparse: round-robin over the nodes;
/// dense: node by node), from the topology's usable CPUs; all of them when threads is 0 or more than
/// there are. Empty for PinPolicy::none.
SMARTARRAYS_API std::vector<int> plan_cpus(const os::Topology& topology, runtime::PinPolicy pinning, std::size_t threads);

/// Validates options against topology (nodes with memory, usable CPUs, the allocator installed) and
/// resolves them; throws Error(invalid_argument) naming the bad value or Error(unsupported) naming
/// the missing package.
SMARTARRAYS_API Launch prepare_launch(const LaunchOptions& options, const os::Topology& topology);

/// Whether resolving options reads the topology: a CPU list, a pinning, or a policy naming nodes
/// (interleave, preferred, bind).
SMARTARRAYS_API bool needs_topology(const LaunchOptions& options) noexcept;

/// prepare_launch against the process's topology (os::topology()), read only when
/// needs_topology(options), so a launch without a policy or CPU set costs no topology scan.
SMARTARRAYS_API Launch prepare_launch(const LaunchOptions& options);

/// The environment of the launched program: environ with launch.environment's entries replacing or
/// adding theirs (LD_PRELOAD keeps the entries already there after the allocator).
SMARTARRAYS_API std::vector<std::string> launch_environment(const Launch& launch);

/// Applies the launch's process settings to the calling process (memory policy, affinity, THP);
/// async-signal-safe (system calls only), so a forked child may call it. Returns 0, or the errno
/// of the call that failed and sets *failed to its name.
SMARTARRAYS_API int apply_launch(const Launch& launch, const char** failed) noexcept;

/// Applies launch to the calling process and replaces it with argv[0] (searched in PATH) under
/// launch_environment(launch). Returns only when it fails: the errno, with why saying what failed
/// ("cannot run 'prog': No such file or directory").
SMARTARRAYS_API int exec_launch(const Launch& launch, const std::vector<std::string>& argv, std::string& why);

/// The `smartarrays run` flags that reproduce options ("--allocator tbbmalloc --policy interleave
/// --pinning sparse"); "" when every knob is left as it is.
SMARTARRAYS_API std::string run_flags(const LaunchOptions& options);

}  // namespace smartarrays::tune
