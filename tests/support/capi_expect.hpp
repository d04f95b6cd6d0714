// Owns the C ABI tests' failure checks (a status and a last-error message naming the function) and
// an owner that frees a C handle at the end of a test.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "smartarrays.h"

namespace smartarrays::test {

/// Expects this thread's last-error message to name the function and contain part.
inline void expect_last_error(const char* function, const std::string& part) {
  const std::string message = sa_last_error();
  EXPECT_EQ(message.rfind(std::string(function) + ": ", 0), 0u) << "'" << message << "' does not start with " << function;
  EXPECT_NE(message.find(part), std::string::npos) << "'" << message << "' lacks '" << part << "'";
}

/// Expects status, and a last-error message that names the function and contains part.
inline void expect_failure(sa_status got, sa_status status, const char* function, const std::string& part) {
  EXPECT_EQ(got, status) << sa_last_error();
  expect_last_error(function, part);
}

/// A C handle (T*) freed by Free when the owner goes; pass &owner.p to the creating call.
template <typename T, void (*Free)(T*)>
struct Owned {
  T* p = nullptr;  ///< the handle, NULL until created
  Owned() = default;
  Owned(const Owned&) = delete;
  Owned& operator=(const Owned&) = delete;
  ~Owned() { Free(p); }
};

}  // namespace smartarrays::test
