// Owns where profiles come from: the machine key, the per-machine cache under the user's cache
// directory, and the process-wide profile that auto options decide with.
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "adapt/json_fields.hpp"
#include "smartarrays/adapt/calibrate.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/machine_facts.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/util/mix64.hpp"

namespace smartarrays::adapt {

namespace {

std::uint64_t hash_text(std::uint64_t h, const std::string& text) {
  for (unsigned char c : text) h = util::mix64(h ^ c);
  return util::mix64(h ^ text.size());
}

std::mutex profile_mutex;
std::optional<MachineProfile> chosen_profile;  // set_machine_profile's
std::optional<MachineProfile> loaded_profile;  // the cache's or the estimate, read once

}  // namespace

std::string machine_key() {
  const os::Topology& topology = os::topology();
  std::ostringstream text;
  text << os::read_machine_facts().cpu_model << '|' << codec::isa_name(codec::active_isa()) << '|' << topology.spec();
  // Memory is left out: a virtual machine's total can change under ballooning without the machine changing.
  for (const os::Node& node : topology.nodes()) text << '|' << node.cpus.size() << ':' << (node.memory_total > 0 ? 'm' : '-');
  std::ostringstream hex;
  hex << std::hex << hash_text(0x5a17, text.str());
  return hex.str();
}

std::string cache_directory() {
  const char* xdg = std::getenv("XDG_CACHE_HOME");
  if (xdg != nullptr && xdg[0] == '/') return std::string(xdg) + "/smartarrays";
  const char* home = std::getenv("HOME");
  if (home != nullptr && home[0] != '\0') return std::string(home) + "/.cache/smartarrays";
  throw_error(ErrorCode::unsupported, "no cache directory: neither XDG_CACHE_HOME nor HOME is set");
}

std::string cached_profile_path() { return cache_directory() + "/machine-" + machine_key() + ".json"; }

std::optional<MachineProfile> load_cached_profile() {
  const std::string path = cached_profile_path();
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return std::nullopt;
  try {
    // A regular file only: a FIFO in the cache is refused at once, not waited on by every auto choice.
    return parse_machine_profile(detail::read_text_file(path, os::InputKind::regular), path);
  } catch (const Error& e) {
    throw Error(e.code(), std::string("the cached machine profile is damaged: ") + e.message() +
                              "; run 'smartarrays calibrate' to measure this machine again and replace it");
  }
}

MachineProfile current_machine_profile() {
  const std::lock_guard<std::mutex> lock(profile_mutex);
  if (chosen_profile) return *chosen_profile;
  if (!loaded_profile) {
    std::optional<MachineProfile> cached = load_cached_profile();
    loaded_profile = cached ? std::move(*cached) : estimated_profile();
    // Free memory is now's, not calibration time's.
    const os::Topology& topology = os::topology();
    for (std::size_t i = 0; i < loaded_profile->nodes.size() && i < topology.node_count(); ++i) {
      loaded_profile->nodes[i].memory_free_bytes =
          std::min(topology.node(i).memory_free, loaded_profile->nodes[i].memory_bytes);
    }
  }
  return *loaded_profile;
}

void set_machine_profile(std::optional<MachineProfile> profile) {
  if (profile) validate(*profile);
  const std::lock_guard<std::mutex> lock(profile_mutex);
  chosen_profile = std::move(profile);
}

}  // namespace smartarrays::adapt
