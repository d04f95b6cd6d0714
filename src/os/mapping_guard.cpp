// Owns the SIGBUS handler of mapping_guard.hpp and its table of guarded mappings. The handler only
// makes async-signal-safe moves: it reads the table's atomics, maps one anonymous zero page over the
// faulting page (mmap is a plain system call), and bumps the thread's counters, which use the
// initial-exec TLS model so that reading them never allocates.
#include "smartarrays/os/mapping_guard.hpp"

#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <mutex>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::os {

namespace {

constexpr std::size_t registrations = 4096;
constexpr std::size_t path_bytes = 160;

enum : int { slot_free = 0, slot_filling = 1, slot_active = 2 };

struct Slot {
  std::atomic<int> state{slot_free};
  std::atomic<std::uintptr_t> begin{0};
  std::atomic<std::uintptr_t> end{0};
  std::atomic<std::uint64_t> faults{0};  // pages of this mapping the handler replaced with zeros
  char path[path_bytes] = {};
};

std::array<Slot, registrations> slots;
// Registered mappings with at least one fault: while 0, no read needs to look for its mapping's slot.
std::atomic<std::uint64_t> faulted_mappings{0};
struct sigaction previous_action {};
std::once_flag install_once;

__attribute__((tls_model("initial-exec"))) thread_local std::uint64_t faults_of_thread = 0;
__attribute__((tls_model("initial-exec"))) thread_local int last_fault_slot = -1;

// Hands a signal the guard does not own to the handler before it, or ends the process as the
// default action would.
void pass_on(int signal, siginfo_t* info, void* context) {
  if ((previous_action.sa_flags & SA_SIGINFO) != 0 && previous_action.sa_sigaction != nullptr) {
    previous_action.sa_sigaction(signal, info, context);
    return;
  }
  if (previous_action.sa_handler != SIG_DFL && previous_action.sa_handler != SIG_IGN && previous_action.sa_handler != nullptr) {
    previous_action.sa_handler(signal);
    return;
  }
  // The default: with SIG_DFL back in place a fault recurs when the instruction runs again, and a
  // SIGBUS sent by a process is raised again.
  struct sigaction fallback {};
  fallback.sa_handler = SIG_DFL;
  sigemptyset(&fallback.sa_mask);
  ::sigaction(SIGBUS, &fallback, nullptr);
  if (info == nullptr || info->si_code <= 0) ::raise(SIGBUS);
}

void on_bus_error(int signal, siginfo_t* info, void* context) {
  const int saved_errno = errno;
  const auto address = info != nullptr && info->si_code > 0 ? reinterpret_cast<std::uintptr_t>(info->si_addr) : 0;
  if (address != 0) {
    for (std::size_t s = 0; s < registrations; ++s) {
      Slot& slot = slots[s];
      if (slot.state.load(std::memory_order_acquire) != slot_active) continue;
      if (address < slot.begin.load(std::memory_order_relaxed) || address >= slot.end.load(std::memory_order_relaxed)) continue;
      const auto page = static_cast<std::uintptr_t>(::sysconf(_SC_PAGESIZE));
      void* at = reinterpret_cast<void*>(address / page * page);
      if (::mmap(at, page, PROT_READ, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) break;
      ++faults_of_thread;
      last_fault_slot = static_cast<int>(s);
      if (slot.faults.fetch_add(1, std::memory_order_relaxed) == 0) faulted_mappings.fetch_add(1, std::memory_order_release);
      errno = saved_errno;
      return;
    }
  }
  errno = saved_errno;
  pass_on(signal, info, context);
}

void install_handler() {
  struct sigaction action {};
  action.sa_sigaction = &on_bus_error;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_RESTART;
  sigemptyset(&action.sa_mask);
  // Without the handler, guarded mappings behave as unguarded ones: a fault ends the process.
  static_cast<void>(::sigaction(SIGBUS, &action, &previous_action));
}

}  // namespace

int guard_mapping(const void* data, std::size_t bytes, const std::string& path) noexcept {
  std::call_once(install_once, install_handler);
  for (std::size_t s = 0; s < registrations; ++s) {
    Slot& slot = slots[s];
    int expected = slot_free;
    if (!slot.state.compare_exchange_strong(expected, slot_filling, std::memory_order_acquire)) continue;
    const std::size_t n = std::min(path.size(), path_bytes - 1);
    std::memcpy(slot.path, path.data(), n);
    slot.path[n] = '\0';
    slot.faults.store(0, std::memory_order_relaxed);
    slot.begin.store(reinterpret_cast<std::uintptr_t>(data), std::memory_order_relaxed);
    slot.end.store(reinterpret_cast<std::uintptr_t>(data) + bytes, std::memory_order_relaxed);
    slot.state.store(slot_active, std::memory_order_release);
    return static_cast<int>(s);
  }
  return -1;
}

void unguard_mapping(int registration) noexcept {
  if (registration < 0 || static_cast<std::size_t>(registration) >= registrations) return;
  Slot& slot = slots[static_cast<std::size_t>(registration)];
  if (slot.faults.exchange(0, std::memory_order_relaxed) != 0) faulted_mappings.fetch_sub(1, std::memory_order_release);
  slot.state.store(slot_free, std::memory_order_release);
}

std::uint64_t mapping_faults() noexcept { return faults_of_thread; }

void check_mapping_faults(std::uint64_t since, const void* data) {
  const std::uint64_t faults = faults_of_thread;
  int s = faults != since ? last_fault_slot : -1;
  std::uint64_t pages = faults - since;
  // A mapping cut earlier stays cut: its zero pages no longer fault, so the slot says so.
  if (s < 0 && data != nullptr && faulted_mappings.load(std::memory_order_acquire) != 0) {
    const auto address = reinterpret_cast<std::uintptr_t>(data);
    for (std::size_t k = 0; k < registrations && s < 0; ++k) {
      const Slot& slot = slots[k];
      if (slot.state.load(std::memory_order_acquire) == slot_active && slot.faults.load(std::memory_order_relaxed) != 0 &&
          address >= slot.begin.load(std::memory_order_relaxed) && address < slot.end.load(std::memory_order_relaxed)) {
        s = static_cast<int>(k);
        pages = slot.faults.load(std::memory_order_relaxed);
      }
    }
  }
  if (faults == since && s < 0) return;
  const std::string path = s >= 0 ? std::string(slots[static_cast<std::size_t>(s)].path) : std::string("a mapped file");
  throw_error(ErrorCode::os_error,
              util::quoted(path, path_bytes) + " was truncated while mapped: " + std::to_string(pages) +
                  " page(s) past its new end were read as zeros, so this call's results are not valid (another "
                  "process cut the file; open it in load mode when others may change it)");
}

}  // namespace smartarrays::os
