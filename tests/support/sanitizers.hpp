// Owns the tests' view of which sanitizer the build runs under: GCC defines __SANITIZE_ADDRESS__ /
// __SANITIZE_THREAD__, clang 14 answers only through __has_feature.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#define SMARTARRAYS_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SMARTARRAYS_TEST_ASAN 1
#endif
#endif

#if defined(__SANITIZE_THREAD__)
#define SMARTARRAYS_TEST_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SMARTARRAYS_TEST_TSAN 1
#endif
#endif
