// Owns the summary every repeated measurement is reported with: median, minimum, maximum and the
// spread (max - min) / median; shared by the measuring harness (src/measure/timing.hpp) and the
// tuner (tune/tuner.hpp), so a median means the same in every table.
#pragma once

#include <algorithm>
#include <vector>

namespace smartarrays::util {

/// The middle, smallest and largest of some values.
struct Summary {
  double median = 0;  ///< the middle value (the upper one of an even count)
  double min = 0;     ///< the smallest
  double max = 0;     ///< the largest
  /// (max - min) / median; 0 when the median is 0.
  double spread() const noexcept { return median > 0 ? (max - min) / median : 0; }
};

/// The summary of values; all zero when there are none.
inline Summary summarize(std::vector<double> values) {
  Summary summary;
  if (values.empty()) return summary;
  std::sort(values.begin(), values.end());
  summary.median = values[values.size() / 2];
  summary.min = values.front();
  summary.max = values.back();
  return summary;
}

}  // namespace smartarrays::util
