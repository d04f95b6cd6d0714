// Owns CPU feature detection for the codec's run-time kernel choice (cpuid + the OS's xsave state).
#include "codec/cpu_features.hpp"

#include <cpuid.h>

#include <cstdint>

namespace smartarrays::codec::detail {

bool cpu_has_avx2_bmi2() noexcept {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
  const bool osxsave = (ecx & bit_OSXSAVE) != 0;
  const bool avx = (ecx & bit_AVX) != 0;
  if (!osxsave || !avx) return false;
  // The OS must save YMM state, or AVX instructions fault even though cpuid lists them.
  std::uint32_t xcr0_lo = 0, xcr0_hi = 0;
  __asm__ volatile("xgetbv" : "=a"(xcr0_lo), "=d"(xcr0_hi) : "c"(0));
  if ((xcr0_lo & 0x6) != 0x6) return false;
  if (__get_cpuid_max(0, nullptr) < 7) return false;
  __cpuid_count(7, 0, eax, ebx, ecx, edx);
  return (ebx & bit_AVX2) != 0 && (ebx & bit_BMI2) != 0;
}

}  // namespace smartarrays::codec::detail
