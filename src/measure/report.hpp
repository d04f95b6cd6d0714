// Owns the report writer of the command and the C++ benchmark programs: a result wrapped in the
// versioned envelope ("format" NAME/VERSION and the machine facts of the C ABI, schema
// smartarrays.machine/1) and written as indented JSON to a file or stdout (docs/cli.md).
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <utility>

#include "measure/timing.hpp"

namespace smartarrays::measure {

/// JSON objects keep their members in the order they were added.
using Json = nlohmann::ordered_json;

/// The machine facts now, as sa_machine_facts_json reports them; throws Error when it fails.
Json machine_facts();

/// A result document before it is written.
struct Report {
  /// A report of format whose own members start as fields.
  explicit Report(std::string format_name, Json first_fields = Json::object())
      : format(std::move(format_name)), fields(std::move(first_fields)) {}

  std::string format;                   ///< "NAME/VERSION" (docs/cli.md): readers rely on it
  Json fields;                          ///< the document's own members, in order
  std::string machine_key = "machine";  ///< the member holding the facts ("system" in smartarrays.topology/1)
  Json machine;                         ///< the facts, when the caller read them already; else read when written
};

/// The whole document: {"format": ..., machine_key: the facts, fields...}.
Json document(const Report& report);

/// Writes document(report) to path, '-' for stdout; throws Error(os_error) naming path when it cannot.
void write_report(const Report& report, const std::string& path);

/// Writes text (a document made elsewhere, e.g. tune::tune_report_json) to path, '-' for stdout;
/// throws Error(os_error) naming path when it cannot.
void write_text(const std::string& text, const std::string& path);

/// <dir>/<name>-<UTC time>.json, creating dir: the file a benchmark program writes its report to.
std::string result_path(const std::string& dir, const std::string& name);

/// A timing as {"median_s", "min_s", "max_s", "spread"}.
Json timing_json(const Timing& timing);

/// The current UTC time as 2026-11-21T20:30:22Z.
std::string utc_now();

}  // namespace smartarrays::measure
