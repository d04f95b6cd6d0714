// Owns the machine-facts entry point of the C ABI: os:: facts plus the codec's instruction set and
// the library version, translated into the one JSON schema every tool and binding reports
// (smartarrays.machine/1, docs/cli.md).
#include <nlohmann/json.hpp>

#include <string>

#include "capi/guard.hpp"
#include "smartarrays.h"
#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/machine_facts.hpp"

namespace {

std::string facts_json() {
  const smartarrays::os::MachineFacts facts = smartarrays::os::read_machine_facts();
  nlohmann::ordered_json json;
  json["format"] = "smartarrays.machine/1";
  json["cpu_model"] = facts.cpu_model;
  json["online_cpus"] = facts.online_cpus;
  json["usable_cpus"] = facts.usable_cpus;
  json["nodes"] = facts.nodes;
  json["fake_topology"] = facts.fake_topology;
  json["topology_spec"] = facts.topology_spec;
  json["memory_total_bytes"] = facts.memory_total_bytes;
  json["memory_free_bytes"] = facts.memory_free_bytes;
  json["codec_isa"] = smartarrays::codec::isa_name(smartarrays::codec::active_isa());
  json["thp_enabled"] = facts.thp_enabled;
  json["thp_defrag"] = facts.thp_defrag;
  json["hugetlb_pools"] = nlohmann::ordered_json::array();
  for (const smartarrays::os::HugetlbPool& pool : facts.hugetlb_pools) {
    json["hugetlb_pools"].push_back(
        {{"page_bytes", pool.page_bytes}, {"total_pages", pool.total_pages}, {"free_pages", pool.free_pages}});
  }
  json["numa_balancing"] = facts.numa_balancing;
  json["load_average"] = facts.load_average;
  json["kernel"] = facts.kernel;
  json["library_version"] = sa_version();
  // /proc text is not guaranteed UTF-8; a stray byte becomes U+FFFD rather than an exception.
  return json.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace

extern "C" {

sa_status sa_machine_facts_json(const char** json) {
  return smartarrays::capi::guarded(__func__, [&] {
    smartarrays::capi::require(json, "json");
    thread_local std::string text;
    text = facts_json();
    *json = text.c_str();
  });
}

}  // extern "C"
