// Tests of the report writer: the envelope's members and order, the machine facts it carries,
// writing to a file, and the error for a path it cannot write.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "measure/report.hpp"
#include "smartarrays/error.hpp"

namespace smartarrays::measure {
namespace {

std::string scratch(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("smartarrays-report-test-" + std::to_string(::getpid()) + "-" + name))
      .string();
}

std::vector<std::string> keys(const Json& json) {
  std::vector<std::string> names;
  for (const auto& [key, value] : json.items()) names.push_back(key);
  return names;
}

TEST(Report, TheEnvelopeIsFormatThenMachineFactsThenTheFieldsInOrder) {
  Report report("smartarrays.test/1", {{"zeta", 1}, {"alpha", "two"}});
  report.fields["results"] = Json::array({3});
  const Json json = document(report);
  EXPECT_EQ(keys(json), (std::vector<std::string>{"format", "machine", "zeta", "alpha", "results"}));
  EXPECT_EQ(json["format"], "smartarrays.test/1");
  EXPECT_EQ(json["machine"]["format"], "smartarrays.machine/1");
  EXPECT_TRUE(json["machine"].contains("codec_isa"));
  EXPECT_EQ(json["alpha"], "two");
}

TEST(Report, TheFactsGoUnderTheNamedKeyAndGivenFactsAreKept) {
  Report report("smartarrays.topology/1");
  report.machine_key = "system";
  report.machine = {{"cpu_model", "given"}};
  const Json json = document(report);
  EXPECT_EQ(keys(json), (std::vector<std::string>{"format", "system"}));
  EXPECT_EQ(json["system"]["cpu_model"], "given");
}

TEST(Report, WritesIndentedJsonToAFileAndNamesAPathItCannotWrite) {
  const std::string path = scratch("out.json");
  write_report(Report("smartarrays.test/1", {{"value", 0.5}}), path);
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::filesystem::remove(path);
  EXPECT_EQ(text.str().rfind("{\n  \"format\": \"smartarrays.test/1\",\n", 0), 0u) << text.str();
  EXPECT_EQ(Json::parse(text.str())["value"], 0.5);
  try {
    write_report(Report("smartarrays.test/1"), "/nonexistent-dir/out.json");
    FAIL() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::os_error);
    EXPECT_NE(std::string(e.what()).find("/nonexistent-dir/out.json"), std::string::npos);
  }
}

TEST(Report, ResultPathCreatesTheDirectoryAndStampsTheName) {
  const std::string dir = scratch("results");
  const std::string path = result_path(dir, "codec");
  EXPECT_TRUE(std::filesystem::is_directory(dir));
  std::filesystem::remove_all(dir);
  EXPECT_EQ(path.rfind(dir + "/codec-", 0), 0u) << path;
  EXPECT_EQ(path.substr(path.size() - 6), "Z.json") << path;
}

TEST(Report, TimingJsonCarriesTheStatistics) {
  const Json json = timing_json(summarize({2.0, 4.0, 3.0}));
  EXPECT_EQ(json, Json({{"median_s", 3.0}, {"min_s", 2.0}, {"max_s", 4.0}, {"spread", 2.0 / 3.0}}));
}

}  // namespace
}  // namespace smartarrays::measure
