// Owns what every benchmark program shares: timing with medians and spread, machine facts, and
// writing one JSON result file per run under <build>/bench-results/.
#pragma once

#include <sys/utsname.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/os/topology.hpp"

namespace smartarrays::bench {

/// Median, minimum and maximum of repeated measurements, in seconds.
struct Timing {
  double median = 0, min = 0, max = 0;
  /// (max - min) / median: the spread reported next to every ratio.
  double spread() const { return median > 0 ? (max - min) / median : 0; }
};

/// Runs f `repetitions` times (after one warm-up run) and returns the timing.
inline Timing time_it(int repetitions, const std::function<void()>& f) {
  f();
  std::vector<double> seconds;
  for (int r = 0; r < repetitions; ++r) {
    const auto start = std::chrono::steady_clock::now();
    f();
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(seconds.begin(), seconds.end());
  return {seconds[seconds.size() / 2], seconds.front(), seconds.back()};
}

/// Parses `--flag value` pairs: each handler converts its value (std::sto* errors become "bad
/// value"); --help prints usage and exits 0; a missing value or unknown flag prints usage and exits 2.
inline void parse_flags(int argc, char** argv, const std::string& program, const std::string& usage,
                        const std::map<std::string, std::function<void(const std::string&)>>& handlers) {
  auto fail = [&](const std::string& message) {
    std::cerr << program << ": " << message << "\n" << usage;
    std::exit(2);
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::cout << usage;
      std::exit(0);
    }
    const auto handler = handlers.find(arg);
    if (handler == handlers.end()) fail("unknown flag " + arg);
    if (i + 1 >= argc) fail(arg + " needs a value");
    try {
      handler->second(argv[++i]);
    } catch (const std::logic_error&) {
      fail("bad value for " + arg + ": " + argv[i]);
    }
  }
}

/// A comma-separated list of bit widths, each checked to be 1..64 (throws std::invalid_argument).
inline std::vector<unsigned> parse_bits_list(const std::string& text) {
  std::vector<unsigned> bits;
  std::stringstream list(text);
  for (std::string item; std::getline(list, item, ',');) {
    const unsigned long b = std::stoul(item);
    if (b < 1 || b > 64) throw std::invalid_argument("bit width outside 1..64");
    bits.push_back(static_cast<unsigned>(b));
  }
  return bits;
}

/// Keeps the compiler from discarding a computed value.
template <typename T>
inline void keep(const T& value) {
  asm volatile("" : : "g"(&value) : "memory");
}

inline std::string read_first_line(const std::string& path) {
  std::ifstream in(path);
  std::string line;
  std::getline(in, line);
  return line;
}

inline std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  }
  return "unknown";
}

/// Escapes a string for JSON.
inline std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out + "\"";
}

/// The machine facts every result file carries, as a JSON object.
inline std::string machine_json() {
  double load[3] = {0, 0, 0};
  getloadavg(load, 3);
  utsname un{};
  uname(&un);
  const auto& topo = os::topology();
  std::ostringstream o;
  o << "{\"cpu_model\": " << json_string(cpu_model()) << ", \"cores\": " << sysconf(_SC_NPROCESSORS_ONLN)
    << ", \"usable_cpus\": " << topo.all_cpus().size() << ", \"nodes\": " << topo.node_count()
    << ", \"fake_topology\": " << (topo.is_fake() ? "true" : "false")
    << ", \"thp\": " << json_string(read_first_line("/sys/kernel/mm/transparent_hugepage/enabled"))
    << ", \"kernel\": " << json_string(un.release) << ", \"codec_isa\": "
    << json_string(codec::isa_name(codec::active_isa())) << ", \"load_average\": [" << load[0] << ", " << load[1]
    << ", " << load[2] << "]}";
  return o.str();
}

/// Writes {"benchmark": name, "machine": {...}, "results": results_json} to
/// <dir>/<name>-<UTC timestamp>.json and returns the path.
inline std::string write_result_file(const std::string& dir, const std::string& name, const std::string& results_json) {
  std::filesystem::create_directories(dir);
  const std::time_t now = std::time(nullptr);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", std::gmtime(&now));
  const std::string path = dir + "/" + name + "-" + stamp + ".json";
  std::ofstream out(path);
  out << "{\"benchmark\": " << json_string(name) << ", \"machine\": " << machine_json()
      << ", \"results\": " << results_json << "}\n";
  return path;
}

}  // namespace smartarrays::bench
