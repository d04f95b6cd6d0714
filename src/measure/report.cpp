// Owns the envelope, the facts from the C ABI and the file handling of report.hpp.
#include "measure/report.hpp"

#include <ctime>
#include <filesystem>
#include <iostream>

#include "smartarrays.h"
#include "smartarrays/error.hpp"
#include "os/output_file.hpp"

namespace smartarrays::measure {

namespace {

std::string utc(const char* pattern) {
  const std::time_t now = std::time(nullptr);
  std::tm parts{};
  ::gmtime_r(&now, &parts);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, pattern, &parts);
  return stamp;
}

}  // namespace

Json machine_facts() {
  const char* text = nullptr;
  const sa_status status = sa_machine_facts_json(&text);
  if (status != SA_OK) throw Error(static_cast<ErrorCode>(status), sa_last_error());
  return Json::parse(text);
}

Json document(const Report& report) {
  Json json;
  json["format"] = report.format;
  json[report.machine_key] = report.machine.is_null() ? machine_facts() : report.machine;
  for (const auto& [key, value] : report.fields.items()) json[key] = value;
  return json;
}

void write_report(const Report& report, const std::string& path) {
  // Text from /proc or a file name need not be UTF-8; a stray byte becomes U+FFFD, not an exception.
  write_text(document(report).dump(2, ' ', false, Json::error_handler_t::replace) + "\n", path);
}

void write_text(const std::string& text, const std::string& path) {
  if (path == "-") {
    std::cout << text;
    std::cout.flush();
    return;
  }
  os::OutputFile out(path);
  out.write(text.data(), text.size());
  out.commit();
}

std::string result_path(const std::string& dir, const std::string& name) {
  std::error_code error;
  std::filesystem::create_directories(dir, error);
  if (error) throw Error(ErrorCode::os_error, "cannot create " + dir + ": " + error.message());
  return dir + "/" + name + "-" + utc("%Y%m%dT%H%M%SZ") + ".json";
}

Json timing_json(const Timing& timing) {
  return {{"median_s", timing.median}, {"min_s", timing.min}, {"max_s", timing.max}, {"spread", timing.spread()}};
}

std::string utc_now() { return utc("%Y-%m-%dT%H:%M:%SZ"); }

}  // namespace smartarrays::measure
