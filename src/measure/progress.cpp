// Owns the terminal and log behaviour of the progress line of progress.hpp.
#include "measure/progress.hpp"

#include <unistd.h>

#include <iostream>

namespace smartarrays::measure {

Progress::Progress(bool enabled)
    : enabled_(enabled), interactive_(::isatty(STDERR_FILENO) == 1), start_(std::chrono::steady_clock::now()) {}

void Progress::show(const std::string& text, bool milestone) const {
  if (!enabled_) return;
  if (interactive_) {
    std::cerr << "\r\033[K" << text << std::flush;
  } else if (milestone) {
    std::cerr << text << "\n";
  }
}

void Progress::step(const std::string& live, const std::string& logged) const {
  if (!enabled_) return;
  if (interactive_ && !live.empty()) {
    std::cerr << "\r\033[K" << live << std::flush;
  } else if (!interactive_ && !logged.empty()) {
    std::cerr << logged << "\n";
  }
}

void Progress::finish(const std::string& text) const {
  if (!enabled_) return;
  std::cerr << (interactive_ ? "\r\033[K" : "") << text << "\n" << std::flush;
}

double Progress::elapsed_seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

}  // namespace smartarrays::measure
