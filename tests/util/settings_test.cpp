// Tests the settings table (util/settings.hpp): every SMARTARRAYS_* variable the library reads is in
// it, and a bad value of each is an error naming the variable — in a child process where the value
// is read once per process (the kernel set, the topology).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cstdlib>
#include <string>

#include "smartarrays/codec/kernels.hpp"
#include "smartarrays/error.hpp"
#include "smartarrays/os/topology.hpp"
#include "smartarrays/runtime/thread_pool.hpp"
#include "smartarrays/util/settings.hpp"

namespace smartarrays {
namespace {

// Sets (or, for nullptr, unsets) a variable for the scope of the object.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    const char* old = std::getenv(name);
    had_ = old != nullptr;
    if (had_) old_ = old;
    value ? ::setenv(name, value, 1) : ::unsetenv(name);
  }
  ~ScopedEnv() { had_ ? ::setenv(name_, old_.c_str(), 1) : ::unsetenv(name_); }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

std::string message_of(void (*f)()) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Settings, TheTableNamesEveryVariableOnceWithValuesAndMeaning) {
  for (std::size_t i = 0; i < util::settings.size(); ++i) {
    EXPECT_EQ(util::settings[i].name.rfind("SMARTARRAYS_", 0), 0u);
    EXPECT_FALSE(util::settings[i].values.empty());
    EXPECT_FALSE(util::settings[i].meaning.empty());
    for (std::size_t j = 0; j < i; ++j) EXPECT_NE(util::settings[i].name, util::settings[j].name);
  }
  EXPECT_THROW(util::setting_text("SMARTARRAYS_NOT_A_SETTING"), Error);
}

TEST(Settings, CountsAreCheckedAndNameTheVariable) {
  {
    ScopedEnv env("SMARTARRAYS_THREADS", nullptr);
    EXPECT_EQ(util::setting_count("SMARTARRAYS_THREADS", 1, 10, 7), 7u);
  }
  {
    ScopedEnv env("SMARTARRAYS_THREADS", "");
    EXPECT_EQ(util::setting_count("SMARTARRAYS_THREADS", 1, 10, 7), 7u);
  }
  {
    ScopedEnv env("SMARTARRAYS_THREADS", "10");
    EXPECT_EQ(util::setting_count("SMARTARRAYS_THREADS", 1, 10, 7), 10u);
  }
  for (const char* bad : {"0", "11", "-1", "+3", " 3", "3 ", "x", "99999999999999999999999"}) {
    ScopedEnv env("SMARTARRAYS_THREADS", bad);
    try {
      util::setting_count("SMARTARRAYS_THREADS", 1, 10, 7);
      ADD_FAILURE() << bad << " accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::invalid_argument);
      EXPECT_EQ(std::string(e.what()), "environment variable SMARTARRAYS_THREADS='" + std::string(bad) +
                                           "': expected a whole number from 1 to 10");
    }
  }
  ScopedEnv env("SMARTARRAYS_THREADS", "lots");
  EXPECT_EQ(message_of([] { runtime::default_thread_count(); }),
            "environment variable SMARTARRAYS_THREADS='lots': expected a whole number from 1 to 4096");
}

TEST(SettingsDeathTest, ABadKernelSetFailsEveryKernelCallNamingTheVariable) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SMARTARRAYS_ISA", "junk", 1);
        const std::string message = message_of([] { codec::kernels(10); });
        const std::string again = message_of([] { codec::check_isa_setting(); });
        std::_Exit(message ==
                               "environment variable SMARTARRAYS_ISA='junk': unknown kernel set 'junk' "
                               "(expected one of: scalar, avx2)" &&
                           again == message
                       ? 0
                       : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(SettingsDeathTest, KernelSetNamesAnyCaseAndScalarIsHonoured) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SMARTARRAYS_ISA", "SCALAR", 1);
        codec::check_isa_setting();
        std::_Exit(codec::active_isa() == codec::Isa::scalar ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

TEST(SettingsDeathTest, ABadTopologyNamesTheVariableAndTheSpec) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("SMARTARRAYS_TOPOLOGY", "nodes=\x1b", 1);
        const std::string message = message_of([] { os::topology(); });
        std::_Exit(message.rfind("environment variable SMARTARRAYS_TOPOLOGY='nodes=\\x1b': ", 0) == 0 ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

}  // namespace
}  // namespace smartarrays
