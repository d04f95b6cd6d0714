// Owns the progress display of long measurements on stderr: on a terminal one line rewritten in
// place, in a log one line per step that matters, nothing when switched off (--quiet).
#pragma once

#include <chrono>
#include <string>

namespace smartarrays::measure {

/// A progress line on stderr.
class Progress {
 public:
  /// A display that prints only when enabled; a terminal on stderr gets the in-place line.
  explicit Progress(bool enabled);
  /// Shows text; in a log (not a terminal) only when it is a milestone, so logs stay short.
  void show(const std::string& text, bool milestone = true) const;
  /// One step of a long loop: live in place on a terminal, logged as its own line in a log or a pipe
  /// (so CI logs see progress); an empty text shows nothing there.
  void step(const std::string& live, const std::string& logged) const;
  /// Shows text as the last state and ends the line.
  void finish(const std::string& text) const;
  /// Seconds since the display was made.
  double elapsed_seconds() const;

 private:
  bool enabled_;
  bool interactive_;
  std::chrono::steady_clock::time_point start_;
};

}  // namespace smartarrays::measure
