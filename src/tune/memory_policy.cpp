// Owns the spelling of memory placement policies (launch.hpp): "interleave=0,1", "preferred=1", ...
#include <string>

#include "os/cpu_list.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/tune/launch.hpp"
#include "smartarrays/util/names.hpp"
#include "smartarrays/util/text.hpp"

namespace smartarrays::tune {
namespace {

constexpr util::NameTable<PolicyKind, 8> policy_names{"memory policy",
                                                      {{{PolicyKind::first_touch, "first-touch"},
                                                        {PolicyKind::interleave, "interleave"},
                                                        {PolicyKind::localalloc, "localalloc"},
                                                        {PolicyKind::preferred, "preferred"},
                                                        {PolicyKind::bind, "bind"},
                                                        {PolicyKind::first_touch, "first_touch"},
                                                        {PolicyKind::first_touch, "default"},
                                                        {PolicyKind::localalloc, "local"}}}};

[[noreturn]] void bad_policy(std::string_view text, const std::string& why) {
  throw_error(ErrorCode::invalid_argument, "memory policy " + util::quoted(text) + ": " + why);
}

}  // namespace

MemoryPolicy parse_memory_policy(std::string_view text) {
  const std::size_t equals = text.find('=');
  MemoryPolicy policy;
  policy.kind = policy_names.parse(text.substr(0, equals));
  if (equals == std::string_view::npos) {
    if (policy.kind == PolicyKind::preferred || policy.kind == PolicyKind::bind) {
      bad_policy(text, "needs a node, e.g. " + std::string(policy_names.name(policy.kind)) + "=0");
    }
    return policy;
  }
  if (policy.kind == PolicyKind::first_touch || policy.kind == PolicyKind::localalloc) {
    bad_policy(text, std::string(policy_names.name(policy.kind)) + " takes no nodes");
  }
  try {
    policy.nodes = os::parse_cpu_list(text.substr(equals + 1), "node list");
  } catch (const Error& e) {
    bad_policy(text, e.what());
  }
  if (policy.nodes.empty()) bad_policy(text, "the node list is empty");
  if (policy.kind == PolicyKind::preferred && policy.nodes.size() != 1) bad_policy(text, "preferred takes one node");
  return policy;
}

std::string format_memory_policy(const MemoryPolicy& policy) {
  std::string text(policy_names.name(policy.kind));
  if (!policy.nodes.empty()) text.append(1, '=').append(os::format_cpu_list(policy.nodes));
  return text;
}

}  // namespace smartarrays::tune
