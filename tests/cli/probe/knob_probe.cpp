// Owns the knob probe: a small dynamically linked program that the `smartarrays run` tests
// (tests/cli/run_command_test.cpp) launch, printing what the launcher set from inside the child:
// its memory policy and node mask (get_mempolicy), affinity mask, PR_GET_THP_DISABLE, which
// allocator's own symbol the process has (dlsym), and the thread-count variables. One "key=value"
// per line.
#include <dlfcn.h>
#include <linux/mempolicy.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

// Adds item to a comma-separated list.
void append(std::string& text, const std::string& item) {
  if (!text.empty()) text += ',';
  text += item;
}

const char* mode_name(int mode) {
  switch (mode) {
    case MPOL_DEFAULT: return "default";
    case MPOL_PREFERRED: return "preferred";
    case MPOL_BIND: return "bind";
    case MPOL_INTERLEAVE: return "interleave";
    case MPOL_LOCAL: return "local";
    default: return "other";
  }
}

}  // namespace

int main() {
  int mode = -1;
  unsigned long nodes[16] = {};
  if (::syscall(SYS_get_mempolicy, &mode, nodes, 16 * 64UL, nullptr, 0UL) != 0) std::perror("get_mempolicy");
  std::string node_text;
  for (int n = 0; n < 1024; ++n) {
    if ((nodes[n / 64] >> (n % 64)) & 1UL) append(node_text, std::to_string(n));
  }
  std::printf("mempolicy=%s\nmempolicy_nodes=%s\n", mode_name(mode), node_text.c_str());
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (::sched_getaffinity(0, sizeof cpus, &cpus) != 0) std::perror("sched_getaffinity");
  std::string cpu_text;
  for (int c = 0; c < CPU_SETSIZE; ++c) {
    if (CPU_ISSET(c, &cpus)) append(cpu_text, std::to_string(c));
  }
  std::printf("cpus=%s\nthp_disabled=%d\n", cpu_text.c_str(), ::prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0));
  std::string symbols;
  for (const char* symbol : {"mallctl", "tc_malloc", "mi_malloc", "scalable_malloc"}) {
    if (::dlsym(RTLD_DEFAULT, symbol) != nullptr) append(symbols, symbol);
  }
  std::printf("allocator_symbols=%s\n", symbols.c_str());
  // malloc must still work under the preloaded allocator.
  void* block = std::malloc(1 << 20);
  std::printf("malloc_ok=%d\n", block != nullptr);
  std::free(block);
  for (const char* name : {"SMARTARRAYS_THREADS", "OMP_NUM_THREADS", "OMP_PROC_BIND"}) {
    const char* value = std::getenv(name);
    std::printf("%s=%s\n", name, value == nullptr ? "" : value);
  }
  return 0;
}
