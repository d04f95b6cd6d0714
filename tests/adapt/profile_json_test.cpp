// Tests the machine and workload profiles' JSON: round trips, and every missing or bad field
// rejected with its name.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>

#include "adapt/json_fields.hpp"
#include "adapt/profiles.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/adapt/adaptive_array.hpp"
#include "smartarrays/adapt/machine_profile.hpp"
#include "smartarrays/adapt/workload.hpp"
#include "smartarrays/runtime/interrupt.hpp"

namespace smartarrays::adapt {
namespace {

using Json = nlohmann::ordered_json;

std::string rejection(const std::function<std::string()>& parse) {
  try {
    parse();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
    return e.what();
  }
  return "accepted";
}

std::string machine_rejection(const Json& json) {
  return rejection([&] { return to_json(parse_machine_profile(json.dump(), "m.json")); });
}

TEST(MachineProfileJson, RoundTripsEveryField) {
  MachineProfile p = test::machine(2, 4, 40, 10);
  p.memory_parallelism = 6.5;
  p.llc_bytes = 12345678;
  p.random_cache_bytes = 3456789;
  p.huge_page_latency_ratio = 0.75;
  p.calibration = "quick";
  p.calibration_seconds = 4.5;
  p.machine_key = "abc";
  p.serial_fraction = 0.25;
  const std::string text = to_json(p);
  const MachineProfile q = parse_machine_profile(text, "p.json");
  EXPECT_EQ(to_json(q), text);
  EXPECT_EQ(q.read_gbs, p.read_gbs);
  EXPECT_EQ(q.decode.get_ns, p.decode.get_ns);
  EXPECT_EQ(q.nodes[1].memory_free_bytes, p.nodes[1].memory_free_bytes);
  // It is a machine-facts document: nodes at the top is the count, the model's nodes the list.
  const Json json = Json::parse(text);
  EXPECT_EQ(json["format"], "smartarrays.machine/1");
  EXPECT_EQ(json["nodes"], 2);
  EXPECT_EQ(json["model"]["nodes"].size(), 2u);
}

TEST(MachineProfileJson, RejectsEveryMissingRequiredFieldByName) {
  const Json good = Json::parse(to_json(test::machine(2, 4, 40, 10)));
  const std::vector<std::vector<std::string>> required = {
      {"format"}, {"model"}, {"model", "nodes"}, {"model", "read_gbs"}, {"model", "read_gbs_1t"}, {"model", "latency_ns"},
      {"model", "copy_gbs"}, {"model", "decode"}, {"model", "decode", "scan_values_per_s_per_cpu"},
      {"model", "decode", "get_ns"}, {"model", "decode", "plain_scan_values_per_s_per_cpu"}};
  for (const auto& path : required) {
    Json bad = good;
    Json* parent = &bad;
    std::string name;
    for (std::size_t i = 0; i + 1 < path.size(); ++i) {
      parent = &(*parent)[path[i]];
      name += path[i] + ".";
    }
    parent->erase(path.back());
    name += path.back();
    EXPECT_EQ(machine_rejection(bad), "m.json: " + name + ": missing");
  }
  for (const char* field : {"id", "cpus", "memory_bytes", "memory_free_bytes"}) {
    Json bad = good;
    bad["model"]["nodes"][1].erase(field);
    EXPECT_EQ(machine_rejection(bad), std::string("m.json: model.nodes[1].") + field + ": missing");
  }
}

TEST(MachineProfileJson, RejectsBadValuesNamingTheField) {
  const Json good = Json::parse(to_json(test::machine(2, 4, 40, 10)));
  auto with = [&](const std::function<void(Json&)>& edit) {
    Json bad = good;
    edit(bad);
    return machine_rejection(bad);
  };
  EXPECT_EQ(with([](Json& j) { j["format"] = "smartarrays.machine/2"; }),
            "m.json: format: expected \"smartarrays.machine/1\", got 'smartarrays.machine/2'");
  EXPECT_EQ(with([](Json& j) { j["model"]["read_gbs"][1][0] = -3; }),
            "m.json: model.read_gbs[1][0]: expected a number in 0.001..100000, got '-3'");
  EXPECT_EQ(with([](Json& j) { j["model"]["read_gbs_1t"][0] = Json::array({1.0}); }),
            "m.json: model.read_gbs_1t[0]: expected 2 entries, got 1");
  EXPECT_EQ(with([](Json& j) { j["model"]["latency_ns"] = "fast"; }),
            "m.json: model.latency_ns: expected an array, got '\"fast\"'");
  EXPECT_EQ(with([](Json& j) { j["model"]["copy_gbs"][1] = nullptr; }),
            "m.json: model.copy_gbs[1]: expected a number, got 'null'");
  EXPECT_EQ(with([](Json& j) { j["model"]["decode"]["get_ns"].erase(63); }),
            "m.json: model.decode.get_ns: expected 64 entries, got 63");
  EXPECT_EQ(with([](Json& j) { j["model"]["decode"]["scan_values_per_s_per_cpu"][9] = 0; }),
            "m.json: model.decode.scan_values_per_s_per_cpu[9]: expected a number in 1000..1e+13, got '0'");
  EXPECT_EQ(with([](Json& j) { j["model"]["decode"]["plain_scan_values_per_s_per_cpu"] = true; }),
            "m.json: model.decode.plain_scan_values_per_s_per_cpu: expected a number, got 'true'");
  EXPECT_EQ(with([](Json& j) { j["cpu_model"] = "EPYC\x07"; }),
            "m.json: cpu_model: expected 0 to 256 printable ASCII characters, got '\"EPYC\\\\u0007\"'");
  EXPECT_EQ(with([](Json& j) { j["model"]["nodes"][1]["id"] = 5; }),
            "m.json: model.nodes[1].id: expected a whole number in 1..1, got '5'");
  EXPECT_EQ(with([](Json& j) { j["model"]["nodes"][0]["cpus"] = -1; }),
            "m.json: model.nodes[0].cpus: expected a whole number in 0..4096, got '-1'");
  EXPECT_NE(with([](Json& j) { j["model"]["nodes"][0]["memory_free_bytes"] = 1ull << 40; }).find(
                "model.nodes[0].memory_free_bytes: expected a whole number in 0.."),
            std::string::npos);
  EXPECT_EQ(with([](Json& j) { j["model"]["nodes"] = Json::array(); }), "m.json: model.nodes: expected at least one node");
  EXPECT_EQ(with([](Json& j) {
              for (auto& n : j["model"]["nodes"]) n["cpus"] = 0;
            }),
            "m.json: model.nodes: expected a node with cpus > 0");
  EXPECT_EQ(with([](Json& j) { j["model"]["memory_parallelism"] = 0.5; }),
            "m.json: model.memory_parallelism: expected a number in 1..1000, got '0.5'");
  EXPECT_EQ(with([](Json& j) { j["model"]["serial_fraction"] = 1.5; }),
            "m.json: model.serial_fraction: expected a number in 0..1, got '1.5'");
  EXPECT_EQ(with([](Json& j) { j["model"]["huge_page_latency_ratio"] = 0; }),
            "m.json: model.huge_page_latency_ratio: expected a number in 0.01..100, got '0'");
  EXPECT_EQ(with([](Json& j) { j["model"]["llc_bytes"] = 1.5; }),
            "m.json: model.llc_bytes: expected a whole number in 0..18446744073709551615, got '1.5'");
  EXPECT_EQ(with([](Json& j) { j = Json::array(); }), "m.json: document: expected an object, got '[]'");
  EXPECT_NE(rejection([] { return to_json(parse_machine_profile("{", "m.json")); }).find("m.json: not JSON"),
            std::string::npos);
}

// A profile the model cannot answer with is refused naming the field: with no node's memory every
// array "fit in 0.00 MiB free"; a copy rate of 5e-324 predicted replicas at -nan ms and marked them
// as fitting; bandwidths of 1e308 predicted every candidate at 0.000 ms, of 1e-300 at 300 digits.
// Each rate and time lies within what a machine can measure (docs/adaptivity.md).
TEST(MachineProfileJson, RejectsDegenerateProfilesNamingTheField) {
  const Json good = Json::parse(to_json(test::machine(2, 4, 40, 10)));
  auto with = [&](const std::function<void(Json&)>& edit) {
    Json bad = good;
    edit(bad);
    return machine_rejection(bad);
  };
  EXPECT_EQ(with([](Json& j) {
              for (auto& n : j["model"]["nodes"]) n["memory_bytes"] = n["memory_free_bytes"] = 0;
            }),
            "m.json: model.nodes: expected a node with memory_bytes > 0");
  EXPECT_EQ(with([](Json& j) { j["model"]["nodes"][1]["memory_bytes"] = j["model"]["nodes"][1]["memory_free_bytes"] = 0; }),
            "accepted")
      << "a node without memory is a real machine's (a CPU-only node)";
  EXPECT_EQ(with([](Json& j) { j["model"]["copy_gbs"][1] = 5e-324; }),
            "m.json: model.copy_gbs[1]: expected a number in 0.001..100000, got '5e-324'");
  EXPECT_EQ(with([](Json& j) { j["model"]["read_gbs"][0][1] = 1e308; }),
            "m.json: model.read_gbs[0][1]: expected a number in 0.001..100000, got '1e+308'");
  EXPECT_EQ(with([](Json& j) { j["model"]["read_gbs_1t"][1][1] = 1e-300; }),
            "m.json: model.read_gbs_1t[1][1]: expected a number in 0.001..100000, got '1e-300'");
  EXPECT_EQ(with([](Json& j) { j["model"]["latency_ns"][1][0] = 2e6; }),
            "m.json: model.latency_ns[1][0]: expected a number in 1..1e+06, got '2000000.0'");
  EXPECT_EQ(with([](Json& j) { j["model"]["decode"]["get_ns"][0] = 1e-3; }),
            "m.json: model.decode.get_ns[0]: expected a number in 0.01..1e+06, got '0.001'");
  EXPECT_EQ(with([](Json& j) { j["model"]["decode"]["plain_scan_values_per_s_per_cpu"] = 1e14; }),
            "m.json: model.decode.plain_scan_values_per_s_per_cpu: expected a number in 1000..1e+13, got '100000000000000.0'");
  EXPECT_EQ(with([](Json& j) { j["model"]["memory_parallelism"] = 1e308; }),
            "m.json: model.memory_parallelism: expected a number in 1..1000, got '1e+308'");
  EXPECT_EQ(with([](Json& j) { j["model"]["huge_page_latency_ratio"] = 1e-5; }),
            "m.json: model.huge_page_latency_ratio: expected a number in 0.01..100, got '1e-05'");
  // The bounds themselves are accepted.
  EXPECT_EQ(with([](Json& j) {
              j["model"]["copy_gbs"][0] = 1e-3;
              j["model"]["read_gbs"][0][0] = 1e5;
              j["model"]["latency_ns"][0][0] = 1;
              j["model"]["decode"]["scan_values_per_s_per_cpu"][0] = 1e13;
            }),
            "accepted");
}

// A value is shown one level deep and cut, and a document is read to 64 levels of arrays and
// objects, not one more: before, showing a deep value recursed until the stack overflowed and a
// large one was copied whole into the message.
TEST(MachineProfileJson, ValuesAreShownOneLevelDeepAndCutAndDocumentsNestAtMost64Levels) {
  const auto refused = [](const std::string& text) {
    return rejection([&] { return to_json(parse_machine_profile(text, "m.json")); });
  };
  const auto nested = [](std::size_t levels) { return std::string(levels, '[') + std::string(levels, ']'); };
  EXPECT_EQ(refused("{\"format\": " + nested(63) + "}"), "m.json: format: expected a string, got '[[...]]'");
  EXPECT_EQ(refused("{\"format\": " + nested(64) + "}"), "m.json: arrays and objects nested deeper than 64 levels");
  EXPECT_EQ(refused("{\"format\": {\"a\": [1, {\"b\": 2}], \"c\": \"x\", \"d\": null}}"),
            "m.json: format: expected a string, got '{\"a\":[...],\"c\":\"x\",\"d\":null}'");
  std::string many = "{\"format\": [0", first_members = "[0";
  for (int i = 0; i < 100000; ++i) many += ",123456789";
  while (first_members.size() < 80) first_members += ",123456789";
  EXPECT_EQ(refused(many + "]}"), "m.json: format: expected a string, got '" + first_members.substr(0, 80) + "...'");
  // Workload profiles are read by the same parser.
  EXPECT_EQ(rejection([&] { return to_json(parse_workload_profile("{\"format\": " + nested(100000) + "}", "w.json")); }),
            "w.json: arrays and objects nested deeper than 64 levels");
}

// Parsing is linear in the document: nlohmann's parser with a callback rescanned an array after
// each object in it, and ordered_json looked every key up through the keys before it, so a 16 MiB
// document of empty objects ran for over 12 minutes. Documents of the size cap are read to the end.
TEST(MachineProfileJson, DocumentsOfTheSizeCapParseInLinearTime) {
  const auto refused = [](const std::string& text) {
    return rejection([&] { return to_json(parse_machine_profile(text, "m.json")); });
  };
  std::string objects = "[{}";
  while (objects.size() + 4 <= detail::profile_file_limit) objects += ",{}";
  objects += "]";
  EXPECT_EQ(refused(objects).rfind("m.json: document: expected an object, got '[{...},{...},", 0), 0u);
  std::string keys = "{\"k0\":0";
  for (std::size_t i = 1; keys.size() + 32 <= detail::profile_file_limit; ++i) keys += ",\"k" + std::to_string(i) + "\":0";
  keys += "}";
  EXPECT_EQ(refused(keys), "m.json: format: missing");
}

// Every key finds its member however many came before, and a repeated key keeps its first place
// and its last value, as nlohmann's parser does.
TEST(MachineProfileJson, KeysFindTheirMembersAndARepeatedKeyKeepsItsPlaceAndLastValue) {
  std::string text = "{";
  for (int i = 0; i < 1000; ++i) text += "\"k" + std::to_string(i) + "\":" + std::to_string(i) + ",";
  text += "\"k5\":{\"k5\":[true],\"x\":1,\"k5\":null}}";
  const Json json = detail::parse_document(text, "d.json");
  ASSERT_EQ(json.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    if (i == 5) continue;
    EXPECT_EQ(json.at("k" + std::to_string(i)), i);
  }
  EXPECT_EQ(json.at("k5").dump(), "{\"k5\":null,\"x\":1}");
  EXPECT_EQ(json.begin().key(), "k0");
  EXPECT_EQ(std::next(json.begin(), 5).key(), "k5");
}

// The parse stops at the calling thread's interrupt (the command's Ctrl-C and SIGTERM, Python's
// KeyboardInterrupt): before, it ran to the end of the document whatever the signal.
TEST(MachineProfileJson, ParsingStopsAtAnInterrupt) {
  std::string values = "[0";
  for (int i = 0; i < 100000; ++i) values += ",0";
  values += "]";
  int checks = 0;
  const runtime::InterruptScope stop([&] {
    ++checks;
    return true;
  });
  try {
    detail::parse_document(values, "m.json");
    FAIL() << "parsed despite the interrupt";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::cancelled) << e.what();
  }
  EXPECT_EQ(checks, 1);
}

TEST(MachineProfileJson, FilesRoundTripAndMissingFilesAreOsErrors) {
  const std::string path = ::testing::TempDir() + "/adapt-machine/profile.json";
  const MachineProfile p = test::machine(1, 2, 10, 10);
  write_machine_profile(p, path);
  EXPECT_EQ(to_json(read_machine_profile(path)), to_json(p));
  std::filesystem::remove_all(::testing::TempDir() + "/adapt-machine");
  try {
    read_machine_profile(path);
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
  }
}

TEST(MachineProfileJson, AnEndlessOrHugeFileIsRefusedAfterTheCapNotReadToTheEnd) {
  // /dev/zero never ends: before the cap it was read until memory ran out.
  for (const auto& read : {std::function<void()>([] { read_machine_profile("/dev/zero"); }),
                           std::function<void()>([] { read_workload_profile("/dev/zero"); })}) {
    try {
      read();
      FAIL();
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_NE(std::string(e.what()).find("'/dev/zero' is larger than 16 MiB"), std::string::npos) << e.what();
    }
  }
  // A file of exactly the cap is read (and then refused as JSON), one byte more is not.
  const std::string path = ::testing::TempDir() + "/adapt-big-profile.json";
  for (const std::size_t size : {detail::profile_file_limit, detail::profile_file_limit + 1}) {
    std::ofstream(path).close();
    std::filesystem::resize_file(path, size);
    try {
      read_machine_profile(path);
      FAIL();
    } catch (const Error& e) {
      const bool too_big = std::string(e.what()).find("is larger than") != std::string::npos;
      EXPECT_EQ(too_big, size > detail::profile_file_limit) << e.what();
    }
  }
  std::filesystem::remove(path);
}

std::string workload_rejection(const Json& json) {
  return rejection([&] { return to_json(parse_workload_profile(json.dump(), "w.json")); });
}

TEST(WorkloadProfileJson, RoundTripsDerivedAndMeasuredProfiles) {
  WorkloadProfile w = pagerank_workload(1000, 16000, 2, 15);
  w.pinning = runtime::PinPolicy::dense;
  w.measured = WorkloadMeasurement{"interleaved", 0.5, 1e9, 2e9, 0.1, 0.3, 0.6};
  const std::string text = to_json(w);
  const WorkloadProfile v = parse_workload_profile(text, "w.json");
  EXPECT_EQ(to_json(v), text);
  ASSERT_EQ(v.arrays.size(), 5u);
  EXPECT_EQ(v.arrays[1].name, "redge");
  EXPECT_EQ(v.arrays[1].natural_bits, 32u);
  EXPECT_EQ(v.arrays[1].value_bits, 10u);  // ids up to 999
  EXPECT_EQ(v.arrays[3].hints.pattern, AccessPattern::random);
  EXPECT_DOUBLE_EQ(v.arrays[3].hints.passes, 15.0 * 16);
  EXPECT_TRUE(v.arrays[4].fixed);
  EXPECT_EQ(v.pinning, runtime::PinPolicy::dense);
  ASSERT_TRUE(v.measured.has_value());
  EXPECT_DOUBLE_EQ(v.measured->seconds, 0.5);
  EXPECT_DOUBLE_EQ(v.measured->compressed_compute_seconds, 0.3);
  EXPECT_DOUBLE_EQ(v.measured->compressed_seconds, 0.6);
  // The compressed costs are optional: a profile written before them reads as not measured.
  Json older = Json::parse(text);
  older["measured"].erase("compressed_compute_seconds");
  older["measured"].erase("compressed_seconds");
  EXPECT_EQ(parse_workload_profile(older.dump(), "w.json").measured->compressed_compute_seconds, 0);
  EXPECT_EQ(parse_workload_profile(older.dump(), "w.json").measured->compressed_seconds, 0);
  older["measured"]["compressed_compute_seconds"] = -1;
  EXPECT_EQ(workload_rejection(older), "w.json: measured.compressed_compute_seconds: expected a number >= 0, got '-1'");
}

TEST(WorkloadProfileJson, RejectsEveryMissingOrBadFieldByName) {
  WorkloadProfile w = aggregate_workload(1000, 10, 2);
  w.measured = WorkloadMeasurement{"interleaved", 0.5, 1e9, 2e9, 0.1};
  const Json good = Json::parse(to_json(w));
  for (const char* field : {"format", "workload", "threads", "arrays"}) {
    Json bad = good;
    bad.erase(field);
    EXPECT_EQ(workload_rejection(bad), std::string("w.json: ") + field + ": missing");
  }
  for (const char* field : {"name", "length", "value_bits", "natural_bits", "read_only", "pattern", "passes"}) {
    Json bad = good;
    bad["arrays"][1].erase(field);
    EXPECT_EQ(workload_rejection(bad), std::string("w.json: arrays[1].") + field + ": missing");
  }
  for (const char* field : {"placement", "seconds", "bytes_read", "accesses_per_s", "compute_seconds"}) {
    Json bad = good;
    bad["measured"].erase(field);
    EXPECT_EQ(workload_rejection(bad), std::string("w.json: measured.") + field + ": missing");
  }
  auto with = [&](const std::function<void(Json&)>& edit) {
    Json bad = good;
    edit(bad);
    return workload_rejection(bad);
  };
  EXPECT_EQ(with([](Json& j) { j["workload"] = "sort"; }),
            "w.json: workload: expected aggregate, degree, pagerank or array, got 'sort'");
  EXPECT_EQ(with([](Json& j) { j["arrays"][0]["pattern"] = "zigzag"; }),
            "w.json: arrays[0].pattern: unknown access pattern 'zigzag' (expected one of: sequential, random, indexed)");
  EXPECT_EQ(with([](Json& j) { j["arrays"][0]["passes"] = 0; }), "w.json: arrays[0].passes: expected a number > 0, got '0'");
  EXPECT_EQ(with([](Json& j) { j["arrays"][0]["value_bits"] = 65; }),
            "w.json: arrays[0].value_bits: expected a whole number in 1..64, got '65'");
  EXPECT_EQ(with([](Json& j) { j["arrays"][0]["natural_bits"] = 8; }), "w.json: arrays[0].value_bits: exceeds natural_bits 8");
  EXPECT_EQ(with([](Json& j) { j["arrays"][0]["read_only"] = "yes"; }),
            "w.json: arrays[0].read_only: expected true or false, got '\"yes\"'");
  EXPECT_EQ(with([](Json& j) { j["arrays"] = Json::array(); }), "w.json: arrays: expected at least one array");
  EXPECT_EQ(with([](Json& j) { j["threads"] = 5000; }), "w.json: threads: expected a whole number in 0..4096, got '5000'");
  EXPECT_EQ(with([](Json& j) { j["pinning"] = "none"; }), "w.json: pinning: expected sparse or dense, got 'none'");
  EXPECT_EQ(with([](Json& j) { j.erase("pinning"); }), "accepted") << "pinning is optional (sparse)";
  EXPECT_EQ(with([](Json& j) { j["measured"]["placement"] = "numa"; }),
            "w.json: measured.placement: unknown placement 'numa' (expected one of: os_default, single_node, "
            "interleaved, replicated, partitioned)");
  EXPECT_EQ(with([](Json& j) { j["measured"]["seconds"] = 0; }), "w.json: measured.seconds: expected a number > 0, got '0'");
  // Names are shown as they are (the decision's lines), so they are printable and name one array each.
  EXPECT_EQ(with([](Json& j) { j["arrays"][1]["name"] = "a\x1b[31m"; }),
            "w.json: arrays[1].name: expected 1 to 256 printable ASCII characters, got '\"a\\\\u001b[31m\"'");
  EXPECT_EQ(with([](Json& j) { j["arrays"][1]["name"] = ""; }),
            "w.json: arrays[1].name: expected 1 to 256 printable ASCII characters, got '\"\"'");
  EXPECT_EQ(with([](Json& j) { j["arrays"][1]["name"] = std::string(257, 'a'); }).rfind("w.json: arrays[1].name: expected 1 to 256", 0), 0u);
  EXPECT_EQ(with([](Json& j) { j["arrays"][1]["name"] = std::string(256, 'a'); }), "accepted");
  EXPECT_EQ(with([](Json& j) { j["arrays"][1]["name"] = "a1"; }), "w.json: arrays[1].name: 'a1' is also the name of arrays[0]");
}

TEST(Hints, ParseEveryHintAndRejectBadOnes) {
  const AccessHints h = parse_hints("read_only=true,pattern=random,passes=2.5,threads=3");
  EXPECT_TRUE(h.read_only);
  EXPECT_EQ(h.pattern, AccessPattern::random);
  EXPECT_DOUBLE_EQ(h.passes, 2.5);
  EXPECT_EQ(h.threads, 3u);
  EXPECT_EQ(rejection([] { parse_hints("speed=fast"); return std::string(); }),
            "unknown hint 'speed' (expected one of: read_only, pattern, passes, threads)");
  EXPECT_EQ(rejection([] { parse_hints("passes=0"); return std::string(); }), "hint 'passes=0': passes must be a number > 0");
  EXPECT_EQ(rejection([] { parse_hints("read_only=maybe"); return std::string(); }),
            "hint 'read_only=maybe': read_only must be true or false");
  EXPECT_EQ(rejection([] { parse_hints("threads=-1"); return std::string(); }), "hint 'threads=-1': threads must be 0..4096");
  EXPECT_EQ(rejection([] { parse_hints("pattern"); return std::string(); }),
            "hint 'pattern': expected NAME=VALUE (read_only, pattern, passes, threads)");
  AccessHints bad;
  bad.passes = -1;
  EXPECT_EQ(rejection([&] { validate(bad); return std::string(); }).rfind("hints.passes must be a finite number > 0", 0), 0u);
}

}  // namespace
}  // namespace smartarrays::adapt
