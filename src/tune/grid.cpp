// Owns the tuning grid of grid.hpp: combinations, promise order, shuffled rounds, the AutoNUMA switch.
#include "smartarrays/tune/grid.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <numeric>
#include <random>

#include "smartarrays/error.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::tune {
namespace {

// The list, or one "unchanged" entry for an empty list.
template <typename T>
std::vector<std::optional<T>> or_unchanged(const std::vector<T>& values) {
  std::vector<std::optional<T>> out(values.begin(), values.end());
  if (out.empty()) out.emplace_back();
  return out;
}

bool is_default(const GridPoint& p) {
  return p.options.allocator == Allocator::glibc && !p.options.policy && p.options.pinning == runtime::PinPolicy::none &&
         !p.options.thp && p.options.threads == 0 && !p.autonuma;
}

}  // namespace

std::string GridPoint::label() const {
  if (is_default(*this)) return "default (glibc, nothing changed)";
  std::string text(allocator_name(options.allocator));
  const auto add = [&text](std::string_view part) { text.append(1, ' ').append(part); };
  add(options.policy ? format_memory_policy(*options.policy) : std::string("inherited"));
  if (options.pinning != runtime::PinPolicy::none) add(runtime::to_string(options.pinning));
  if (options.threads != 0) add("threads=" + std::to_string(options.threads));
  if (options.thp) add(*options.thp ? "thp=on" : "thp=off");
  if (autonuma) add(*autonuma ? "autonuma=on" : "autonuma=off");
  return text;
}

GridSpec full_grid_spec() {
  GridSpec spec;
  spec.allocators = {Allocator::glibc, Allocator::jemalloc, Allocator::tcmalloc, Allocator::mimalloc, Allocator::tbbmalloc};
  spec.policies = {MemoryPolicy{PolicyKind::first_touch, {}}, MemoryPolicy{PolicyKind::interleave, {}},
                   MemoryPolicy{PolicyKind::localalloc, {}}};
  spec.pinnings = {runtime::PinPolicy::sparse, runtime::PinPolicy::dense};
  spec.thp = {true, false};
  return spec;
}

std::vector<GridPoint> make_grid(const GridSpec& spec) {
  std::vector<GridPoint> grid{GridPoint{}};
  for (const auto& allocator : or_unchanged(spec.allocators)) {
    for (const auto& policy : or_unchanged(spec.policies)) {
      for (const auto& pinning : or_unchanged(spec.pinnings)) {
        for (const auto& thp : or_unchanged(spec.thp)) {
          for (const auto& threads : or_unchanged(spec.threads)) {
            for (const auto& autonuma : or_unchanged(spec.autonuma)) {
              GridPoint p;
              p.options.allocator = allocator.value_or(Allocator::glibc);
              p.options.policy = policy;
              p.options.pinning = pinning.value_or(runtime::PinPolicy::none);
              p.options.thp = thp;
              p.options.threads = threads.value_or(0);
              p.autonuma = autonuma;
              if (!is_default(p)) grid.push_back(std::move(p));
            }
          }
        }
      }
    }
  }
  return grid;
}

int promise(const GridPoint& p) noexcept {
  int score = 0;
  if (p.options.allocator == Allocator::tbbmalloc) score += 16;
  if (p.options.allocator == Allocator::jemalloc) score += 12;
  if (p.options.allocator != Allocator::glibc) score += 8;
  if (p.options.policy && p.options.policy->kind == PolicyKind::interleave) score += 4;
  if (p.options.thp == std::optional<bool>(false)) score += 2;
  if (p.options.pinning == runtime::PinPolicy::sparse) score += 1;
  if (p.autonuma == std::optional<bool>(false)) score += 1;
  return score;
}

std::vector<std::size_t> most_promising(const std::vector<GridPoint>& grid, std::size_t keep) {
  std::vector<std::size_t> order(grid.size());
  std::iota(order.begin(), order.end(), 0);
  if (order.empty()) return order;
  std::stable_sort(order.begin() + 1, order.end(),
                   [&](std::size_t a, std::size_t b) { return promise(grid[a]) > promise(grid[b]); });
  order.resize(std::clamp<std::size_t>(keep, 1, order.size()));
  return order;
}

std::vector<std::size_t> run_order(const std::vector<std::size_t>& points, int rounds, std::uint64_t seed) {
  std::mt19937_64 random(seed);
  std::vector<std::size_t> order;
  for (int r = 0; r < rounds; ++r) {
    std::vector<std::size_t> round = points;
    std::shuffle(round.begin(), round.end(), random);
    order.insert(order.end(), round.begin(), round.end());
  }
  return order;
}

AutoNumaSwitch::AutoNumaSwitch(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_);
  if (!std::getline(in, original_) || original_.empty()) {
    throw_error(ErrorCode::unsupported, "cannot read " + path_ + " (a kernel without automatic NUMA balancing?)");
  }
}

AutoNumaSwitch::~AutoNumaSwitch() {
  if (!changed_) return;
  std::ofstream out(path_);
  out << original_ << "\n";
}

void AutoNumaSwitch::set(bool on) {
  std::ofstream out(path_);
  out << (on ? "1" : "0") << "\n";
  out.flush();
  if (!out) throw_error(ErrorCode::os_error, "cannot write " + path_ + ": " + std::strerror(errno));
  changed_ = true;
}

}  // namespace smartarrays::tune
