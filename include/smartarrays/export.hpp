/* Owns SMARTARRAYS_API, the mark that exports a declaration from libsmartarrays.so (the library is
   built with -fvisibility=hidden, so only marked C ABI and C++ API symbols are visible).
   Preprocessor only, so that the C header smartarrays.h can include it too. */
#ifndef SMARTARRAYS_EXPORT_HPP
#define SMARTARRAYS_EXPORT_HPP

#if defined(__GNUC__) || defined(__clang__)
#define SMARTARRAYS_API __attribute__((visibility("default")))
#else
#define SMARTARRAYS_API
#endif

#endif /* SMARTARRAYS_EXPORT_HPP */
